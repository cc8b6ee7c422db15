#!/usr/bin/env bash
# make bench-pair: the comparisons of make bench, bench-tracing and
# bench-policy made side by side instead of one after the other.
#
# The other benchmarks give each server the whole machine in turn. On a
# virtual machine whose speed drifts from one minute to the next (the
# same gateway, the same config: 45 to 70 µs of CPU per call a few
# minutes apart), a phase-to-phase ratio moves by more than the
# differences it is meant to show. Here the two servers of a pair run at
# the same time, each driven by its own mcpbench with half the clients
# (CLIENTS, default 16, split in two), so both see the same machine: the
# ratio of their throughputs and of their CPU time per call is steady to
# a few percent. It answers "which costs more per call, and by how
# much", not "how fast is each alone": the two also share the caches,
# which penalizes the one with the smaller working set (mcp-go's native
# handler) more than a run of its own would.
#
# Pairs (ROUNDS rounds of DURATION each, default 5 x 4s):
#   calculator | native   the Go calculator example against mcp-go's own
#                         server with a native handler (mcpbench -serve)
#   lean | native         the WebAssembly-text add tool against the same
#   traced | off          calculate with tracing (sample_ratio: 1, to a
#                         local sink) against the same gateway without
#   policy | none         calculate with bench-policy's identity, policy,
#                         rate limits and audit file against without
#
#   scripts/bench-pair.sh [duration]   (make bench-pair BENCH_DURATION=4s)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-4s}
ROUNDS=${ROUNDS:-5}
CLIENTS=${CLIENTS:-16}
HALF=$(( CLIENTS / 2 > 0 ? CLIENTS / 2 : 1 ))
BIN=./bin/wasmgate
BENCH=./bin/mcpbench
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

. scripts/benchlib.sh
root=$(pwd)
[[ -f testdata/plugins/lean.wasm ]] || {
  echo "bench-pair: testdata/plugins/lean.wasm is needed (make plugins, with wabt's wat2wasm installed)" >&2
  exit 1
}
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
BENCH_TOKEN=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export BENCH_TOKEN
other=$(head -c 32 /dev/urandom | sha256sum | cut -d' ' -f1)
NATIVE=$(port); SINK=$(port)

$BENCH -serve 127.0.0.1:$NATIVE >"$work/native.log" 2>&1 &
native=$!; pids+=($native)
wait_serving $native "$work/native.log"
$BENCH -otlp-sink 127.0.0.1:$SINK >"$work/sink.log" 2>&1 &
sink=$!; pids+=($sink)
wait_serving $sink "$work/sink.log"

# gateway NAME EXTRA-YAML writes $work/NAME.yaml (calculator and lean on
# free ports of its own), starts it, and sets gw_pid and gw_url.
gateway() {
  local http admin
  http=$(port); admin=$(port)
  cat >"$work/$1.yaml" <<YAML
server:
  cache_dir: $work/cache-$1
  log: {level: warn}
transports:
  http: {listen: 127.0.0.1:$http}
admin:
  listen: 127.0.0.1:$admin
plugins:
  - {name: calculator, path: $root/examples/plugins/calculator.wasm}
  - {name: lean, path: $root/testdata/plugins/lean.wasm}
$2
YAML
  $BIN serve --config "$work/$1.yaml" >/dev/null 2>>"$work/$1.log" &
  gw_pid=$!; pids+=($gw_pid)
  until curl -sf "http://127.0.0.1:$admin/readyz" >/dev/null 2>&1; do
    kill -0 $gw_pid 2>/dev/null || { cat "$work/$1.log"; exit 1; }
    sleep 0.01
  done
  gw_url="http://127.0.0.1:$http/mcp"
}

gateway plain ""
plain_pid=$gw_pid plain_url=$gw_url
gateway traced "tracing:
  endpoint: http://127.0.0.1:$SINK
  sample_ratio: 1"
traced_pid=$gw_pid traced_url=$gw_url
gateway policy "auth:
  principals:
    - {name: ops, token_sha256: $other}
    - {name: bench, token_env: BENCH_TOKEN, groups: [load]}
policy:
  default: deny
  rate_limit: {rate: 1000000/s}
  rules:
    - principals: [ops]
      allow: {tools: [\"*\"], resources: [\"*\"], prompts: [\"*\"]}
    - principals: [group:load]
      allow: {tools: [calculate, add]}
      when: 'transport == \"http\" && args.a < 1000'
      rate_limit: {rate: 1000000/s, burst: 1000000}
    - principals: [\"*\"]
      deny: {tools: [\"set-*\"]}
audit:
  file: $work/audit.log"
policy_pid=$gw_pid policy_url=$gw_url

CALC='{"operation":"add","a":5,"b":3}'
ADD='{"a":5,"b":3}'
status=0
# drive OUT URL TOOL ARGS PID [flags...]: one side of a pair.
drive() {
  local out=$1 url=$2 tool=$3 args=$4 pid=$5
  shift 5
  $BENCH -url "$url" -tool "$tool" -args "$args" -expect 8 -clients $HALF -duration "$DURATION" \
    -warmup 1s -cpu-pid "$pid" -json "$@" >"$out" 2>&1
}
# pair NAME A-LABEL A-URL A-TOOL A-ARGS A-PID A-TOKEN B-LABEL B-URL B-TOOL B-ARGS B-PID
pair() {
  local name=$1 a=$2 aurl=$3 atool=$4 aargs=$5 apid=$6 atok=$7 b=$8 burl=$9 btool=${10} bargs=${11} bpid=${12}
  local flags=()
  [[ $atok == token ]] && flags=(-token-env BENCH_TOKEN)
  for r in $(seq 1 "$ROUNDS"); do
    drive "$work/a" "$aurl" "$atool" "$aargs" "$apid" "${flags[@]}" &
    local ap=$!
    drive "$work/b" "$burl" "$btool" "$bargs" "$bpid" &
    local bp=$!
    wait $ap || { status=1; cat "$work/a"; }
    wait $bp || { status=1; cat "$work/b"; }
    python3 - "$name" "$r" "$a" "$b" "$work/a" "$work/b" <<'PY' | tee -a "$work/results"
import json, sys
name, r, a, b = sys.argv[1:5]
sa, sb = (json.loads(open(p).read().strip().splitlines()[-1]) for p in sys.argv[5:7])
print(json.dumps({"pair": name, "round": int(r), "a": a, "b": b,
                  "a_calls_per_s": sa["calls_per_s"], "b_calls_per_s": sb["calls_per_s"],
                  "a_cpu_us": sa.get("server_cpu_us_per_call", 0), "b_cpu_us": sb.get("server_cpu_us_per_call", 0),
                  "failures": sa["failures"] + sb["failures"]}))
PY
  done
}

echo "pairs side by side, $HALF clients each, ${DURATION} per round, $ROUNDS rounds:"
pair "calculator | native" calculator "$plain_url" calculate "$CALC" $plain_pid - native "http://127.0.0.1:$NATIVE/mcp" calculate "$CALC" $native
pair "lean | native" lean "$plain_url" add "$ADD" $plain_pid - native "http://127.0.0.1:$NATIVE/mcp" calculate "$CALC" $native
pair "traced | off" traced "$traced_url" calculate "$CALC" $traced_pid - off "$plain_url" calculate "$CALC" $plain_pid
pair "policy | none" policy "$policy_url" calculate "$CALC" $policy_pid token none "$plain_url" calculate "$CALC" $plain_pid

echo
echo "medians of the rounds (A | B: A's throughput and CPU per call against B's, each round against itself):"
python3 - "$work/results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for name in dict.fromkeys(r["pair"] for r in rows):
    rs = [r for r in rows if r["pair"] == name]
    tr = statistics.median(r["a_calls_per_s"] / r["b_calls_per_s"] for r in rs)
    ca = statistics.median(r["a_cpu_us"] for r in rs)
    cb = statistics.median(r["b_cpu_us"] for r in rs)
    cr = statistics.median(r["a_cpu_us"] / r["b_cpu_us"] for r in rs if r["b_cpu_us"])
    lo = min(r["a_calls_per_s"] / r["b_calls_per_s"] for r in rs)
    hi = max(r["a_calls_per_s"] / r["b_calls_per_s"] for r in rs)
    fails = sum(r["failures"] for r in rs)
    print(f"  {name:22} calls/s {tr:.2f}x (rounds {lo:.2f}-{hi:.2f}); CPU per call {ca:.1f} µs | {cb:.1f} µs = {cr:.2f}x; failures {fails}")
PY
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
