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
#   scripts/bench-scale.sh   (UPSTREAMS, DELAY, ROUNDS: the environment)
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
