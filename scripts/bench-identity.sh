#!/usr/bin/env bash
# make bench-identity (also run by make bench): what reaching an HTTP
# upstream as each caller costs (issue 42, auth.token_exchange).
#
# Fixtures (cmd/identitybench -serve): a real OpenID provider
# (internal/oauthtest, zitadel's op) knowing 16 users, one access token
# each for the gateway's resource (the 16 callers); the upstream, mcp-go
# with mcpbench's native calculate tool, which refuses a tools/call
# without a bearer but does not verify it (the static bearer and the exchanged
# JWTs cost it the same); and the provider's token endpoint behind a
# proxy that answers expires_in 1, so that the gateway keeps none of the
# tokens it gets there. One gateway authenticates the callers with
# auth.jwt against the provider and has three upstreams on that server:
#   static    auth.bearer_env: one static bearer for every caller
#   exchange  auth.token_exchange at the provider: each caller's token
#             exchanged once, then served from the cache
#   nocache   auth.token_exchange at the proxy: an exchange on every call
#             (a cache miss each time, on the caller's open session)
# Every mcpbench client is one of the 16 callers (-token-file).
#
# 1. Cached against static, at CLIENTS (default 16) clients, the two in
#    turns of 200 ms for ROUNDS x DURATION of each one's own time
#    (mcpbench -target): calls/s, p50, p99, and the ratio of each round
#    against the same round's static (the median; the bar: at least 0.95).
#    Then the provider's token exchanges, which must be one per distinct
#    caller, and the upstream must never have seen a caller's own token.
# 2. The cache miss, at 1 client, ROUNDS times: nocache against exchange
#    in turns (DURATION each), then RTT_N exchanges straight at the
#    proxy's token endpoint from another process, one after another
#    (identitybench -rtt): what a miss adds to a call's p50 against one
#    token endpoint round trip's p50 (the bar: one round trip, no more),
#    and the proxy's exchanges against the nocache calls (exactly 1.00).
#
# Loopback only; stops by itself. Read the ratios, not the rates: the
# gateway, the fixtures and the load generator share the machine's cores.
#
#   scripts/bench-identity.sh [duration]     (make bench-identity BENCH_DURATION=5s)
#   ROUNDS=3 CLIENTS=1,16 RTT_N=300 scripts/bench-identity.sh 10s
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-16}
RTT_N=${RTT_N:-300}
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
IDB=./bin/identitybench
work=$(mktemp -d)
pid=
fixtures=
cleanup() {
  for p in $pid $fixtures; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

. scripts/benchlib.sh
HTTP=$(port); ADMIN=$(port)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

$IDB -serve "$work" >"$work/fixtures.log" 2>&1 &
fixtures=$!
wait_serving $fixtures "$work/fixtures.log"
fx() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$work/fixtures.json" "$1"; }
STATS=$(fx stats_url)
NOCACHE_URL=$(fx nocache_token_url)
stats() { curl -sf "$STATS"; }
BENCH_UPSTREAM_TOKEN=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
IDP_SECRET=$(fx client_secret)
export BENCH_UPSTREAM_TOKEN IDP_SECRET

exchange() { # exchange TOKEN-URL
  cat <<YAML
      token_exchange:
        token_url: $1
        client_id: $(fx client_id)
        client_secret_env: IDP_SECRET
        audience: https://upstream.bench
YAML
}
cat >"$work/gateway.yaml" <<YAML
server:
  cache_dir: $work/cache
  log: {level: warn}
transports:
  http: {listen: 127.0.0.1:$HTTP}
admin:
  listen: 127.0.0.1:$ADMIN
auth:
  jwt:
    issuer: $(fx issuer)
    audience: $(fx audience)
    jwks_url: $(fx jwks_url)
upstreams:
  - name: static
    url: $(fx upstream_url)
    prefix: static
    limits: {concurrency: 64}
    auth: {bearer_env: BENCH_UPSTREAM_TOKEN}
  - name: exchange
    url: $(fx upstream_url)
    prefix: exchange
    limits: {concurrency: 64}
    auth:
$(exchange "$(fx token_url)")
  - name: nocache
    url: $(fx upstream_url)
    prefix: nocache
    limits: {concurrency: 64}
    auth:
$(exchange "$NOCACHE_URL")
YAML
start "$work/gateway.yaml"
GW="http://127.0.0.1:$HTTP/mcp"
target() { # target NAME
  printf '{"name":"%s","url":"%s","pid":%s,"tool":"%s_calculate","token_file":"%s"}' "$1" "$GW" "$pid" "$1" "$work/tokens"
}
identity_tokens() { # identity_tokens UPSTREAM: calls of UPSTREAM that got the caller's token
  curl -s "http://127.0.0.1:$ADMIN/metrics" | awk -v u="upstream=\"$1\"" '/^wasmgate_upstream_identity_tokens_total/ && index($0, u) {n += $NF} END{print n + 0}'
}
ARGS=(-args '{"operation":"add","a":5,"b":3}' -expect 8 -json)
status=0

secs=${DURATION%s}
measured=$(( ROUNDS * ${secs%.*} ))s
echo
echo "1. tools/call through the gateway to an HTTP upstream, static bearer against each caller's"
echo "   exchanged token (cached), in turns of 200 ms, ${measured} of each one's own time per client count:"
$BENCH "${ARGS[@]}" -clients "$CLIENTS" -duration "$measured" -warmup 1s \
  -target "$(target static)" -target "$(target exchange)" >"$work/cached.out" || status=$?
grep -v '^{' "$work/cached.out" | sed 's/^/  /'
stats >"$work/stats1.json"
most=$(tr , '\n' <<<"$CLIENTS" | sort -n | tail -1)
callers=$(( most < 16 ? most : 16 )) # client i is caller i modulo 16
python3 - "$work/cached.out" "$work/stats1.json" "$callers" "$(identity_tokens exchange)" <<'PY' || status=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
st = json.load(open(sys.argv[2]))
callers, served = int(sys.argv[3]), int(sys.argv[4])
ok = True
for r in rows:
    if r["name"] != "exchange" or "rate_ratio" not in r:
        continue
    s = next(x for x in rows if x["name"] == "static" and x["clients"] == r["clients"])
    ratio = r["rate_ratio"]
    print(f"  {r['clients']:2} clients: static {s['calls_per_s']:,.0f}/s p50 {s['p50_ms']:.3f} ms p99 {s['p99_ms']:.3f} ms;"
          f" exchange {r['calls_per_s']:,.0f}/s p50 {r['p50_ms']:.3f} ms p99 {r['p99_ms']:.3f} ms")
    print(f"             exchange/static calls/s {ratio:.3f}x (IQR {r['rate_ratio_iqr'][0]:.3f}-{r['rate_ratio_iqr'][1]:.3f}),"
          f" p50 {r['p50_over_us']:+.0f} µs; {(1 - ratio) * 100:+.1f}% cost (bar: at most +5%, ratio at least 0.95)")
ex = st["token_exchanges"] - st["nocache_exchanges"]
print(f"  token exchanges at the provider: {ex} for {served:,} exchange calls of {callers} distinct callers"
      f" ({'one per caller' if ex == callers else 'want exactly one per caller'})")
print(f"  distinct bearers at the upstream: {st['upstream_bearers']} (the static one and one per caller);"
      f" callers' own tokens among them: {st['caller_tokens_upstream']}; requests refused for lack of one: {st['upstream_refused']}")
if ex != callers or st["caller_tokens_upstream"] != 0 or st["upstream_refused"] != 0:
    print("  bench-identity: FAILED a check above", file=sys.stderr)
    sys.exit(1)
PY

echo
echo "2. a cache miss: every call exchanging (nocache) against the cached token (exchange), 1 client,"
echo "   in turns of 200 ms for ${DURATION} each, then ${RTT_N} exchanges at the same token endpoint, ${ROUNDS} rounds:"
: >"$work/miss"
for r in $(seq 1 "$ROUNDS"); do
  before=$(stats); calls0=$(identity_tokens nocache)
  $BENCH "${ARGS[@]}" -clients 1 -duration "$DURATION" -warmup 400ms \
    -target "$(target exchange)" -target "$(target nocache)" >"$work/miss.out" || status=$?
  after=$(stats); calls1=$(identity_tokens nocache)
  $IDB -rtt "$NOCACHE_URL" -token-file "$work/tokens" -n "$RTT_N" -json >"$work/rtt.out" || status=$?
  grep -v '^{' "$work/miss.out" | sed "s/^/  round $r: /"
  grep -v '^{' "$work/rtt.out" | sed "s/^/  round $r: /"
  python3 - "$work/miss.out" "$work/rtt.out" "$before" "$after" "$calls0" "$calls1" >>"$work/miss" <<'PY'
import json, sys
rows = {r["name"]: r for r in (json.loads(l) for l in open(sys.argv[1]) if l.startswith("{"))}
rtt = next(json.loads(l) for l in open(sys.argv[2]) if l.startswith("{"))
b, a = json.loads(sys.argv[3]), json.loads(sys.argv[4])
ex = a["nocache_exchanges"] - b["nocache_exchanges"]
calls = int(sys.argv[6]) - int(sys.argv[5])
n = rows["nocache"]
print(n["p50_over_us"], rtt["p50_ms"] * 1000, rows["exchange"]["p50_ms"] * 1000, n["p50_ms"] * 1000, ex, calls)
PY
done
python3 - "$work/miss" <<'PY' || status=1
import statistics, sys
rows = [[float(v) for v in l.split()] for l in open(sys.argv[1])]
med = lambda i: statistics.median(r[i] for r in rows)
over, rtt = med(0), med(1)
ex, calls = sum(r[4] for r in rows), sum(r[5] for r in rows)
print(f"  medians of the rounds: cached p50 {med(2):.0f} µs, every call exchanging p50 {med(3):.0f} µs: a miss adds {over:+.0f} µs;"
      f" one token exchange round trip p50 {rtt:.0f} µs: {over / rtt:.2f} round trips (bar: 1, no more)")
print(f"  token exchanges through the nocache endpoint: {ex:.0f} for {calls:.0f} nocache calls = {ex / max(calls, 1):.2f} per call (want 1.00)")
if ex != calls:
    print("  bench-identity: FAILED: a cache miss made other than one exchange", file=sys.stderr)
    sys.exit(1)
PY
stop
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
