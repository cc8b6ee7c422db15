#!/usr/bin/env bash
# make bench-tracing: what tracing costs on the call path (issue 19). The
# same load as `make bench` (mcpbench, tools/call calculate over
# Streamable HTTP sessions, 16 clients by default) against three
# configurations of the same gateway:
#
#   off    no tracing section
#   ratio0 tracing to a local OTLP/HTTP sink with sample_ratio: 0 (no
#          span is built: without a sampled traceparent from the caller,
#          the call gets the no-op tracer)
#   ratio1 the same with sample_ratio: 1 (every call recorded: its span,
#          its WASM call's and, when it waited 100 µs or more for an
#          instance, that wait's, batched and exported to the sink,
#          `mcpbench -otlp-sink`, which discards them)
#
# They alternate for ROUNDS rounds (default 3; the order rotates), each
# gateway freshly started; the script reports the median calls/s of each,
# its ratio to off (the median of the rounds' ratios, each round against
# its own off phase), and the gateway's own CPU time per call, which other
# load on a shared machine disturbs less. Loopback only.
#
#   scripts/bench-tracing.sh [duration]   (make bench-tracing BENCH_DURATION=5s)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-16}
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
work=$(mktemp -d)
pid=
sink=
trap 'for p in $pid $sink; do kill $p 2>/dev/null || true; wait $p 2>/dev/null || true; done; rm -rf "$work"' EXIT

. scripts/benchlib.sh
HTTP=$(port); ADMIN=$(port); SINK=$(port)
root=$(pwd)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

$BENCH -otlp-sink 127.0.0.1:$SINK >"$work/sink.log" 2>&1 &
sink=$!
wait_serving $sink "$work/sink.log"

base() {
  cat <<YAML
server:
  cache_dir: $work/cache
  log: {level: warn}
transports:
  http: {listen: 127.0.0.1:$HTTP}
admin:
  listen: 127.0.0.1:$ADMIN
plugins:
  - {name: calculator, path: $root/examples/plugins/calculator.wasm}
YAML
}
base >"$work/off.yaml"
{ base; printf 'tracing:\n  endpoint: http://127.0.0.1:%s\n  sample_ratio: 0\n' "$SINK"; } >"$work/ratio0.yaml"
{ base; printf 'tracing:\n  endpoint: http://127.0.0.1:%s\n  sample_ratio: 1\n' "$SINK"; } >"$work/ratio1.yaml"

TICK=$(getconf CLK_TCK)

run() {
  local c0 c1 n0 n1
  start "$work/$1.yaml"
  c0=$(cpu_ticks); n0=$(calls)
  $BENCH -url "http://127.0.0.1:$HTTP/mcp" -tool calculate -args '{"operation":"add","a":5,"b":3}' -expect 8 \
    -clients "$CLIENTS" -duration "$DURATION" -warmup 1s -json >"$work/out" || {
    cat "$work/out"; stop; echo "bench-tracing: mcpbench failed ($1, round $2)" >&2; exit 1; }
  n1=$(calls); c1=$(cpu_ticks)
  if [ "$1" = ratio1 ]; then
    curl -s "http://127.0.0.1:$ADMIN/metrics" | grep '^wasmgate_trace_spans_total' | sed "s/^/  $1 round $2: /"
  fi
  sed -n 's/^{/{"config":"'"$1"'","round":'"$2"',/p' "$work/out" >>"$work/results"
  grep -v '^{' "$work/out" | sed "s/^/  $1 round $2: /"
  echo "$1 $(( (c1 - c0) * 1000000 / TICK )) $(( n1 - n0 ))" >>"$work/cpu"
  stop
}

start "$work/off.yaml"; stop # fill the compilation cache
order=(off ratio0 ratio1)
for r in $(seq 1 "$ROUNDS"); do
  for i in 0 1 2; do run "${order[$(( (i + r) % 3 ))]}" "$r"; done
done

python3 - "$work/results" "$work/cpu" <<'PY'
import json, statistics, sys
cpu = {}
for line in open(sys.argv[2]):
    config, us, n = line.split()
    t = cpu.setdefault(config, [0, 0]); t[0] += int(us); t[1] += int(n)
runs = {}  # (clients, config): {round: calls/s}
for line in open(sys.argv[1]):
    r = json.loads(line)
    runs.setdefault((r["clients"], r["config"]), {})[r["round"]] = r["calls_per_s"]
# Each round against its own "off" phase (the three ran minutes apart at
# most), then the median over the rounds, as make bench reads its ratios.
def ratio(c, x):
    off = runs[(c, "off")]
    return statistics.median(v / off[k] for k, v in runs[(c, x)].items())
for c in sorted({k[0] for k in runs}):
    m = {x: statistics.median(runs[(c, x)].values()) for x in ("off", "ratio0", "ratio1")}
    print(f"clients={c}, medians of {len(runs[(c, 'off')])} rounds: off {m['off']:.0f}/s, "
          f"sample_ratio 0 {m['ratio0']:.0f}/s ({ratio(c, 'ratio0'):.3f}x), "
          f"sample_ratio 1 {m['ratio1']:.0f}/s ({ratio(c, 'ratio1'):.3f}x; target at least 0.90x); "
          "each ratio is the median of the rounds' ratios to the same round's off")
us = {c: cpu[c][0] / cpu[c][1] for c in cpu}
print("gateway CPU per call, all rounds: " + ", ".join(f"{c} {us[c]:.1f} µs" for c in ("off", "ratio0", "ratio1")))
PY
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
