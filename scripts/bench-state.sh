#!/usr/bin/env bash
# make bench-state (and the last part of make bench): what state.backend
# redis costs on the call path, against backend memory, at 16 clients
# (mcpbench, tools/call over Streamable HTTP sessions) on one gateway and a
# redis-server of the script's own on loopback:
#
# Both configs run max_concurrent_calls 8 and the storage plugin at
# concurrency 8: with Redis, a key-value call holds its instance and its
# slot for a network round trip (see docs/scale-out.md).
#
#   calculate      a stateless tool: Redis is not asked (want >= 0.95x)
#   set-storage    the plugin KV store: one EVALSHA per call (want >= 0.7x)
#   rate-limited   calculate under policy.rate_limit (high enough never to
#                  refuse): one EVALSHA (redis_rate's GCRA) per call
#                  (want >= 0.8x)
#
# and the Redis commands each kind costs per call (total_commands_processed
# over the calls served, the monitor's ping and heartbeat included).
# Memory and redis alternate for ROUNDS rounds (default 1); a busy machine
# weighs on both alike, so read the ratios.
#
#   scripts/bench-state.sh [duration]     (make bench-state BENCH_DURATION=5s)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
ROUNDS=${ROUNDS:-1}
CLIENTS=${CLIENTS:-16}
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
command -v redis-server >/dev/null || { echo "bench-state: redis-server is not installed" >&2; exit 1; }
work=$(mktemp -d)
pid=
rpid=
trap 'for p in $pid $rpid; do kill $p 2>/dev/null || true; wait $p 2>/dev/null || true; done; rm -rf "$work"' EXIT

. scripts/benchlib.sh
HTTP=$(port); ADMIN=$(port); REDIS=$(port)
root=$(pwd)
redis-server --port "$REDIS" --bind 127.0.0.1 --save '' --appendonly no >"$work/redis.log" 2>&1 &
rpid=$!
until redis-cli -p "$REDIS" ping >/dev/null 2>&1; do sleep 0.05; done
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

config() { # config NAME BACKEND RATE-LIMITED
  {
    cat <<YAML
server:
  cache_dir: $work/cache
  log: {level: warn}
  max_concurrent_calls: 8
transports:
  http: {listen: 127.0.0.1:$HTTP}
admin:
  listen: 127.0.0.1:$ADMIN
plugins:
  - {name: calculator, path: $root/examples/plugins/calculator.wasm}
  - {name: storage, path: $root/examples/plugins/storage.wasm, limits: {concurrency: 8}}
YAML
    if [ "$2" = redis ]; then printf 'state:\n  backend: redis\n  redis: {url: "redis://127.0.0.1:%s/0"}\n' "$REDIS"; fi
    if [ "$3" = yes ]; then printf 'policy:\n  default: allow\n  rate_limit: {rate: 1000000/s, burst: 1000000}\n'; fi
  } >"$work/$1.yaml"
}
config memory memory no; config redis redis no; config memory-rl memory yes; config redis-rl redis yes

# rcmds: round trips to Redis so far: the commands clients sent (a script's
# own commands are not counted; the heartbeat's HSET and HDEL are left
# out, as those the scripts run are counted too), pings included.
rcmds() { redis-cli -p "$REDIS" info commandstats | tr -d '\r' |
  awk -F'[:=,]' '/^cmdstat_(evalsha|eval|hget|ping|hgetall|script)/{n += $3} END{print n + 0}'; }

# run KIND CONFIG ROUND
run() {
  local tool=calculate args='{"operation":"add","a":5,"b":3}' expect=(-expect 8) config=$2 n0 n1 r0 r1
  if [ "$1" = set-storage ]; then tool=set-storage; args='{"key":"k","value":"v"}'; expect=(-expect "Stored value at key: k"); fi
  start "$work/$config.yaml"
  n0=$(calls); r0=$(rcmds)
  $BENCH -url "http://127.0.0.1:$HTTP/mcp" -tool "$tool" -args "$args" "${expect[@]}" \
    -clients "$CLIENTS" -duration "$DURATION" -warmup 1s -json >"$work/out" || {
    cat "$work/out"; stop; echo "bench-state: mcpbench failed ($1 on $config)" >&2; exit 1; }
  n1=$(calls); r1=$(rcmds)
  sed -n 's/^{/{"kind":"'"$1"'","config":"'"${config%-rl}"'","round":'"$3"',"calls":'"$((n1 - n0))"',"redis_cmds":'"$((r1 - r0))"',/p' "$work/out" >>"$work/results"
  stop
}

start "$work/memory.yaml"; stop # fill the compilation cache
for r in $(seq 1 "$ROUNDS"); do
  for kind in calculate set-storage rate-limited; do
    m=memory; x=redis
    if [ "$kind" = rate-limited ]; then m=memory-rl; x=redis-rl; fi
    if (( r % 2 )); then run $kind $m "$r"; run $kind $x "$r"; else run $kind $x "$r"; run $kind $m "$r"; fi
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$work/results" <<'PY'
import json, sys
runs = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    runs.setdefault((r["kind"], r["config"]), []).append(r)
want = {"calculate": 0.95, "set-storage": 0.7, "rate-limited": 0.8}
for kind in ("calculate", "set-storage", "rate-limited"):
    m, x = (max(runs[(kind, c)], key=lambda r: r["calls_per_s"]) for c in ("memory", "redis"))
    ratio = x["calls_per_s"] / m["calls_per_s"]
    per = max(x["redis_cmds"], 0) / max(x["calls"], 1)
    print(f"{kind:13s} clients={x['clients']}: memory {m['calls_per_s']:.1f} calls/s (p50 {m['p50_ms']:.2f}ms p99 {m['p99_ms']:.2f}ms), "
          f"redis {x['calls_per_s']:.1f} calls/s (p50 {x['p50_ms']:.2f}ms p99 {x['p99_ms']:.2f}ms), ratio {ratio:.3f} "
          f"(want >= {want[kind]}), Redis commands per call {per:.2f}")
PY
