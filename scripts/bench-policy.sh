#!/usr/bin/env bash
# make bench-policy: what identity, policy, rate limiting and the audit log
# cost on the call path. The same load as `make bench` (mcpbench,
# tools/call calculate over Streamable HTTP sessions) against two
# configurations of the same gateway and plugins:
#
#   none    no auth, no policy, no audit section (as `make bench`)
#   policy  a principal with a bearer token (SHA-256 compared with every
#           principal's), three rules (default deny, a group rule with a
#           CEL condition on the transport and the arguments and its own
#           rate limit, a deny rule for everyone), a gateway-wide rate
#           limit (both high enough never to refuse), and an audit line
#           per call to audit.file
#   token   none, with the load generator sending policy's bearer token
#           all the same (the gateway, without auth, does not read it):
#           what the token's bytes alone cost the HTTP exchange, apart
#           from what the gateway does with them
#
# The three alternate for ROUNDS rounds (default 2; the order rotates every
# round), each gateway freshly started, so that a busy machine weighs on
# both alike; each phase reports the best and the median round of each and
# the ratio policy/none. Throughput on a shared
# machine moves with everyone else's load, so the script also reports the
# gateway's own CPU time per call (user + system time of the process over
# the calls it served, warmups included), which other load disturbs much
# less. Loopback only. Last, in-process, what authenticating a request
# with a JWT access token costs: its first request (the signature and
# claims checked) and later ones with the same token (remembered).
#
#   scripts/bench-policy.sh [duration]     (make bench-policy BENCH_DURATION=5s)
#   ROUNDS=3 CLIENTS=1,16 scripts/bench-policy.sh 10s
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
ROUNDS=${ROUNDS:-2}
CLIENTS=${CLIENTS:-1,16}
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && { kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; }; rm -rf "$work"' EXIT

. scripts/benchlib.sh
HTTP=$(port); ADMIN=$(port)
root=$(pwd)
BENCH_TOKEN=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export BENCH_TOKEN
other=$(head -c 32 /dev/urandom | sha256sum | cut -d' ' -f1)

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
  - {name: storage, path: $root/examples/plugins/storage.wasm}
  - {name: greeter, path: $root/examples/plugins/greeter.wasm}
YAML
}
base >"$work/none.yaml"
cp "$work/none.yaml" "$work/token.yaml"
{
  base
  cat <<YAML
auth:
  principals:
    - {name: ops, token_sha256: $other}
    - {name: bench, token_env: BENCH_TOKEN, groups: [load]}
policy:
  default: deny
  rate_limit: {rate: 1000000/s}
  rules:
    - principals: [ops]
      allow: {tools: ["*"], resources: ["*"], prompts: ["*"]}
    - principals: [group:load]
      allow: {tools: [calculate, say_hello]}
      when: 'transport == "http" && args.a < 1000'
      rate_limit: {rate: 1000000/s, burst: 1000000}
    - principals: ["*"]
      deny: {tools: ["set-*"]}
audit:
  file: $work/audit.log
YAML
} >"$work/policy.yaml"


TICK=$(getconf CLK_TCK)

# run CONFIG ROUND: one gateway, one mcpbench run; appends its JSON lines
# (one per phase) to $work/results and its CPU per call to $work/cpu,
# tagged with the config.
run() {
  local token=() c0 c1 n0 n1
  [ "$1" != none ] && token=(-token-env BENCH_TOKEN)
  start "$work/$1.yaml"
  c0=$(cpu_ticks); n0=$(calls)
  $BENCH -url "http://127.0.0.1:$HTTP/mcp" -tool calculate -args '{"operation":"add","a":5,"b":3}' -expect 8 \
    -clients "$CLIENTS" -duration "$DURATION" -warmup 1s -json "${token[@]}" >"$work/out" || {
    cat "$work/out"; stop; echo "bench-policy: mcpbench failed ($1, round $2)" >&2; exit 1; }
  n1=$(calls); c1=$(cpu_ticks)
  sed -n 's/^{/{"config":"'"$1"'","round":'"$2"',/p' "$work/out" >>"$work/results"
  grep -v '^{' "$work/out" | sed "s/^/  $1 round $2: /"
  echo "$1 $(( (c1 - c0) * 1000000 / TICK )) $(( n1 - n0 ))" >>"$work/cpu"
  echo "  $1 round $2: gateway CPU $(( (c1 - c0) * 1000 / TICK )) ms for $(( n1 - n0 )) calls"
  stop
}

start "$work/none.yaml"; stop # fill the compilation cache
order=(none policy token)
for r in $(seq 1 "$ROUNDS"); do
  for i in 0 1 2; do run "${order[$(( (i + r - 1) % 3 ))]}" "$r"; done
done
audited=$(wc -l <"$work/audit.log")
echo "audit lines written in the policy rounds: $audited"

python3 - "$work/results" "$work/cpu" <<'PY'
import json, statistics, sys
cpu = {}
for line in open(sys.argv[2]):
    config, us, n = line.split()
    t = cpu.setdefault(config, [0, 0])
    t[0] += int(us); t[1] += int(n)
runs = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    runs.setdefault((r["clients"], r["config"]), []).append(r)
for c in sorted({k[0] for k in runs}):
    n, p = (max(runs[(c, x)], key=lambda r: r["calls_per_s"]) for x in ("none", "policy"))
    ratio = p["calls_per_s"] / n["calls_per_s"]
    print(f"clients={c}, best round: none {n['calls_per_s']:.1f} calls/s (p50 {n['p50_ms']:.2f}ms p99 {n['p99_ms']:.2f}ms), "
          f"policy {p['calls_per_s']:.1f} calls/s (p50 {p['p50_ms']:.2f}ms p99 {p['p99_ms']:.2f}ms), "
          f"ratio {ratio:.3f} (cost {100 * (1 - ratio):.1f}%)")
    mn, mp = (statistics.median(r["calls_per_s"] for r in runs[(c, x)]) for x in ("none", "policy"))
    print(f"clients={c}, median of {len(runs[(c, 'none')])} rounds: none {mn:.1f} calls/s, policy {mp:.1f} calls/s, "
          f"ratio {mp / mn:.3f} (cost {100 * (1 - mp / mn):.1f}%)")
    # Each round against its own none phase, then the median.
    by = {x: {r["round"]: r["calls_per_s"] for r in runs[(c, x)]} for x in ("none", "policy", "token")}
    rt = statistics.median(by["token"][k] / by["none"][k] for k in by["none"])
    rp = statistics.median(by["policy"][k] / by["none"][k] for k in by["none"])
    print(f"clients={c}, each round against its own none, median: policy {rp:.3f} (cost {100 * (1 - rp):.1f}%), "
          f"of which the token's bytes alone (token) {rt:.3f} (cost {100 * (1 - rt):.1f}%)")
n, p, t = (cpu[c][0] / cpu[c][1] for c in ("none", "policy", "token"))
print(f"gateway CPU per call, all rounds: none {n:.1f}us, token {t:.1f}us, policy {p:.1f}us, "
      f"ratio {p / n:.3f} (cost {100 * (p / n - 1):.1f}%)")
PY

echo
echo "in-process cost of authenticating one request (go test -bench):"
go test -run '^$' -bench 'BenchmarkAuthenticateJWT' -benchtime 1s ./auth |
  awk '/^BenchmarkAuthenticateJWT\//{split($1, n, "/"); sub(/-[0-9]+$/, "", n[3]);
    printf "  JWT %s, %s request with the token: %.2f µs\n", n[2], n[3] == "first" ? "first" : "later", $3 / 1000}'
