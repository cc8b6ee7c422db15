#!/usr/bin/env bash
# make bench-upstream (also run by make bench): what the gateway adds to a
# tools/call it proxies to an upstream MCP server (issue 17).
#
# The upstream is mcp-go's own server with a native calculate handler
# (`mcpbench -serve` over Streamable HTTP, `mcpbench -serve-stdio` over
# stdio), on the same machine. Phases, interleaved, at 1 and 16 clients:
#   direct     the load generator calls the upstream itself
#   via http   the gateway, with the upstream as `url:` (session: shared)
#   via stdio  the gateway, with the upstream as `command:`
#   via proxy  net/http/httputil's reverse proxy in front of the upstream
#              (`mcpbench -reverse-proxy`), doing nothing but forward: the
#              floor under any HTTP proxy on the same cores, MCP or not
# in ROUNDS rounds (default 3; the order rotates each round), and the
# medians over the rounds of each round against its own direct phase:
# added median latency at 1 client, throughput ratio at 16. Then the gateway's resident memory per idle upstream session
# (session: per_client, 50 sessions opened and left idle).
#
# Loopback only; stops by itself. Read the ratios, not the rates: the
# gateway, the upstream and the load generator share the machine's cores.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
ROUNDS=${ROUNDS:-3}
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
work=$(mktemp -d)
pid=
native=
proxy=
cleanup() {
  for p in $native $proxy $pid; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

. scripts/benchlib.sh
HTTP=$(port); ADMIN=$(port); NATIVE=$(port); PROXY=$(port)
root=$(pwd)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

$BENCH -serve 127.0.0.1:$NATIVE >"$work/native.log" 2>&1 &
native=$!
wait_serving $native "$work/native.log"
$BENCH -reverse-proxy 127.0.0.1:$PROXY -url "http://127.0.0.1:$NATIVE/mcp" >"$work/proxy.log" 2>&1 &
proxy=$!
wait_serving $proxy "$work/proxy.log"

config() { # config SESSION-MODE
  cat >"$work/gateway.yaml" <<YAML
server:
  cache_dir: $work/cache
  log: {level: warn}
transports:
  http: {listen: 127.0.0.1:$HTTP}
admin:
  listen: 127.0.0.1:$ADMIN
upstreams:
  - {name: viahttp, url: "http://127.0.0.1:$NATIVE/mcp", prefix: http, session: $1, limits: {concurrency: 64}}
  - {name: viastdio, command: ["$root/bin/mcpbench", "-serve-stdio"], prefix: stdio, limits: {concurrency: 64}}
YAML
}

status=0
results="$work/results"
: >"$results"
phase() { # phase NAME URL TOOL CLIENTS PIDS (the server side's: gateway, upstream, shim)
  local name=$1 url=$2 tool=$3 clients=$4 pids=$5 out
  set +e
  out=$($BENCH -url "$url" -tool "$tool" -args '{"operation":"add","a":5,"b":3}' -expect 8 \
    -clients "$clients" -duration "$DURATION" -warmup 1s -json -cpu-pid "$pids")
  local st=$?
  set -e
  [[ $st == 0 ]] || status=$st
  printf '%-12s %s\n' "$name" "$(head -1 <<<"$out")"
  python3 -c 'import json,sys; s=json.loads(sys.argv[2]); print(sys.argv[1], s["clients"], s["calls_per_s"], s["p50_ms"], s["p99_ms"], s["failures"], s.get("driver_cpu_us_per_call", 0), *s.get("cpu_us_per_call", []))' \
    "$name" "$(tail -1 <<<"$out")" >>"$results"
}

config shared
start "$work/gateway.yaml"
# The stdio upstream and the shim that started it (the gateway's side).
stdio=$(pgrep -x -f "$root/bin/mcpbench -serve-stdio")
shim=$(awk '{print $4}' "/proc/$stdio/stat")
GW="http://127.0.0.1:$HTTP/mcp"
NAT="http://127.0.0.1:$NATIVE/mcp"
PRX="http://127.0.0.1:$PROXY/mcp"
echo "tools/call over Streamable HTTP with sessions, ${DURATION} per phase, ${ROUNDS} rounds:"
order=(direct via_http via_stdio via_proxy)
for r in $(seq 1 "$ROUNDS"); do
  for c in 1 16; do
    for i in 0 1 2 3; do
      case ${order[$(( (i + r - 1) % 4 ))]} in
      direct) phase direct "$NAT" calculate $c "$native" ;;
      via_http) phase via_http "$GW" http_calculate $c "$pid,$native" ;;
      via_stdio) phase via_stdio "$GW" stdio_calculate $c "$pid,$stdio,$shim" ;;
      via_proxy) phase via_proxy "$PRX" calculate $c "$proxy,$native" ;;
      esac
    done
  done
done
stop

echo
echo "against calling the upstream directly (same run; the medians of the rounds, each round"
echo "against its own direct phase):"
python3 - "$results" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
runs = {}  # (name, clients): [(calls/s, p50, driver, server side...), ...], one per round, in order
for x in rows:
    runs.setdefault((x[0], x[1]), []).append((float(x[2]), float(x[3])) + tuple(float(v) for v in x[6:]))
med = lambda k, i: statistics.median(x[i] for x in runs[k])
# Each round against the same round's direct phase, then the median.
per_round = lambda k, d, i, f: statistics.median(f(x[i], y[i]) for x, y in zip(runs[k], runs[d]))
for name in ("via_http", "via_stdio", "via_proxy"):
    a, d = (name, "1"), ("direct", "1")
    if a in runs and d in runs:
        added = per_round(a, d, 1, lambda v, w: (v - w) * 1000)
        print(f"  {name:9}  1 client: median {med(a, 1)*1000:.0f} µs, direct {med(d, 1)*1000:.0f} µs: {added:+.0f} µs (target at most +200 µs)")
    b, d = (name, "16"), ("direct", "16")
    if b in runs and d in runs:
        ratio = per_round(b, d, 0, lambda v, w: v / w)
        print(f"  {name:9} 16 clients: {med(b, 0):,.0f}/s against {med(d, 0):,.0f}/s direct = {ratio:.2f}x (target at least 0.50x)")
if ("via_http", "16") in runs and ("via_proxy", "16") in runs:
    r = per_round(("via_http", "16"), ("via_proxy", "16"), 0, lambda v, w: v / w)
    print(f"  via_http against the plain reverse proxy (via_proxy) at 16 clients: {r:.2f}x")
# Where the CPU goes at 16 clients (medians of the rounds; /proc, 10 ms
# ticks over each measured window). A proxy is a server to the load
# generator and a client to the upstream, so on shared cores 0.5x needs
# the gateway's CPU per call to be at most the upstream's plus the load
# generator's when called directly.
d = ("direct", "16")
if d in runs:
    up0, drv0 = med(d, 3), med(d, 2)
    print()
    print("CPU per call at 16 clients (medians of the rounds):")
    print(f"  direct     upstream {up0:.0f} µs + load generator {drv0:.0f} µs = {up0 + drv0:.0f} µs")
    for name in ("via_http", "via_stdio", "via_proxy"):
        b = (name, "16")
        if b not in runs:
            continue
        gw, up, drv = med(b, 3), med(b, 4), med(b, 2)
        shim = med(b, 5) if len(runs[b][0]) > 5 else 0
        side = f" + shim {shim:.0f} µs" if name == "via_stdio" else ""
        who = "proxy  " if name == "via_proxy" else "gateway"
        print(f"  {name:9}  {who} {gw:.0f} µs{side} + upstream {up:.0f} µs + load generator {drv:.0f} µs = {gw + shim + up + drv:.0f} µs;"
              f" {who.strip()}{'+shim' if side else ''} / (direct upstream + load generator) = {(gw + shim) / (up0 + drv0):.2f} (0.5x needs at most 1.0)")
PY

# Memory per idle upstream session: per_client opens one upstream session
# per downstream session, at its first call.
config per_client
start "$work/gateway.yaml"
rss0=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
$BENCH -url "$GW" -tool http_calculate -args '{"operation":"add","a":5,"b":3}' -expect 8 \
  -clients 50 -duration 1s -warmup 0s >/dev/null 2>&1 || true
sleep 1
rss1=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
echo
echo "per_client: resident memory ${rss0} KiB before, ${rss1} KiB with 50 idle downstream sessions, each with its own upstream session: about $(( (rss1 - rss0) / 50 )) KiB per idle session pair"
stop
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
