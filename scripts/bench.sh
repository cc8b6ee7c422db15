#!/usr/bin/env bash
# make bench: start wasmgate with the calculator and the other examples,
# report start-to-ready (cold and warm compilation cache), drive tools/call
# over Streamable HTTP with sessions at 1 and 16 clients, then report the
# gateway's resident memory. Loopback only; stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
pid=
HTTP=$(port); ADMIN=$(port)
root=$(pwd)
cat >"$work/gateway.yaml" <<YAML
server:
  cache_dir: $work/cache
  log: {level: warn}
transports:
  http: {listen: 127.0.0.1:$HTTP}
admin:
  listen: 127.0.0.1:$ADMIN
plugins:
  - {name: calculator, path: $root/examples/plugins/calculator.wasm}
  - {name: storage, path: $root/examples/plugins/storage.wasm}
  - {name: greeter, path: $root/examples/plugins/greeter.wasm}
YAML

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
stop() { kill -TERM $pid; wait $pid || true; }

start; cold=$ready_ms; stop
start; warm=$ready_ms
echo "start-to-ready with 3 example plugins: cold cache ${cold} ms, warm cache ${warm} ms"
rss0=$(awk '/VmRSS/{print $2}' /proc/$pid/status)

set +e
$BENCH -url "http://127.0.0.1:$HTTP/mcp" -tool calculate -args '{"operation":"add","a":5,"b":3}' -expect 8 \
  -clients 1,16 -duration "$DURATION" -warmup 1s
status=$?
set -e

rss1=$(awk '/VmRSS/{print $2}' /proc/$pid/status)

# The same 16-client load during a reload storm: one reload per second,
# alternating the calculator's timeout (a real rebuild of the snapshot;
# the module is unchanged, so it is shared, not recompiled).
echo "reload storm (one reload per second) during a 16-client phase:"
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
set +e
$BENCH -url "http://127.0.0.1:$HTTP/mcp" -tool calculate -args '{"operation":"add","a":5,"b":3}' -expect 8 \
  -clients 16 -duration "$DURATION" -warmup 1s
storm_status=$?
set -e
wait $storm
[ $storm_status -eq 0 ] || status=$storm_status
curl -s "http://127.0.0.1:$ADMIN/metrics" | grep -E '^wasmgate_config_reloads_total' || true
echo "gateway resident memory: ${rss0} KiB at ready, ${rss1} KiB after the benchmark"
curl -s "http://127.0.0.1:$ADMIN/metrics" | grep -E '^wasmgate_(tool_calls_total|plugin_instances)' || true
stop
exit $status
