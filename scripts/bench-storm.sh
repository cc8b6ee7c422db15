#!/usr/bin/env bash
# make bench-storm: what a storm of config saves costs the calls being served
# (issue 21, item 9). 8 clients call the calculator's calculate over
# Streamable HTTP with sessions, for DURATION each, in three phases:
#
#   quiet    no save;
#   limits   about 9 saves a second, each changing greeter's timeout only
#            (the module is shared by consecutive snapshots);
#   restore  about 9 saves a second alternately removing greeter and
#            restoring it (a restore takes the compiled module back from
#            memory, since issue 21; before, it was compiled again from the
#            disk cache).
#
# Each phase prints calls/s, p50 and p99, the reloads it caused and their
# median duration (the "took" of the gateway's log lines); then the ratios
# to quiet. BIN and BENCH choose the binaries (to compare two
# builds); loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-5s}
BIN=${BIN:-./bin/wasmgate}
BENCH=${BENCH:-./bin/mcpbench}
SAVES_PER_S=${SAVES_PER_S:-9}
work=$(mktemp -d)
GATEWAY_LOG=${GATEWAY_LOG:-$work/gateway.log}
pid=
storm=
cleanup() {
  for p in $storm $pid; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

. scripts/benchlib.sh
HTTP=$(port); ADMIN=$(port)
root=$(pwd)
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs); $SAVES_PER_S saves/s, ${DURATION} per phase"

# config GREETER-LINE: writes gateway.yaml whole, then renames it into place
# (one save, as editors do).
config() {
  cat >"$work/next.yaml" <<YAML
server:
  cache_dir: $work/cache
  log: {level: ${LOG_LEVEL:-info}}
transports:
  http: {listen: 127.0.0.1:$HTTP}
admin:
  listen: 127.0.0.1:$ADMIN
plugins:
  - {name: calculator, path: $root/examples/plugins/calculator.wasm}
  - {name: storage, path: $root/examples/plugins/storage.wasm}
$1
YAML
  mv "$work/next.yaml" "$work/gateway.yaml"
}
greeter() { echo "  - {name: greeter, path: $root/examples/plugins/greeter.wasm, limits: {timeout: ${1}s}}"; }

config "$(greeter 5)"
$BIN serve --config "$work/gateway.yaml" >/dev/null 2>>"$GATEWAY_LOG" &
pid=$!
until curl -sf "http://127.0.0.1:$ADMIN/readyz" >/dev/null 2>&1; do
  kill -0 $pid 2>/dev/null || { cat "$work/gateway.log"; exit 1; }
  sleep 0.01
done

reloads() { curl -s "http://127.0.0.1:$ADMIN/metrics" | awk '/^wasmgate_config_reloads_total/{n += $2} END {print n + 0}'; }

# saves KIND: saves until killed; KIND limits or restore.
saves() {
  local i=0 gap
  gap=$(python3 -c "print(1 / $SAVES_PER_S)")
  while :; do
    i=$((i + 1))
    if [[ $1 == limits ]]; then
      config "$(greeter $((4 + i % 2)))"
    elif (( i % 2 )); then
      config ""
    else
      config "$(greeter 5)"
    fi
    sleep "$gap"
  done
}

status=0
results="$work/results"
: >"$results"
# took FROM-LINE: the median reload duration in the log after line FROM-LINE.
took() {
  tail -n +"$(( $1 + 1 ))" "$GATEWAY_LOG" | python3 -c '
import re, statistics, sys
ms = []
for l in sys.stdin:
    m = re.search(r"configuration reloaded.* took=([0-9.]+)(µs|us|ms|s)\b", l)
    if m:
        v = float(m.group(1))
        ms.append({"s": v * 1000, "ms": v}.get(m.group(2), v / 1000))
print(f"{statistics.median(ms):.0f} ms" if ms else "-")'
}

phase() { # phase NAME [SAVES-KIND]
  local name=$1 out st r0 r1 l0
  if [[ -n ${2:-} ]]; then
    saves "$2" &
    storm=$!
  fi
  r0=$(reloads)
  l0=$(wc -l <"$GATEWAY_LOG")
  set +e
  out=$($BENCH -url "http://127.0.0.1:$HTTP/mcp" -tool calculate -args '{"operation":"add","a":5,"b":3}' -expect 8 \
    -clients 8 -duration "$DURATION" -warmup 1s -json)
  st=$?
  set -e
  r1=$(reloads)
  if [[ -n $storm ]]; then kill $storm; wait $storm 2>/dev/null || true; storm=; fi
  [[ $st == 0 ]] || status=$st
  printf '%-8s %s; %d reloads, median %s\n' "$name" "$(head -1 <<<"$out")" $((r1 - r0)) "$(took "$l0")"
  python3 -c 'import json,sys; s=json.loads(sys.argv[2]); print(sys.argv[1], s["calls_per_s"], s["p50_ms"], s["p99_ms"], s["failures"])' \
    "$name" "$(tail -1 <<<"$out")" >>"$results"
  config "$(greeter 5)" # the starting point again
  sleep 0.5
}

phase quiet
phase limits limits
phase restore restore

python3 - "$results" <<'PY'
import sys
rate = {l.split()[0]: float(l.split()[1]) for l in open(sys.argv[1])}
q = rate["quiet"]
print(f"calls/s: quiet {q:,.0f}; limit saves {rate['limits']:,.0f} = {rate['limits'] / q:.2f}x; "
      f"remove/restore saves {rate['restore']:,.0f} = {rate['restore'] / q:.2f}x")
PY
echo "gateway resident memory: $(awk '/VmRSS/{print $2}' /proc/$pid/status) KiB"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
