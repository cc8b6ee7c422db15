#!/usr/bin/env bash
# make bench: what a tool call costs, measured in one run on this machine.
#
#   1. start-to-ready of wasmgate with the three examples (cold and warm
#      compilation cache);
#   2. tools/call over Streamable HTTP with sessions, at 1 and 16 clients,
#      for five servers taking turns (mcpbench -target: 200 ms slices, the
#      order rotating each round, ROUNDS x DURATION of each server's own
#      time per client count; ROUNDS defaults to 3): mcp-go's own server
#      with a native Go calculate handler built two ways, with the mcp-go
#      wasmgate builds, patched in third_party/mcp-go (`mcpbench -serve`,
#      "native", the baseline) and with the mcp-go release, unpatched
#      (bench/stock, "release": what a user who writes the tool natively
#      in mcp-go gets), the floor (`mcpbench -serve-floor`: net/http and
#      encoding/json answering tools/call, no MCP library), wasmgate's
#      calculate (the Go calculator example) and wasmgate's add (the lean
#      test module written in WebAssembly text); each server's rate, p50
#      and CPU time per call, compared with native's in the same round
#      (the median over the rounds), and issue 22's targets checked;
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
# BENCH_DURATION (make) or the first argument is in whole seconds.
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
# phase NAME URL TOOL ARGS EXPECT CLIENTS: one mcpbench phase alone (the
# spinner's and the reload storm's), printed with the gateway's CPU per call.
phase() {
  local name=$1 url=$2 tool=$3 args=$4 expect=$5 clients=$6 out st
  set +e
  out=$($BENCH -url "$url" -tool "$tool" -args "$args" -expect "$expect" \
    -clients "$clients" -duration "$DURATION" -warmup 1s -cpu-pid "$pid")
  st=$?
  set -e
  [[ $st == 0 ]] || status=$st
  printf '%-26s %s\n' "$name" "$out"
}

GW="http://127.0.0.1:$HTTP/mcp"
NAT="http://127.0.0.1:$NATIVE/mcp"
REL="http://127.0.0.1:$RELEASE/mcp"
FLR="http://127.0.0.1:$FLOOR/mcp"
CALC='{"operation":"add","a":5,"b":3}'
ADD='{"a":5,"b":3}'
# The five servers take turns (mcpbench -target): at each client count
# each one's clients call for a 200 ms slice while the others wait, the
# order rotating every round, for ROUNDS x DURATION of each server's own
# time; every server is compared with native round by round, so a
# machine that speeds up or slows down over seconds slows them alike.
SLICE=${SLICE:-200ms}
secs=${DURATION%s}
measured=$(( ROUNDS * ${secs%.*} ))s
echo "tools/call over Streamable HTTP with sessions, the five servers in turns of $SLICE, ${measured} of each one's own time per client count (ROUNDS x DURATION):"
target() { # target NAME URL PID TOOL ARGS
  printf '{"name":"%s","url":"%s","pid":%s,"tool":"%s","args":%s,"expect":"8"}' "$1" "$2" "$3" "$4" "$5"
}
set +e
$BENCH -clients 1,16 -duration "$measured" -warmup 1s -slice "$SLICE" -json \
  -target "$(target native "$NAT" $native calculate "$CALC")" \
  -target "$(target release "$REL" $stock calculate "$CALC")" \
  -target "$(target floor "$FLR" $floor calculate "$CALC")" \
  -target "$(target calculator "$GW" $pid calculate "$CALC")" \
  -target "$(target lean "$GW" $pid add "$ADD")" >"$work/turns"
st=$?
set -e
[[ $st == 0 ]] || status=$st
grep -v '^{' "$work/turns" | sed 's/^/  /'
grep '^{' "$work/turns" >"$work/turns.json" || true

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
echo "against mcp-go's own server with a native handler (native; release is the same"
echo "with the mcp-go release, floor is net/http and encoding/json with no MCP library):"
echo "each server's turn against native's in the same round, the median over the rounds:"
python3 - "$work/turns.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {(r["name"], r["clients"]): r for r in rows}
for clients in (1, 16):
    nat = by.get(("native", clients))
    if not nat:
        continue
    print(f"  {clients:>2} clients: native {nat['calls_per_s']:,.0f}/s, p50 {nat['p50_ms']*1000:.0f} µs, CPU {nat.get('server_cpu_us_per_call', 0):.1f} µs/call")
    floor = by.get(("floor", clients))
    for name in ("release", "floor", "calculator", "lean"):
        r = by.get((name, clients))
        if not r or "rate_ratio" not in r:
            continue
        line = (f"    {name:10} {r['calls_per_s']:>8,.0f}/s = {r['rate_ratio']:.3f}x native (IQR {r['rate_ratio_iqr'][0]:.3f}-{r['rate_ratio_iqr'][1]:.3f}), "
                f"p50 {r['p50_ms']*1000:.0f} µs ({r['p50_over_us']:+.0f} µs), CPU {r.get('server_cpu_us_per_call', 0):.1f} µs/call ({r.get('cpu_ratio', 0):.3f}x)")
        if floor and name != "floor" and floor.get("rate_ratio"):
            line += f", {r['rate_ratio'] / floor['rate_ratio']:.2f}x the floor"
        print(line)
def ratio(name, clients, key):
    r = by.get((name, clients))
    return r.get(key) if r else None
checks = [
    ("lean at 16 clients >= 1.0x native", ratio("lean", 16, "rate_ratio"), lambda v: v >= 1.0, "{:.3f}x"),
    ("calculator at 16 clients >= 0.85x native", ratio("calculator", 16, "rate_ratio"), lambda v: v >= 0.85, "{:.3f}x"),
    ("calculator's p50 at 1 client <= 50 µs over native", ratio("calculator", 1, "p50_over_us"), lambda v: v <= 50, "{:+.0f} µs"),
]
print("issue 22's targets:")
for what, v, ok, fmt in checks:
    if v is not None:
        print(f"  {what}: {fmt.format(v)} ({'met' if ok(v) else 'NOT met'})")
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
