#!/usr/bin/env bash
# make cluster: three wasmgate replicas of configs/cluster/gateway.yaml
# (HTTP on 127.0.0.1:8081-8083, admin on 9091-9093), a redis-server on
# 127.0.0.1:6390 without persistence and HAProxy (configs/haproxy.cfg) on
# 127.0.0.1:8080, all on this machine. MCP clients use
# http://127.0.0.1:8080/mcp; each replica's status page is on its admin
# port. Ctrl-C stops everything.
#
# A replica that exits (killed, crashed) is reported and the others keep
# serving behind HAProxy; from another terminal
#
#   scripts/cluster.sh restart 2      (or: make cluster-restart R=2)
#
# starts replica 2 again (one that still runs is stopped first: a rolling
# restart) and returns once it is ready. If Redis or HAProxy exits, the
# cluster cannot serve: everything stops.
#
# The environment can move it (the defaults are above):
#   CLUSTER_LISTEN       HAProxy's address (127.0.0.1:8080)
#   CLUSTER_HTTP_PORTS   the replicas' MCP ports ("8081 8082 8083")
#   CLUSTER_ADMIN_PORTS  the replicas' admin ports ("9091 9092 9093")
#   CLUSTER_REDIS_PORT   redis-server's port (6390)
#   CLUSTER_RUN_DIR      where the pid files are (.cache/cluster)
#   CLUSTER_WASMGATE     the binary (bin/wasmgate)
set -euo pipefail
cd "$(dirname "$0")/.."

run_dir=${CLUSTER_RUN_DIR:-.cache/cluster}

# restart N: ask the running cluster (its pid file) to start replica N again.
if [[ ${1:-} == restart ]]; then
  n=${2:-}
  [[ $n =~ ^[123]$ ]] || { echo "usage: $0 restart 1|2|3" >&2; exit 2; }
  pid=$(cat "$run_dir/cluster.pid" 2>/dev/null) && kill -0 "$pid" 2>/dev/null ||
    { echo "cluster: no cluster is running (no live pid in $run_dir/cluster.pid): start one with make cluster" >&2; exit 1; }
  rm -f "$run_dir/restart-$n.failed"
  : >"$run_dir/restart-$n"
  kill -USR1 "$pid"
  for _ in $(seq 600); do # 60 s
    if [[ -f $run_dir/restart-$n.failed ]]; then
      echo "cluster: replica r$n did not start again: $(cat "$run_dir/restart-$n.failed")" >&2
      exit 1
    fi
    if [[ ! -e $run_dir/restart-$n ]]; then
      echo "cluster: replica r$n is serving again (pid $(cat "$run_dir/r$n.pid"))" >&2
      exit 0
    fi
    sleep 0.1
  done
  echo "cluster: replica r$n is not ready after 60s; see the cluster's terminal" >&2
  exit 1
fi
[[ $# == 0 ]] || { echo "usage: $0 [restart 1|2|3]" >&2; exit 2; }

for cmd in redis-server redis-cli haproxy curl; do
  command -v $cmd >/dev/null || { echo "cluster: $cmd is not installed (apt-get install ${cmd%-*})" >&2; exit 1; }
done
bin=${CLUSTER_WASMGATE:-bin/wasmgate}
[ -x "$bin" ] || { echo "cluster: $bin is missing: make build" >&2; exit 1; }
listen=${CLUSTER_LISTEN:-127.0.0.1:8080}
read -r -a http_ports <<<"${CLUSTER_HTTP_PORTS:-8081 8082 8083}"
read -r -a admin_ports <<<"${CLUSTER_ADMIN_PORTS:-9091 9092 9093}"
redis_port=${CLUSTER_REDIS_PORT:-6390}
[[ ${#http_ports[@]} == 3 && ${#admin_ports[@]} == 3 ]] ||
  { echo "cluster: CLUSTER_HTTP_PORTS and CLUSTER_ADMIN_PORTS need three ports each" >&2; exit 2; }
mkdir -p "$run_dir"
if pid=$(cat "$run_dir/cluster.pid" 2>/dev/null) && kill -0 "$pid" 2>/dev/null; then
  echo "cluster: one is running already (pid $pid, $run_dir/cluster.pid)" >&2
  exit 1
fi
echo $$ >"$run_dir/cluster.pid"
rm -f "$run_dir"/restart-*

# The addresses configs/haproxy.cfg reads.
export CLUSTER_LISTEN=$listen
for i in 1 2 3; do
  export "CLUSTER_R$i=127.0.0.1:${http_ports[i-1]}" "CLUSTER_R${i}_ADMIN_PORT=${admin_ports[i-1]}"
done

declare -A pid=() # name (redis, r1..r3, haproxy) -> pid of what runs
stop() {
  trap - INT TERM EXIT USR1
  for p in "${pid[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pid[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -f "$run_dir/cluster.pid" "$run_dir"/r?.pid
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# start_replica N: run replica N in the background; wait_ready N: until its
# /readyz answers (1 if it exited instead, or after 60 s).
start_replica() {
  local i=$1
  WASMGATE_TRANSPORTS__HTTP__LISTEN=127.0.0.1:${http_ports[i-1]} \
    WASMGATE_ADMIN__LISTEN=127.0.0.1:${admin_ports[i-1]} \
    WASMGATE_STATE__REDIS__URL=redis://127.0.0.1:$redis_port/0 \
    "$bin" serve --config configs/cluster/gateway.yaml 2> >(sed -u "s/^/[r$i] /" >&2) &
  pid[r$i]=$!
  echo "${pid[r$i]}" >"$run_dir/r$i.pid"
}
wait_ready() {
  local i=$1
  for _ in $(seq 600); do
    curl -sf "http://127.0.0.1:${admin_ports[i-1]}/readyz" >/dev/null 2>&1 && return 0
    kill -0 "${pid[r$i]}" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# describe STATUS: how a process with that exit status ended.
describe() {
  if (($1 > 128)); then echo "killed by signal $(($1 - 128)) (SIG$(kill -l "$1"))"; else echo "exit status $1"; fi
}

# On SIGUSR1 (scripts/cluster.sh restart N): start each replica asked for
# again, stopping it first if it still runs.
restart_requested() {
  local f i st
  for f in "$run_dir"/restart-[123]; do
    [[ -e $f ]] || continue
    i=${f##*-}
    if [[ -n ${pid[r$i]:-} ]]; then
      echo "cluster: restarting replica r$i (pid ${pid[r$i]})" >&2
      kill "${pid[r$i]}" 2>/dev/null || true
      st=0
      wait "${pid[r$i]}" 2>/dev/null || st=$?
      echo "cluster: replica r$i stopped: $(describe $st)" >&2
      unset "pid[r$i]"
    fi
    start_replica "$i"
    if wait_ready "$i"; then
      echo "cluster: replica r$i is serving again on 127.0.0.1:${http_ports[i-1]} (pid ${pid[r$i]}); HAProxy sends to it after its next health check" >&2
      rm -f "$f"
    else
      echo "cluster: replica r$i did not become ready (see its [r$i] lines above)" >&2
      echo "not ready within 60s or exited; see the [r$i] lines in the cluster's output" >"$f.failed"
      rm -f "$f"
    fi
  done
}

redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --loglevel warning &
pid[redis]=$!
until redis-cli -p "$redis_port" ping >/dev/null 2>&1; do
  kill -0 "${pid[redis]}" 2>/dev/null || { echo "cluster: redis-server did not start on port $redis_port" >&2; exit 1; }
  sleep 0.1
done
for i in 1 2 3; do start_replica "$i"; done
for i in 1 2 3; do
  wait_ready "$i" || { echo "cluster: replica r$i did not become ready (see its [r$i] lines above)" >&2; exit 1; }
done
haproxy -db -f configs/haproxy.cfg &
pid[haproxy]=$!
trap restart_requested USR1
echo "cluster: MCP at http://$listen/mcp; status pages at http://127.0.0.1:${admin_ports[0]}/ ${admin_ports[1]}/ ${admin_ports[2]}/; Ctrl-C stops it" >&2

while :; do
  who= st=0
  wait -n -p who "${pid[@]}" || st=$?
  [[ -n ${who:-} ]] || continue # a signal (USR1) interrupted the wait (and unset who)
  for name in "${!pid[@]}"; do
    [[ ${pid[$name]} == "$who" ]] || continue
    unset "pid[$name]"
    case $name in
    r?)
      rm -f "$run_dir/$name.pid"
      others=$(printf '%s\n' "${!pid[@]}" | grep '^r[0-9]' | sort | paste -sd, - | sed 's/,/, /g' || true)
      echo "cluster: replica $name (pid $who) exited: $(describe $st); ${others:+serving behind HAProxy: }${others:-no replica is left}; start it again with: make cluster-restart R=${name#r} (or scripts/cluster.sh restart ${name#r})" >&2
      ;;
    *)
      echo "cluster: $name (pid $who) exited: $(describe $st); the cluster cannot serve without it: stopping the others" >&2
      exit 1
      ;;
    esac
  done
done
