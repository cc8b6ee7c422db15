#!/usr/bin/env bash
# make bench: what a tool call costs, measured in one run on this machine.
#
#   1. start-to-ready of wasmgate with the three examples (cold and warm
#      compilation cache);
#   2. tools/call over Streamable HTTP with sessions, at 1 and 16 clients,
#      for the floor (`mcpbench -serve-floor`: net/http and encoding/json
#      answering tools/call, no MCP library), for mcp-go's own server with a native Go calculate handler (the
#      ceiling of this stack) built two ways: with the mcp-go wasmgate
#      builds, patched in third_party/mcp-go (`mcpbench -serve`, "native")
#      and with the mcp-go release, unpatched (bench/stock, "release": what
#      a user who writes the tool natively in mcp-go gets), wasmgate's
#      calculate (the Go calculator example) and wasmgate's add (the lean
#      test module written in WebAssembly text), interleaved in ROUNDS
#      rounds (default 3; the order rotates each round), and their ratios
#      to the floor and to both native servers (each round against its
#      own, then the median), with every server's CPU time per call;
#   3. the same calculate calls while a plugin spins at its limit (a hostile
#      guest looping until its 1 s timeout, at its concurrency of 1, over
#      and over);
#   4. calculate during a reload storm (one reload per second);
#   5. the in-process cost of one call, serially (go test -bench): through
#      the loader alone, and through the gateway's call path;
#   6. the gateway's resident memory.
#
# Loopback only; stops by itself. The machine's load average is printed
# first and last: on a shared machine, read the ratios, not the rates.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
ROUNDS=${ROUNDS:-3}
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
STOCK=./bin/mcpstock
work=$(mktemp -d)
pid=
native=
stock=
floor=
spinner=
cleanup() {
  for p in $spinner $native $stock $floor $pid; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

[[ -f testdata/plugins/lean.wasm && -f testdata/plugins/hostile.wasm ]] || {
  echo "bench: testdata/plugins/lean.wasm and hostile.wasm are needed (make plugins, with wabt's wat2wasm installed)" >&2
  exit 1
}

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
HTTP=$(port); ADMIN=$(port); NATIVE=$(port); RELEASE=$(port); FLOOR=$(port)
root=$(pwd)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

examples="  - {name: calculator, path: $root/examples/plugins/calculator.wasm}
  - {name: storage, path: $root/examples/plugins/storage.wasm}
  - {name: greeter, path: $root/examples/plugins/greeter.wasm}"
config() { # config EXTRA-PLUGIN-LINES
  cat >"$work/gateway.yaml" <<YAML
server:
  cache_dir: $work/cache
  log: {level: warn}
transports:
  http: {listen: 127.0.0.1:$HTTP}
admin:
  listen: 127.0.0.1:$ADMIN
plugins:
$examples
$1
YAML
}

# start sets pid and ready_ms (milliseconds from exec to /readyz 200).
start() {
  local t0 t1
  t0=$(date +%s%N)
  $BIN serve --config "$work/gateway.yaml" >/dev/null 2>>"$work/gateway.log" &
  pid=$!
  until curl -sf "http://127.0.0.1:$ADMIN/readyz" >/dev/null 2>&1; do
    kill -0 $pid 2>/dev/null || { cat "$work/gateway.log"; exit 1; }
    sleep 0.005
  done
  t1=$(date +%s%N)
  ready_ms=$(( (t1 - t0) / 1000000 ))
}
stop() { kill -TERM $pid; wait $pid || true; pid=; }

config ""
start; cold=$ready_ms; stop
start; warm=$ready_ms; stop
echo "start-to-ready with 3 example plugins: cold cache ${cold} ms, warm cache ${warm} ms"

# The gateway for the calls: the examples, the lean module, and the
# hostile fixture limited to one instance and 1 s per call.
config "  - {name: lean, path: $root/testdata/plugins/lean.wasm}
  - {name: hostile, path: $root/testdata/plugins/hostile.wasm, limits: {timeout: 1s, concurrency: 1}}"
start
rss0=$(awk '/VmRSS/{print $2}' /proc/$pid/status)

$BENCH -serve 127.0.0.1:$NATIVE >"$work/native.log" 2>&1 &
native=$!
$STOCK 127.0.0.1:$RELEASE >"$work/release.log" 2>&1 &
stock=$!
$BENCH -serve-floor 127.0.0.1:$FLOOR >"$work/floor.log" 2>&1 &
floor=$!
for p in native release floor; do
  until grep -q serving "$work/$p.log" 2>/dev/null; do
    kill -0 $native 2>/dev/null && kill -0 $stock 2>/dev/null && kill -0 $floor 2>/dev/null || { cat "$work/$p.log"; exit 1; }
    sleep 0.01
  done
done

status=0
results="$work/results"
: >"$results"
# phase NAME URL TOOL ARGS EXPECT CLIENTS: one mcpbench phase, its JSON
# summary recorded as "NAME clients calls/s p50 p99 failures".
phase() {
  local name=$1 url=$2 tool=$3 args=$4 expect=$5 clients=$6 out srv=$pid
  [[ $url == "$NAT" ]] && srv=$native # the server whose CPU per call is measured
  [[ $url == "$REL" ]] && srv=$stock
  [[ $url == "$FLR" ]] && srv=$floor
  set +e
  out=$($BENCH -url "$url" -tool "$tool" -args "$args" -expect "$expect" \
    -clients "$clients" -duration "$DURATION" -warmup 1s -json -cpu-pid "$srv")
  local st=$?
  set -e
  [[ $st == 0 ]] || status=$st
  printf '%-26s %s\n' "$name" "$(head -1 <<<"$out")"
  python3 -c 'import json,sys; s=json.loads(sys.argv[2]); print(sys.argv[1], s["clients"], s["calls_per_s"], s["p50_ms"], s["p99_ms"], s.get("server_cpu_us_per_call", 0), s["failures"])' \
    "$name" "$(tail -1 <<<"$out")" >>"$results"
}

GW="http://127.0.0.1:$HTTP/mcp"
NAT="http://127.0.0.1:$NATIVE/mcp"
REL="http://127.0.0.1:$RELEASE/mcp"
FLR="http://127.0.0.1:$FLOOR/mcp"
CALC='{"operation":"add","a":5,"b":3}'
ADD='{"a":5,"b":3}'
echo "tools/call over Streamable HTTP with sessions, ${DURATION} per phase, ${ROUNDS} rounds:"
# One round runs the five servers at 1 and at 16 clients; the order of the
# five rotates from round to round, so that a machine that speeds up or
# slows down during the run does not favour one of them.
order=(floor native release calculator lean)
for r in $(seq 1 "$ROUNDS"); do
  for c in 1 16; do
    for i in 0 1 2 3 4; do
      case ${order[$(( (i + r - 1) % 5 ))]} in
      floor) phase floor "$FLR" calculate "$CALC" 8 $c ;;
      native) phase native "$NAT" calculate "$CALC" 8 $c ;;
      release) phase release "$REL" calculate "$CALC" 8 $c ;;
      calculator) phase calculator "$GW" calculate "$CALC" 8 $c ;;
      lean) phase lean "$GW" add "$ADD" 8 $c ;;
      esac
    done
  done
done

# A plugin at its limit, spinning: one call of hostile's spin at a time,
# each stopped by its 1 s timeout (they all fail; that is the point).
$BENCH -url "$GW" -tool spin -args '{}' -clients 1 -duration 1h -warmup 0s >/dev/null 2>&1 &
spinner=$!
sleep 1.5
for c in 1 16; do
  phase "calculator, spinner" "$GW" calculate "$CALC" 8 $c
done
kill $spinner 2>/dev/null || true; wait $spinner 2>/dev/null || true; spinner=
curl -s "http://127.0.0.1:$ADMIN/metrics" | grep -E '^wasmgate_tool_calls_total\{.*tool="spin"' || true

# The same 16-client load during a reload storm: one reload per second,
# alternating the calculator's timeout (a real rebuild of the snapshot;
# the module is unchanged, so it is shared, not recompiled).
(
  i=0
  end=$(( $(date +%s) + 1 + ${DURATION%s} ))
  while [ "$(date +%s)" -lt "$end" ]; do
    i=$((i + 1))
    sed -i "/name: calculator/c\\  - {name: calculator, path: $root/examples/plugins/calculator.wasm, limits: {timeout: $((4 + i % 2))s}}" "$work/gateway.yaml"
    sleep 1
  done
) &
storm=$!
phase "calculator, reload storm" "$GW" calculate "$CALC" 8 16
wait $storm
curl -s "http://127.0.0.1:$ADMIN/metrics" | grep -E '^wasmgate_config_reloads_total' || true

rss1=$(awk '/VmRSS/{print $2}' /proc/$pid/status)

echo
echo "ratios to the floor (net/http and encoding/json, no MCP library) and to mcp-go's"
echo "own server with a native handler (calls/s, same run; the medians of the rounds'"
echo "rates, and of each round's ratio): native is built with wasmgate's patched"
echo "mcp-go, release with the mcp-go release:"
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
runs = {}  # (name, clients): [(calls/s, p50, cpu), ...], one per round, in order
for r in rows:
    name = " ".join(r[:-6])
    runs.setdefault((name, r[-6]), []).append((float(r[-5]), float(r[-4]), float(r[-2])))
med = lambda k, i: statistics.median(x[i] for x in runs[k])

def compare(name, base, i, f):
    """The median over the rounds of f(name's figure i, base's), each
    round against the same round's base (measured minutes apart at most);
    a phase run once (the spinner) against the base's median."""
    v, b = runs[name], runs[base]
    if len(v) == len(b):
        return statistics.median(f(x[i], y[i]) for x, y in zip(v, b))
    return f(med(name, i), med(base, i))

for base_name in ("floor", "native", "release"):
    for clients in ("1", "16"):
        base = (base_name, clients)
        if base not in runs:
            continue
        parts = [f"{base_name} {med(base, 0):,.0f}/s"]
        others = ("native", "release", "calculator", "lean") if base_name == "floor" else ("calculator", "lean", "calculator, spinner")
        for name in others:
            k = (name, clients)
            if k in runs:
                parts.append(f"{name} {med(k, 0):,.0f}/s = {compare(k, base, 0, lambda a, b: a / b):.2f}x")
        print(f"  {clients:>2} clients: " + "; ".join(parts))
print("median at 1 client, and the server's CPU per call (its own process, µs):")
for name in ("floor", "native", "release", "calculator", "lean"):
    k = (name, "1")
    if k not in runs:
        continue
    line = f"  {name:10} p50 {med(k, 1)*1000:.0f} µs"
    if name in ("calculator", "lean") and ("native", "1") in runs and ("release", "1") in runs:
        over = lambda b: compare(k, (b, "1"), 1, lambda a, c: (a - c) * 1000)
        line += f" ({over('native'):+.0f} µs over native, {over('release'):+.0f} µs over release)"
    line += f"; CPU per call {med(k, 2):.1f} µs at 1 client, {med((name, '16'), 2) if (name, '16') in runs else 0:.1f} µs at 16"
    print(line)
PY

echo
echo "in-process cost of one call, serially (go test -bench, no transport):"
go test -run '^$' -bench 'BenchmarkCall$' -benchtime 2s ./loader |
  awk '/^BenchmarkCall\//{split($1, n, "/"); sub(/-[0-9]+$/, "", n[2]); printf "  loader, %-11s %7.1f µs/call\n", n[2] ":", $3 / 1000}'
go test -run '^$' -bench 'BenchmarkCallToolSerial$' -benchtime 2s ./gateway |
  awk '/^BenchmarkCallToolSerial/{printf "  gateway call path, calculator: %.1f µs/call\n", $3 / 1000}'

echo
echo "gateway resident memory: ${rss0} KiB at ready, ${rss1} KiB after the benchmark"
curl -s "http://127.0.0.1:$ADMIN/metrics" | grep -E '^wasmgate_(tool_calls_total\{.*tool="(calculate|add)"|plugin_instances)' || true
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
