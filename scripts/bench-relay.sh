#!/usr/bin/env bash
# make bench-relay: MCP tools/call through the browser relay to the demo
# page's calculate (examples/browser) running in headless Chromium, at 1 and
# 16 concurrent clients over Streamable HTTP with sessions; prints calls/s,
# p50 and p99 per phase, then the relay's metrics. Loopback only; stops by
# itself.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "bench-relay needs Chromium at $CHROMIUM (apt-get install -y chromium)" >&2; exit 2; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work" 2>/dev/null || { sleep 1; rm -rf "$work"; }
}
trap cleanup EXIT

. scripts/benchlib.sh
HTTP=$(port); ADMIN=$(port); STATIC=$(port)
export RELAY_DEMO_TOKEN=$(head -c 24 /dev/urandom | base64 | tr '+/' '-_')
cat >"$work/gateway.yaml" <<YAML
server:
  cache_dir: $work/cache
  log: {level: warn}
transports:
  http: {listen: 127.0.0.1:$HTTP}
admin:
  listen: 127.0.0.1:$ADMIN
plugins: []
relay:
  sites:
    - {name: demo, token_env: RELAY_DEMO_TOKEN}
YAML

$BIN serve --config "$work/gateway.yaml" >/dev/null 2>>"$work/gateway.log" &
gw=$!; pids+=($gw)
until curl -sf "http://127.0.0.1:$ADMIN/readyz" >/dev/null 2>&1; do
  kill -0 $gw 2>/dev/null || { cat "$work/gateway.log"; exit 1; }
  sleep 0.02
done

python3 -m http.server "$STATIC" --bind 127.0.0.1 --directory examples/browser >/dev/null 2>&1 &
pids+=($!)
until curl -sf "http://127.0.0.1:$STATIC/index.html" >/dev/null 2>&1; do sleep 0.02; done

page="http://127.0.0.1:$STATIC/index.html#url=ws://127.0.0.1:$HTTP/relay/demo&token=$RELAY_DEMO_TOKEN"
"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
  --disable-sync --no-first-run --user-data-dir="$work/profile" --remote-debugging-port=0 "$page" \
  >/dev/null 2>"$work/chromium.log" &
pids+=($!)

# The page has registered when the gateway exposes its two tools.
for _ in $(seq 1 500); do
  curl -s "http://127.0.0.1:$ADMIN/metrics" | grep -q '^wasmgate_tools 2$' && break
  sleep 0.02
done
curl -s "http://127.0.0.1:$ADMIN/metrics" | grep -q '^wasmgate_tools 2$' || {
  echo "the demo page did not register its tools" >&2; cat "$work/gateway.log" "$work/chromium.log" >&2; exit 1; }
echo "demo page connected in headless Chromium; calling demo_calculate through the relay"

set +e
$BENCH -url "http://127.0.0.1:$HTTP/mcp" -tool demo_calculate -args '{"operation":"add","a":5,"b":3}' -expect 8 \
  -clients 1,16 -duration "$DURATION" -warmup 1s
status=$?
set -e
curl -s "http://127.0.0.1:$ADMIN/metrics" | grep -E '^wasmgate_(relay_|tool_calls_total)' || true
exit $status
