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
#   scripts/bench-scale.sh   (UPSTREAMS, DELAY, ROUNDS, SESSIONS: the environment)
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
# session and its CPU over 10 quiet seconds. Then the same with a
# per_client HTTP upstream (mcpbench -serve), each session having called
# it once (so each holds its own upstream session). The issue's targets:
# <= 16 KiB per session without upstream sessions, <= 64 KiB with; no CPU
# while idle.
SESSIONS=${SESSIONS:-10000}
go build -o bin/mcpbench ./cmd/mcpbench
. scripts/benchlib.sh
UP=$(port)
uplog=$(mktemp)
./bin/mcpbench -serve 127.0.0.1:$UP >"$uplog" 2>&1 &
up=$!
trap 'kill $up 2>/dev/null || true; rm -f "$uplog"' EXIT
wait_serving $up "$uplog"
echo "idle sessions: $SESSIONS, each with its GET stream open"
./bin/scalebench -wasmgate ./bin/wasmgate -sessions "$SESSIONS"
./bin/scalebench -wasmgate ./bin/wasmgate -sessions "$SESSIONS" -upstream-url "http://127.0.0.1:$UP/mcp"
