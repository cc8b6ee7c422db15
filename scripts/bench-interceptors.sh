#!/usr/bin/env bash
# make bench-interceptors: what an interceptor (interceptors:, issue 44)
# costs on the call path.
#
# 1. The same load as `make bench` (mcpbench, tools/call calculate over
#    Streamable HTTP sessions) against three gateways of the same plugins,
#    taking turns of 200 ms (mcpbench -target), at 1 and 16 clients:
#      none      no interceptors
#      go-pass   the Go example that lets everything through
#                (examples/interceptors/pass), in both phases
#      wat-noop  the WebAssembly-text example that does the same
#                (examples/interceptors/noop.wat), in both phases
#    calls/s and the gateway's CPU time per call against none, round by
#    round (median). The issue's target: <= 15 µs of CPU per call added
#    at 16 clients.
#    Then, the same way, say_hello (the greeter example) answering a
#    text of about 10 KiB with an address, an IBAN and a card number in
#    each kilobyte, against three more gateways:
#      10k-none   no interceptors
#      go-redact  the redact example in Go (examples/interceptors/redact)
#      rs-redact  the same in Rust (examples/interceptors/redact-rs)
#    The issue's target: <= 100 µs added, each language on its own row.
# 2. In process (go test -bench BenchmarkCallToolInterceptors): the same
#    three, and the 10 KiB result without and with the redact example, in
#    Go and in Rust. The issue's target: <= 100 µs added.
#
#   scripts/bench-interceptors.sh [duration]   (make bench-interceptors BENCH_DURATION=5s)
#
# ROUNDS (3) and CLIENTS (1,16) shape part 1; COUNT (5) and BENCHTIME
# (1s) part 2: ROUNDS=1 CLIENTS=16 COUNT=1 BENCHTIME=10x and a duration
# of 1s check that it runs.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-1,16}
COUNT=${COUNT:-5}
BENCHTIME=${BENCHTIME:-1s}
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
work=$(mktemp -d)
pid=
declare -A http admin gw
trap 'for p in $pid "${gw[@]}"; do kill $p 2>/dev/null || true; wait $p 2>/dev/null || true; done; rm -rf "$work"' EXIT

. scripts/benchlib.sh
root=$(pwd)
for f in examples/plugins/calculator.wasm examples/plugins/greeter.wasm examples/interceptors/pass.wasm examples/interceptors/noop.wasm \
  examples/interceptors/redact.wasm examples/interceptors/redact-rs.wasm; do
  [ -f "$f" ] || { echo "bench-interceptors: $f is not built (make plugins)" >&2; exit 1; }
done
base() { # base HTTP-PORT ADMIN-PORT [PLUGIN]
  cat <<YAML
server:
  cache_dir: $work/cache
  log: {level: warn}
transports:
  http: {listen: 127.0.0.1:$1}
admin:
  listen: 127.0.0.1:$2
plugins:
  - {name: ${3:-calculator}, path: $root/examples/plugins/${3:-calculator}.wasm}
YAML
}
for c in none go-pass wat-noop 10k-none go-redact rs-redact; do http[$c]=$(port); admin[$c]=$(port); done
base ${http[none]} ${admin[none]} >"$work/none.yaml"
{ base ${http[go-pass]} ${admin[go-pass]}; printf 'interceptors:\n  - {name: pass, path: %s, phase: both}\n' "$root/examples/interceptors/pass.wasm"; } >"$work/go-pass.yaml"
{ base ${http[wat-noop]} ${admin[wat-noop]}; printf 'interceptors:\n  - {name: noop, path: %s, phase: both}\n' "$root/examples/interceptors/noop.wasm"; } >"$work/wat-noop.yaml"
base ${http[10k-none]} ${admin[10k-none]} greeter >"$work/10k-none.yaml"
for c in go-redact rs-redact; do
  m=redact; [[ $c == rs-redact ]] && m=redact-rs
  { base ${http[$c]} ${admin[$c]} greeter; printf 'interceptors:\n  - {name: redact, path: %s, on: [tools/call], phase: response}\n' "$root/examples/interceptors/$m.wasm"; } >"$work/$c.yaml"
done
# say_hello's argument: the text of gateway's BenchmarkCallToolInterceptors/10KiB-*
big_args=$(python3 -c '
import json
big = ""
while len(big) < 10 << 10:
    big += "Contact jane.doe@example.com, IBAN DE89 3704 0044 0532 0130 00, card 4111 1111 1111 1111. "
    big += "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 14
print(json.dumps({"name": big}))')

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
ADMIN=${admin[go-pass]}; start "$work/go-pass.yaml"; stop # fill the compilation cache
for c in go-redact rs-redact; do ADMIN=${admin[$c]}; start "$work/$c.yaml"; stop; done
secs=${DURATION%s}
measured=$(( ROUNDS * ${secs%.*} ))s
target() { printf '{"name":"%s","url":"http://127.0.0.1:%s/mcp","pid":%s}' "$1" "${http[$1]}" "${gw[$1]}"; }

# interleave WANT-µs GATEWAY... -- MCPBENCH-ARGS...: starts the gateways,
# runs them in turns (the first is the baseline) and prints each of the
# others against it, then stops them.
interleave() {
  local want=$1; shift
  local names=() c
  while [[ $1 != -- ]]; do names+=("$1"); shift; done
  shift
  for c in "${names[@]}"; do
    ADMIN=${admin[$c]}; start "$work/$c.yaml"; gw[$c]=$pid
  done
  pid=
  local targets=()
  for c in "${names[@]}"; do targets+=(-target "$(target "$c")"); done
  $BENCH "$@" -clients "$CLIENTS" -duration "$measured" -warmup 1s -json "${targets[@]}" >"$work/out" || {
    cat "$work/out"; echo "bench-interceptors: mcpbench failed" >&2; exit 1; }
  grep -v '^{' "$work/out" | sed 's/^/  /'
  python3 - <(grep '^{' "$work/out") "$want" "${names[@]}" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
want, base, names = float(sys.argv[2]), sys.argv[3], sys.argv[4:]
by = {(r["name"], r["clients"]): r for r in rows}
print(f"each against {base} in the same round, the median over the rounds:")
for clients in sorted({r["clients"] for r in rows}):
    n = by.get((base, clients))
    for name in names:
        r = by.get((name, clients))
        if not r or not n or "rate_ratio" not in r:
            continue
        added = r.get("server_cpu_us_per_call", 0) - n.get("server_cpu_us_per_call", 0)
        verdict = ""
        if clients == 16:
            verdict = f" (issue 44's target <= {want:.0f} µs: {'met' if added <= want else 'NOT met'})"
        print(f"  {clients:>2} clients, {name:9}: calls/s {r['rate_ratio']:.3f}x, p50 {r['p50_ratio']:.3f}x ({r['p50_over_us']:+.0f} µs), "
              f"gateway CPU per call {n.get('server_cpu_us_per_call', 0):.1f} -> {r.get('server_cpu_us_per_call', 0):.1f} µs ({added:+.1f} µs){verdict}")
PY
  for c in "${names[@]}"; do kill ${gw[$c]} 2>/dev/null || true; wait ${gw[$c]} 2>/dev/null || true; done
  gw=()
}

echo "1. tools/call calculate, the three gateways in turns of 200 ms, ${measured} of each one's own time per client count:"
interleave 15 none go-pass wat-noop -- -tool calculate -args '{"operation":"add","a":5,"b":3}' -expect 8
echo "   tools/call say_hello answering about 10 KiB of text with personal data, the same way:"
interleave 100 10k-none go-redact rs-redact -- -tool say_hello -args "$big_args"
echo
echo "2. in process (go test -bench CallToolInterceptors, median of $COUNT):"
go test -run '^$' -bench 'CallToolInterceptors' -count "$COUNT" -benchtime "$BENCHTIME" ./gateway 2>/dev/null | awk '/^BenchmarkCallToolInterceptors\//{split($1, a, "/"); n = a[2]; sub(/-[0-9]+$/, "", n); v[n] = v[n] " " $3} END{for (k in v) print k, v[k]}' |
  python3 -c '
import sys, statistics
d = {}
for l in sys.stdin:
    p = l.split(); d[p[0]] = statistics.median(float(x) for x in p[1:]) / 1000
for k, base in (("go-pass", "off"), ("wat-noop", "off"), ("10KiB-redact", "10KiB-off"), ("10KiB-redact-rs", "10KiB-off")):
    if k in d and base in d:
        want = 100 if k.startswith("10KiB") else 15
        verdict = "met" if d[k] - d[base] <= want else "NOT met"
        print(f"  {k:15s} {d[k]:9.1f} µs per call against {d[base]:8.1f} ({d[k] - d[base]:+.1f} µs; issue 44: <= {want} µs: {verdict})")
'
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
