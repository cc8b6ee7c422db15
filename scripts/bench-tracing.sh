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
# load on a shared machine disturbs less. Then the same with mcp-go's own
# server and a native handler in place of the gateway, untraced and
# traced with the gateway's spans (mcpbench -serve -trace-to): what the
# OpenTelemetry SDK and exporter alone cost per call here. Loopback only.
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
# The floor: mcp-go's own server with a native handler (no gateway, no
# WebAssembly) without and with the same spans per call through the same
# SDK, batcher and exporter to the same sink (`mcpbench -serve -trace-to`).
# What tracing costs it is what those libraries cost any Go MCP server on
# these cores, whatever else the server does.
N0=$(port); N1=$(port)
$BENCH -serve 127.0.0.1:$N0 >"$work/n0.log" 2>&1 &
n0=$!
$BENCH -serve 127.0.0.1:$N1 -trace-to "http://127.0.0.1:$SINK" >"$work/n1.log" 2>&1 &
n1=$!
trap 'for p in $pid $sink $n0 $n1; do kill $p 2>/dev/null || true; wait $p 2>/dev/null || true; done; rm -rf "$work"' EXIT
wait_serving $n0 "$work/n0.log"; wait_serving $n1 "$work/n1.log"
: >"$work/floor"
for r in $(seq 1 "$ROUNDS"); do
  for i in 0 1; do
    if (( (i + r) % 2 )); then name=native port=$N0 p=$n0; else name=native_traced port=$N1 p=$n1; fi
    $BENCH -url "http://127.0.0.1:$port/mcp" -tool calculate -args '{"operation":"add","a":5,"b":3}' -expect 8 \
      -clients "$CLIENTS" -duration "$DURATION" -warmup 1s -json -cpu-pid "$p" >"$work/out" || {
      cat "$work/out"; echo "bench-tracing: mcpbench failed ($name, round $r)" >&2; exit 1; }
    grep -v '^{' "$work/out" | sed "s/^/  $name round $r: /"
    python3 -c 'import json,sys; s=json.loads(sys.argv[3]); print(sys.argv[1], sys.argv[2], s["calls_per_s"], s["cpu_us_per_call"][0], s["driver_cpu_us_per_call"])' \
      "$name" "$r" "$(grep '^{' "$work/out")" >>"$work/floor"
  done
done
python3 - "$work/floor" <<'PY'
import statistics, sys
runs = {}  # name: {round: (calls/s, server µs, driver µs)}
for line in open(sys.argv[1]):
    name, r, rate, srv, drv = line.split()
    runs.setdefault(name, {})[r] = (float(rate), float(srv), float(drv))
ratio = statistics.median(v[0] / runs["native"][k][0] for k, v in runs["native_traced"].items())
med = lambda n, i: statistics.median(v[i] for v in runs[n].values())
print(f"floor, mcp-go's own server: native {med('native', 0):.0f}/s, traced {med('native_traced', 0):.0f}/s "
      f"({ratio:.3f}x); server CPU per call {med('native', 1):.1f} µs untraced, {med('native_traced', 1):.1f} µs traced "
      f"(+{med('native_traced', 1) - med('native', 1):.1f} µs), load generator {med('native', 2):.1f} µs")
PY
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
