#!/usr/bin/env bash
# make bench-peers: wasmgate against the other proxies that run here, in
# front of the same upstream (issue 46, item 6).
#
# The upstream is mcp-go's own server with a native calculate handler:
# `mcpbench -serve` over Streamable HTTP, and `mcpbench -serve-stdio`,
# which every stdio proxy starts itself. The targets, all called by
# mcpbench over Streamable HTTP with sessions (initialize, then tools/call
# calculate in a loop, protocol revision PROTOCOL, 2025-11-25 by default,
# which every one of them accepts):
#   direct          the upstream over HTTP, no proxy
#   reverse_proxy   Go's net/http/httputil.ReverseProxy in front of it
#                   (`mcpbench -reverse-proxy`): the floor of an HTTP proxy
#   stdio_floor     `mcpbench -stdio-floor`: one -serve-stdio server shared
#                   by every session, each request forwarded as a line
#                   under an id of its own and the answer sent back,
#                   nothing else: the floor of a stdio proxy
#   wasmgate_http   wasmgate with the upstream as `url:` (session: shared)
#   wasmgate_stdio  wasmgate with the upstream as `command:`
#   supergateway    npm's supergateway, stdio to Streamable HTTP, stateful
#                   (a stdio server per session; its stateless mode starts
#                   one per request), logs off (--logLevel none)
#   mcp-proxy       npm's mcp-proxy (punkpeye), Streamable HTTP only
#                   (--server stream), its default sessions
# The peers are the exact versions of bench/peers/package.json (make
# bench-peers runs npm ci there). Each target first has to answer a real
# tools/call with the right result (mcpbench -expect).
#
# Then ROUNDS runs (default 3) of mcpbench with every target a -target:
# their clients take turns of 200 ms, the order rotating each round, at 1
# and 16 clients, DURATION (the first argument, default 5s) of each
# target's own time per client count and run. A machine whose speed drifts
# slows every target alike. The table is the medians over the runs; each
# ratio is taken within a run, then the median over the runs. CPU per call
# is the server side's: the proxy, every process it started and the
# upstream it calls (mcpbench -target pids, from /proc).
#
# Loopback only; stops by itself. Read the ratios, not the rates: the
# proxies, the upstream and the load generator share the machine's cores.
#
#   scripts/bench-peers.sh [duration]   (make bench-peers BENCH_DURATION=5s)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-1,16}
PROTOCOL=${PROTOCOL:-2025-11-25} # the revision mcpbench requests in initialize
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
PEERS=bench/peers/node_modules/.bin
work=$(mktemp -d)
pid=
helpers=()
cleanup() {
  for p in "${helpers[@]}" $pid; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

. scripts/benchlib.sh
for f in "$BIN" "$BENCH" "$PEERS/supergateway" "$PEERS/mcp-proxy"; do
  [ -x "$f" ] || { echo "bench-peers: $f is missing (make bench-peers builds and installs it)" >&2; exit 1; }
done
command -v node >/dev/null || { echo "bench-peers: node is not installed" >&2; exit 1; }
root=$(pwd)
HTTP=$(port); ADMIN=$(port); NATIVE=$(port); PROXY=$(port); FLOOR=$(port); SG=$(port); MP=$(port)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs); node $(node --version)," \
  "supergateway $(node -p 'require("./bench/peers/node_modules/supergateway/package.json").version')," \
  "mcp-proxy $(node -p 'require("./bench/peers/node_modules/mcp-proxy/package.json").version')"

# answering NAME PID URL waits until the process PID serves HTTP at URL
# (any status), at most 30 s; its log is printed if it exits or times out.
answering() {
  local deadline=$((SECONDS + 30))
  until curl -s -o /dev/null "$3"; do
    if ! kill -0 "$2" 2>/dev/null || ((SECONDS > deadline)); then
      echo "bench-peers: $1 did not start serving $3:" >&2
      cat "$work/$1.log" >&2
      exit 1
    fi
    sleep 0.05
  done
}

$BENCH -serve 127.0.0.1:$NATIVE >"$work/native.log" 2>&1 &
native=$!; helpers+=($native)
wait_serving $native "$work/native.log"
$BENCH -reverse-proxy 127.0.0.1:$PROXY -url "http://127.0.0.1:$NATIVE/mcp" >"$work/proxy.log" 2>&1 &
proxy=$!; helpers+=($proxy)
wait_serving $proxy "$work/proxy.log"
$BENCH -stdio-floor 127.0.0.1:$FLOOR >"$work/floor.log" 2>&1 &
floor=$!; helpers+=($floor)
wait_serving $floor "$work/floor.log"
"$PEERS/supergateway" --stdio "$root/bin/mcpbench -serve-stdio" --outputTransport streamableHttp --stateful \
  --port "$SG" --logLevel none >"$work/supergateway.log" 2>&1 &
sg=$!; helpers+=($sg)
"$PEERS/mcp-proxy" --port "$MP" --server stream -- "$root/bin/mcpbench" -serve-stdio >"$work/mcp-proxy.log" 2>&1 &
mp=$!; helpers+=($mp)

cat >"$work/gateway.yaml" <<YAML
server:
  cache_dir: $work/cache
  log: {level: warn}
transports:
  http: {listen: 127.0.0.1:$HTTP}
admin:
  listen: 127.0.0.1:$ADMIN
upstreams:
  - {name: viahttp, url: "http://127.0.0.1:$NATIVE/mcp", prefix: http, session: shared, limits: {concurrency: 64}}
  - {name: viastdio, command: ["$root/bin/mcpbench", "-serve-stdio"], prefix: stdio, limits: {concurrency: 64}}
YAML
start "$work/gateway.yaml"
answering supergateway $sg "http://127.0.0.1:$SG/mcp"
answering mcp-proxy $mp "http://127.0.0.1:$MP/mcp"

# target NAME PORT TOOL PID... is one mcpbench -target: its server side's
# processes are summed with all their descendants.
target() {
  local name=$1 port=$2 tool=$3
  shift 3
  local IFS=,
  printf '{"name":"%s","url":"http://127.0.0.1:%s/mcp","tool":"%s","pids":[%s]}' "$name" "$port" "$tool" "$*"
}
targets=(
  "$(target direct "$NATIVE" calculate "$native")"
  "$(target reverse_proxy "$PROXY" calculate "$proxy" "$native")"
  "$(target stdio_floor "$FLOOR" calculate "$floor")"
  "$(target wasmgate_http "$HTTP" http_calculate "$pid" "$native")"
  "$(target wasmgate_stdio "$HTTP" stdio_calculate "$pid")"
  "$(target supergateway "$SG" calculate "$sg")"
  "$(target mcp-proxy "$MP" calculate "$mp")"
)
ARGS=(-args '{"operation":"add","a":5,"b":3}' -expect 8 -protocol-version "$PROTOCOL")

# Every target answers a real call with the right result before anything
# is measured.
for t in "${targets[@]}"; do
  name=$(python3 -c 'import json,sys; t=json.loads(sys.argv[1]); print(t["name"], t["url"], t["tool"])' "$t")
  set -- $name
  if ! $BENCH -url "$2" -tool "$3" "${ARGS[@]}" -clients 1 -duration 100ms -warmup 0s >"$work/check.out" 2>&1; then
    echo "bench-peers: $1 ($2, tool $3) does not answer tools/call with 8:" >&2
    cat "$work/check.out" >&2
    exit 1
  fi
done

status=0
flags=()
for t in "${targets[@]}"; do flags+=(-target "$t"); done
echo "tools/call calculate over Streamable HTTP with sessions, the targets in turns of 200 ms," \
  "${DURATION} of each one's own time per client count, ${ROUNDS} runs, protocol ${PROTOCOL}:"
for r in $(seq 1 "$ROUNDS"); do
  set +e
  $BENCH "${ARGS[@]}" -clients "$CLIENTS" -duration "$DURATION" -warmup 1s -json "${flags[@]}" >"$work/run$r" 2>"$work/run$r.err"
  st=$?
  set -e
  if [[ $st != 0 ]]; then
    status=$st
    echo "bench-peers: run $r: mcpbench failed (exit $st):" >&2
    cat "$work/run$r.err" >&2
  fi
  { grep -v '^{' "$work/run$r" || true; } | sed "s/^/  run $r: /"
done
stop

echo
python3 - "$ROUNDS" "$work"/run* <<'PY'
import json, statistics, sys

runs = []  # one dict per run: (name, clients) -> summary
for path in sys.argv[2:]:
    if path.endswith(".err"):
        continue
    d = {}
    for line in open(path):
        if line.startswith("{"):
            s = json.loads(line)
            d[(s["name"], s["clients"])] = s
    if d:
        runs.append(d)
if not runs:
    sys.exit("bench-peers: no run produced figures")

names = ["direct", "reverse_proxy", "stdio_floor", "wasmgate_http", "wasmgate_stdio", "supergateway", "mcp-proxy"]
clients = sorted({c for d in runs for (_, c) in d})

def med(name, c, field):
    xs = [d[(name, c)].get(field, 0) for d in runs if (name, c) in d]
    return statistics.median(xs) if xs else float("nan")

def ratio(f, c):
    """The median over the runs of f(run, c), skipping runs that lack a target."""
    xs = []
    for d in runs:
        try:
            xs.append(f(d, c))
        except (KeyError, ZeroDivisionError):
            pass
    return statistics.median(xs) if xs else float("nan")

print(f"medians of {len(runs)} runs (server CPU: the proxy, what it started and the upstream, per call):")
print(f"  {'target':15} {'clients':>7} {'calls/s':>10} {'p50 ms':>8} {'p99 ms':>8} {'CPU µs/call':>12}")
for c in clients:
    for n in names:
        if not any((n, c) in d for d in runs):
            continue
        print(f"  {n:15} {c:>7} {med(n, c, 'calls_per_s'):>10,.0f} {med(n, c, 'p50_ms'):>8.3f} {med(n, c, 'p99_ms'):>8.3f}"
              f" {med(n, c, 'server_cpu_us_per_call'):>12.1f}")

rate = lambda d, n, c: d[(n, c)]["calls_per_s"]
p50 = lambda d, n, c: d[(n, c)]["p50_ms"] * 1000
best_peer = lambda d, c: max(rate(d, p, c) for p in ("supergateway", "mcp-proxy") if (p, c) in d)
verdict = lambda ok: "met" if ok else "NOT met"
print()
print("ratios (each within a run, the median over the runs):")
for c in clients:
    r = ratio(lambda d, c: rate(d, "wasmgate_stdio", c) / best_peer(d, c), c)
    line = f"  {c:>2} clients: wasmgate_stdio / best npm peer        {r:6.2f}x"
    if c == 16:
        line += f"  (target >= 5x: {verdict(r >= 5)})"
    print(line)
    for p in ("supergateway", "mcp-proxy"):
        print(f"              wasmgate_stdio / {p:20} {ratio(lambda d, c: rate(d, 'wasmgate_stdio', c) / rate(d, p, c), c):6.2f}x")
    r = ratio(lambda d, c: rate(d, "stdio_floor", c) / best_peer(d, c), c)
    line = f"              stdio_floor / best npm peer           {r:6.2f}x"
    if c == 16:
        line += "  (the most any stdio proxy reaches here)"
    print(line)
    r = ratio(lambda d, c: rate(d, "wasmgate_stdio", c) / rate(d, "stdio_floor", c), c)
    print(f"              wasmgate_stdio / stdio_floor          {r:6.2f}x")
    r = ratio(lambda d, c: rate(d, "wasmgate_stdio", c) / rate(d, "direct", c), c)
    line = f"              wasmgate_stdio / direct over HTTP     {r:6.2f}x"
    if c == 16:
        line += f"  (target >= 0.5x: {verdict(r >= 0.5)})"
    print(line)
    r = ratio(lambda d, c: rate(d, "wasmgate_http", c) / rate(d, "reverse_proxy", c), c)
    line = f"              wasmgate_http / reverse_proxy         {r:6.2f}x"
    if c == 16:
        line += f"  (target >= 1.0x: {verdict(r >= 1.0)})"
    print(line)
    r = ratio(lambda d, c: p50(d, "wasmgate_http", c) - p50(d, "reverse_proxy", c), c)
    line = f"              wasmgate_http p50 - reverse_proxy p50 {r:+6.0f} µs"
    if c == 1:
        line += f" (target <= +50 µs: {verdict(r <= 50)})"
    print(line)
PY
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
