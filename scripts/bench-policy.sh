#!/usr/bin/env bash
# make bench-policy: what identity, policy, rate limiting and the audit log
# cost on the call path. The same load as `make bench` (mcpbench,
# tools/call calculate over Streamable HTTP sessions) against three
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
# The three gateways run at once and take turns (mcpbench -target: each
# one's clients call for a 200 ms slice while the others wait, the order
# rotating every round, for ROUNDS x DURATION of each one's own time, at
# 1 and 16 clients), so that a machine that speeds up or slows down over
# seconds slows them alike; policy and token are each compared with none
# round by round (the median over the rounds): calls/s, p50 and the
# gateway's own CPU time per call. Loopback only. Last, in-process, what
# authenticating a request with a JWT access token costs: its first
# request (the signature and claims checked) and later ones with the same
# token (remembered).
#
#   scripts/bench-policy.sh [duration]     (make bench-policy BENCH_DURATION=5s)
#   ROUNDS=3 CLIENTS=1,16 scripts/bench-policy.sh 10s
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-1,16}
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && { kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; }; rm -rf "$work"' EXIT

. scripts/benchlib.sh
root=$(pwd)
BENCH_TOKEN=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export BENCH_TOKEN
other=$(head -c 32 /dev/urandom | sha256sum | cut -d' ' -f1)

base() { # base HTTP-PORT ADMIN-PORT
  cat <<YAML
server:
  cache_dir: $work/cache
  log: {level: warn}
transports:
  http: {listen: 127.0.0.1:$1}
admin:
  listen: 127.0.0.1:$2
plugins:
  - {name: calculator, path: $root/examples/plugins/calculator.wasm}
  - {name: storage, path: $root/examples/plugins/storage.wasm}
  - {name: greeter, path: $root/examples/plugins/greeter.wasm}
YAML
}
declare -A http admin gw
for c in none policy token; do http[$c]=$(port); admin[$c]=$(port); done
base ${http[none]} ${admin[none]} >"$work/none.yaml"
base ${http[token]} ${admin[token]} >"$work/token.yaml"
# audit.file in a folder of its own, as under systemd (/var/log/wasmgate)
mkdir -p "$work/log"
{
  base ${http[policy]} ${admin[policy]}
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
  file: $work/log/audit.log
YAML
} >"$work/policy.yaml"

ADMIN=${admin[none]}; start "$work/none.yaml"; stop # fill the compilation cache
for c in none policy token; do
  ADMIN=${admin[$c]}; start "$work/$c.yaml"; gw[$c]=$pid
done
pid=
trap 'for p in "${gw[@]}"; do kill $p 2>/dev/null || true; wait $p 2>/dev/null || true; done; rm -rf "$work"' EXIT

secs=${DURATION%s}
measured=$(( ROUNDS * ${secs%.*} ))s
target() { # target CONFIG
  local token=
  [ "$1" != none ] && token=',"token_env":"BENCH_TOKEN"'
  printf '{"name":"%s","url":"http://127.0.0.1:%s/mcp","pid":%s%s}' "$1" "${http[$1]}" "${gw[$1]}" "$token"
}
echo "tools/call calculate, the three gateways in turns of 200 ms, ${measured} of each one's own time per client count (ROUNDS x DURATION):"
$BENCH -tool calculate -args '{"operation":"add","a":5,"b":3}' -expect 8 -clients "$CLIENTS" \
  -duration "$measured" -warmup 1s -json \
  -target "$(target none)" -target "$(target policy)" -target "$(target token)" >"$work/out" || {
  cat "$work/out"; echo "bench-policy: mcpbench failed" >&2; exit 1; }
grep -v '^{' "$work/out" | sed 's/^/  /'
echo "audit lines written by policy: $(wc -l <"$work/log/audit.log")"

python3 - <(grep '^{' "$work/out") <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {(r["name"], r["clients"]): r for r in rows}
print("each configuration's turn against none's in the same round, the median over the rounds:")
for clients in sorted({r["clients"] for r in rows}):
    for name in ("policy", "token"):
        r = by.get((name, clients))
        if not r or "rate_ratio" not in r:
            continue
        print(f"  {clients:>2} clients, {name:6}: calls/s {r['rate_ratio']:.3f}x (cost {100 * (1 - r['rate_ratio']):.1f}%, IQR {r['rate_ratio_iqr'][0]:.3f}-{r['rate_ratio_iqr'][1]:.3f}), "
              f"p50 {r['p50_ratio']:.3f}x ({r['p50_over_us']:+.0f} µs), gateway CPU per call {r.get('cpu_ratio', 0):.3f}x "
              f"({by[('none', clients)].get('server_cpu_us_per_call', 0):.1f} -> {r.get('server_cpu_us_per_call', 0):.1f} µs)")
p16, p1 = by.get(("policy", 16)), by.get(("policy", 1))
print("issue 22's target, with policy, a rate limit and an audit file at most 5% below without:")
if p16:
    print(f"  calls/s at 16 clients: {p16['rate_ratio']:.3f}x ({'met' if p16['rate_ratio'] >= 0.95 else 'NOT met'})")
if p1:
    print(f"  p50 at 1 client: {p1['p50_ratio']:.3f}x ({'met' if p1['p50_ratio'] <= 1.05 else 'NOT met'})")
PY

echo
echo "in-process cost of authenticating one request (go test -bench):"
go test -run '^$' -bench 'BenchmarkAuthenticateJWT' -benchtime 1s ./auth |
  awk '/^BenchmarkAuthenticateJWT\//{split($1, n, "/"); sub(/-[0-9]+$/, "", n[3]);
    printf "  JWT %s, %s request with the token: %.2f µs\n", n[2], n[3] == "first" ? "first" : "later", $3 / 1000}'
