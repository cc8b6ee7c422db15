#!/usr/bin/env bash
# make bench-upstream: what fronting an MCP server costs (issue 17).
#
# mcp-go's own server with a native calculate handler (`mcpbench -serve`)
# is called directly, then through wasmgate as an HTTP upstream
# (url: ...), then the same server over stdio as a stdio upstream
# (`mcpbench -serve-stdio`, command: [...]), at 1 and 16 clients, with
# sessions, interleaved. Printed: each phase, the gateway's added median
# at 1 client and its throughput ratio to the direct calls at 16, and the
# resident memory of the gateway and of one idle stdio upstream process.
# Loopback only; both processes share this machine's CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
work=$(mktemp -d)
pid=
native=
cleanup() {
  for p in $native $pid; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
HTTP=$(port); ADMIN=$(port); NATIVE=$(port)
root=$(pwd)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

$BENCH -serve 127.0.0.1:$NATIVE >"$work/native.log" 2>&1 &
native=$!
until grep -q serving "$work/native.log" 2>/dev/null; do
  kill -0 $native 2>/dev/null || { cat "$work/native.log"; exit 1; }
  sleep 0.01
done

cat >"$work/gateway.yaml" <<YAML
server:
  cache_dir: $work/cache
  log: {level: warn}
transports:
  http: {listen: 127.0.0.1:$HTTP}
admin:
  listen: 127.0.0.1:$ADMIN
plugins: []
upstreams:
  - name: overhttp
    url: http://127.0.0.1:$NATIVE/mcp
    prefix: http
  - name: overstdio
    command: [$root/bin/mcpbench, -serve-stdio]
    prefix: stdio
YAML
$BIN serve --config "$work/gateway.yaml" >/dev/null 2>>"$work/gateway.log" &
pid=$!
until curl -sf "http://127.0.0.1:$ADMIN/readyz" >/dev/null 2>&1; do
  kill -0 $pid 2>/dev/null || { cat "$work/gateway.log"; exit 1; }
  sleep 0.01
done
child=$(pgrep -P $pid -f 'mcpbench -serve-stdio' | head -1)
rss_gw=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
rss_child=$(awk '/VmRSS/{print $2}' /proc/$child/status)

status=0
results="$work/results"
: >"$results"
phase() { # phase NAME URL TOOL CLIENTS
  local out st
  set +e
  out=$($BENCH -url "$2" -tool "$3" -args '{"operation":"add","a":5,"b":3}' -expect 8 \
    -clients "$4" -duration "$DURATION" -warmup 1s -json)
  st=$?
  set -e
  [[ $st == 0 ]] || status=$st
  printf '%-22s %s\n' "$1" "$(head -1 <<<"$out")"
  python3 -c 'import json,sys; s=json.loads(sys.argv[2]); print(sys.argv[1], s["clients"], s["calls_per_s"], s["p50_ms"], s["p99_ms"], s["failures"])' \
    "$1" "$(tail -1 <<<"$out")" >>"$results"
}
GW="http://127.0.0.1:$HTTP/mcp"
NAT="http://127.0.0.1:$NATIVE/mcp"
echo "tools/call over Streamable HTTP with sessions, ${DURATION} per phase:"
for c in 1 16; do
  phase direct "$NAT" calculate $c
  phase "http upstream" "$GW" http_calculate $c
  phase "stdio upstream" "$GW" stdio_calculate $c
done

echo
python3 - "$results" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
r = {(" ".join(x[:-5]), x[-5]): (float(x[-4]), float(x[-3])) for x in rows}
d1, d16 = r[("direct", "1")], r[("direct", "16")]
for name in ("http upstream", "stdio upstream"):
    a, b = r[(name, "1")], r[(name, "16")]
    print(f"{name}: +{a[1]-d1[1]:.3f} ms median at 1 client (direct {d1[1]:.3f} ms); "
          f"{b[0]/d16[0]:.2f}x the direct throughput at 16 clients ({b[0]:,.0f}/s vs {d16[0]:,.0f}/s)")
PY
echo "resident memory: gateway ${rss_gw} KiB with both upstreams idle; one idle stdio upstream process (mcpbench -serve-stdio) ${rss_child} KiB"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
