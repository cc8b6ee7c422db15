#!/usr/bin/env bash
# make bench-scale: how the gateway scales (issue 46).
#
# Start with many slow upstreams: 20 eager upstreams (the slowstart
# fixture, testdata/upstreams/slowstart) that each take 5 s to answer
# initialize, started cold (no catalog kept) and warm (the catalogs the
# previous run kept in server.cache_dir/catalogs), in turns, ROUNDS times
# (cmd/scalebench): when the gateway was ready, when tools/list first had
# every upstream's tools, and when the first call of each upstream, made
# at once when the gateway was ready, returned. The issue's target: the
# full catalog listed <= 1 s after start (warm), the first calls served
# as soon as their upstreams are up (about DELAY).
#
#   scripts/bench-scale.sh   (UPSTREAMS, DELAY, ROUNDS, SESSIONS, QUIET,
#                             CALLS_CLIENTS, CALLS_DURATION: the environment)
set -euo pipefail
cd "$(dirname "$0")/.."
UPSTREAMS=${UPSTREAMS:-20}
DELAY=${DELAY:-5s}
ROUNDS=${ROUNDS:-3}
go build -o bin/scalebench ./cmd/scalebench
go build -o bin/slowstart ./testdata/upstreams/slowstart
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
echo "start: $UPSTREAMS eager upstreams answering initialize after $DELAY, $ROUNDS rounds of cold and warm (medians, ms from exec)"
./bin/scalebench -wasmgate ./bin/wasmgate -fixture ./bin/slowstart -upstreams "$UPSTREAMS" -delay "$DELAY" -rounds "$ROUNDS"

# Idle sessions: SESSIONS (default 10,000) 2025-11-25 sessions, each with
# its GET stream open, left idle; the gateway's resident memory per
# session (with its heap, stacks, goroutines and open files per session,
# from its Go collector and /proc) and its CPU over QUIET (10 s) idle.
# Then the same with a per_client HTTP upstream (mcpbench -serve), each
# session having called it once (so each holds its own upstream session).
# Each time, the floor is measured the same way right after, with the
# same client: `scalebench floor-server`, an MCP-shaped server written with
# net/http alone (a session map, initialize, initialized, a GET stream
# held; with the upstream, a session of its own there for each session,
# opened at its first call over shared kept-alive connections, as the
# gateway's per_client sessions are). The table: wasmgate, the floor and
# the gap between them. The issue's targets: <= 16 KiB per session
# without upstream sessions, <= 64 KiB with; no CPU while idle.
#
# Calls with idle sessions: two gateways serving the calculator example
# plugin, one holding SESSIONS idle sessions and one none, called by
# mcpbench with CALLS_CLIENTS (16) clients in turns of 200 ms, ROUNDS runs of
# CALLS_DURATION (5s) of each one's own time: the median calls/s of each
# and the median ratio. The issue's target: >= 0.95.
SESSIONS=${SESSIONS:-10000}
QUIET=${QUIET:-10s}
CALLS_CLIENTS=${CALLS_CLIENTS:-16}
CALLS_DURATION=${CALLS_DURATION:-5s}
# Each process holds a connection per session (the client's POSTs and its
# GET stream share one), and the driver one per session besides.
limit=$(ulimit -Hn)
if [[ $limit != unlimited ]] && ((limit < SESSIONS + 1024)); then
  echo "bench-scale: the open-file limit ($limit) is below SESSIONS + 1024 ($((SESSIONS + 1024))): lower SESSIONS or raise it" >&2
  exit 1
fi
[[ -f examples/plugins/calculator.wasm ]] || { echo "bench-scale: examples/plugins/calculator.wasm is missing (make plugins)" >&2; exit 1; }
go build -o bin/mcpbench ./cmd/mcpbench
. scripts/benchlib.sh
UP=$(port)
uplog=$(mktemp)
./bin/mcpbench -serve 127.0.0.1:$UP >"$uplog" 2>&1 &
up=$!
trap 'kill $up 2>/dev/null || true; rm -f "$uplog"' EXIT
wait_serving $up "$uplog"
echo "idle sessions: $SESSIONS, each with its GET stream open; wasmgate, then the floor (net/http alone) with the same client:"
./bin/scalebench -wasmgate ./bin/wasmgate -sessions "$SESSIONS" -quiet "$QUIET"
./bin/scalebench -wasmgate ./bin/wasmgate -sessions "$SESSIONS" -quiet "$QUIET" -upstream-url "http://127.0.0.1:$UP/mcp"
echo "the same without the GET streams' heartbeat (transports.http.stream_heartbeat: 0s): an idle session wakes nothing:"
./bin/scalebench -wasmgate ./bin/wasmgate -sessions "$SESSIONS" -quiet "$QUIET" -heartbeat 0s
./bin/scalebench -wasmgate ./bin/wasmgate -calls -sessions "$SESSIONS" -clients "$CALLS_CLIENTS" -duration "$CALLS_DURATION" \
  -rounds "$ROUNDS" -mcpbench ./bin/mcpbench -plugin examples/plugins/calculator.wasm
