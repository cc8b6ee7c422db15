#!/usr/bin/env bash
# make cluster: three wasmgate replicas of configs/cluster/gateway.yaml
# (HTTP on 127.0.0.1:8081-8083, admin on 9091-9093), a redis-server on
# 127.0.0.1:6390 without persistence and HAProxy (configs/haproxy.cfg) on
# 127.0.0.1:8080, all on this machine. MCP clients use
# http://127.0.0.1:8080/mcp; each replica's status page is on its admin
# port. Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
for cmd in redis-server haproxy; do
  command -v $cmd >/dev/null || { echo "cluster: $cmd is not installed (apt-get install $cmd)" >&2; exit 1; }
done
[ -x bin/wasmgate ] || { echo "cluster: bin/wasmgate is missing: make build" >&2; exit 1; }
pids=()
stop() {
  trap - INT TERM EXIT
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap stop INT TERM EXIT

redis-server --port 6390 --bind 127.0.0.1 --save '' --appendonly no --loglevel warning &
pids+=($!)
until redis-cli -p 6390 ping >/dev/null 2>&1; do sleep 0.1; done
for i in 1 2 3; do
  WASMGATE_TRANSPORTS__HTTP__LISTEN=127.0.0.1:808$i WASMGATE_ADMIN__LISTEN=127.0.0.1:909$i \
    bin/wasmgate serve --config configs/cluster/gateway.yaml 2> >(sed -u "s/^/[r$i] /" >&2) &
  pids+=($!)
done
for i in 1 2 3; do
  until curl -sf http://127.0.0.1:909$i/readyz >/dev/null 2>&1; do sleep 0.1; done
done
haproxy -db -f configs/haproxy.cfg &
pids+=($!)
echo "cluster: MCP at http://127.0.0.1:8080/mcp; status pages at http://127.0.0.1:9091/ 9092/ 9093/; Ctrl-C stops it" >&2
wait -n "${pids[@]}"
echo "cluster: a process exited; stopping the others" >&2
