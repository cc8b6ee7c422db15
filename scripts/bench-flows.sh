#!/usr/bin/env bash
# make bench-flows: what flow control (flows:, issue 43) costs on the call
# path.
#
# 1. In memory: the same load as `make bench` (mcpbench, tools/call
#    calculate over Streamable HTTP sessions) against two gateways of the
#    same plugins, taking turns of 200 ms (mcpbench -target), at 1 and 16
#    clients:
#      none   no flows section
#      flows  a lethal-trifecta rule, and calculate labelled [private,
#             egress]: every call is one a rule could block (its session's
#             taint is read) and one that taints (its label is written):
#             the most flow control does for one call that runs
#    calls/s and the gateway's CPU time per call, flows against none round
#    by round (median). The issue's target: <= 2 µs of CPU per call added,
#    >= 0.97x calls/s at 16 clients.
# 2. On Redis (state.backend redis, a redis-server of the script's own):
#    one gateway, three tools of the same module called in turn, and the
#    round trips flow control made per call, from Redis's commandstats
#    (a taint write is one MULTI ... EXEC: HSET and PEXPIRE in one round
#    trip; a read one HGETALL):
#      calculate    no labels: neither blockable nor tainting (want 0)
#      t_calculate  labelled private: tainting (want 1 write)
#      b_calculate  labelled egress: blockable, not blocked (one read)
#
#   scripts/bench-flows.sh [duration]     (make bench-flows BENCH_DURATION=5s)
#   ROUNDS=3 CLIENTS=1,16 scripts/bench-flows.sh 10s
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-1,16}
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
command -v redis-server >/dev/null || { echo "bench-flows: redis-server is not installed" >&2; exit 1; }
work=$(mktemp -d)
pid=
rpid=
declare -A http admin gw
trap 'for p in $pid $rpid "${gw[@]}"; do kill $p 2>/dev/null || true; wait $p 2>/dev/null || true; done; rm -rf "$work"' EXIT

. scripts/benchlib.sh
root=$(pwd)
calc=$root/examples/plugins/calculator.wasm

base() { # base HTTP-PORT ADMIN-PORT
  cat <<YAML
server:
  cache_dir: $work/cache
  log: {level: warn}
transports:
  http: {listen: 127.0.0.1:$1}
admin:
  listen: 127.0.0.1:$2
YAML
}
rule='flows:
  rules:
    - {name: lethal-trifecta, after: [private, untrusted], block: [egress]}'
for c in none flows; do http[$c]=$(port); admin[$c]=$(port); done
{ base ${http[none]} ${admin[none]}; printf 'plugins:\n  - {name: calculator, path: %s}\n  - {name: other, path: %s, prefix: u}\n' "$calc" "$calc"; } >"$work/none.yaml"
{ base ${http[flows]} ${admin[flows]}
  printf 'plugins:\n  - {name: calculator, path: %s, labels: [private, egress]}\n  - {name: other, path: %s, prefix: u, labels: [untrusted]}\n' "$calc" "$calc"
  echo "$rule"; } >"$work/flows.yaml"

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
ADMIN=${admin[none]}; start "$work/none.yaml"; stop # fill the compilation cache
for c in none flows; do
  ADMIN=${admin[$c]}; start "$work/$c.yaml"; gw[$c]=$pid
done
pid=

secs=${DURATION%s}
measured=$(( ROUNDS * ${secs%.*} ))s
target() { printf '{"name":"%s","url":"http://127.0.0.1:%s/mcp","pid":%s}' "$1" "${http[$1]}" "${gw[$1]}"; }
echo "1. in memory: tools/call calculate, the two gateways in turns of 200 ms, ${measured} of each one's own time per client count:"
$BENCH -tool calculate -args '{"operation":"add","a":5,"b":3}' -expect 8 -clients "$CLIENTS" \
  -duration "$measured" -warmup 1s -json -target "$(target none)" -target "$(target flows)" >"$work/out" || {
  cat "$work/out"; echo "bench-flows: mcpbench failed" >&2; exit 1; }
grep -v '^{' "$work/out" | sed 's/^/  /'
python3 - <(grep '^{' "$work/out") <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {(r["name"], r["clients"]): r for r in rows}
print("flows against none in the same round, the median over the rounds:")
for clients in sorted({r["clients"] for r in rows}):
    r, n = by.get(("flows", clients)), by.get(("none", clients))
    if not r or "rate_ratio" not in r:
        continue
    added = r.get("server_cpu_us_per_call", 0) - n.get("server_cpu_us_per_call", 0)
    print(f"  {clients:>2} clients: calls/s {r['rate_ratio']:.3f}x (IQR {r['rate_ratio_iqr'][0]:.3f}-{r['rate_ratio_iqr'][1]:.3f}), "
          f"p50 {r['p50_ratio']:.3f}x ({r['p50_over_us']:+.0f} µs), gateway CPU per call {n.get('server_cpu_us_per_call', 0):.1f} -> "
          f"{r.get('server_cpu_us_per_call', 0):.1f} µs ({added:+.2f} µs)")
r, n = by.get(("flows", 16)), by.get(("none", 16))
if r and n:
    added = r.get("server_cpu_us_per_call", 0) - n.get("server_cpu_us_per_call", 0)
    print(f"issue 43's target at 16 clients: calls/s {r['rate_ratio']:.3f}x ({'met' if r['rate_ratio'] >= 0.97 else 'NOT met'}, want >= 0.97x); "
          f"CPU per call {added:+.2f} µs ({'met' if added <= 2 else 'NOT met'}, want <= 2 µs)")
PY
for p in "${gw[@]}"; do kill $p 2>/dev/null || true; wait $p 2>/dev/null || true; done
gw=()

echo
echo "2. on Redis: the round trips flow control makes per call"
REDIS=$(port); HTTP=$(port); ADMIN=$(port)
redis-server --port "$REDIS" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" 2>&1 &
rpid=$!
until redis-cli -p "$REDIS" ping >/dev/null 2>&1; do sleep 0.05; done
{ base $HTTP $ADMIN
  printf 'plugins:\n'
  printf '  - {name: plain, path: %s}\n' "$calc"
  printf '  - {name: tainting, path: %s, prefix: t, labels: [private]}\n' "$calc"
  printf '  - {name: blockable, path: %s, prefix: b, labels: [egress]}\n' "$calc"
  printf '  - {name: other, path: %s, prefix: u, labels: [untrusted]}\n' "$calc"
  printf 'state:\n  backend: redis\n  redis: {url: "redis://127.0.0.1:%s/0"}\n' "$REDIS"
  echo "$rule"; } >"$work/redis.yaml"
start "$work/redis.yaml"
stat() { redis-cli -p "$REDIS" info commandstats | tr -d '\r' | awk -F'[:=,]' -v c="cmdstat_$1" '$1 == c {print $3} END{}' | head -1; }
for tool in calculate t_calculate b_calculate; do
  m0=$(stat multi); h0=$(stat hgetall); n0=$(calls)
  $BENCH -url "http://127.0.0.1:$HTTP/mcp" -tool "$tool" -args '{"operation":"add","a":5,"b":3}' -expect 8 \
    -clients 16 -duration "$DURATION" -warmup 1s >"$work/out-$tool" || { cat "$work/out-$tool"; exit 1; }
  m1=$(stat multi); h1=$(stat hgetall); n1=$(calls)
  python3 -c "
import sys
tool, calls, w, r = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print(f'  {tool:12s} {calls} calls: {w / calls:.3f} taint writes (MULTI/EXEC) and {r / calls:.3f} reads (HGETALL) per call = {(w + r) / calls:.3f} round trips; ' + open(sys.argv[5]).read().strip().splitlines()[-1].strip())
" "$tool" "$((n1 - n0))" "$(( ${m1:-0} - ${m0:-0} ))" "$(( ${h1:-0} - ${h0:-0} ))" "$work/out-$tool"
done
stop
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
