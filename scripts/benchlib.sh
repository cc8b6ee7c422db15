# Shared by the make bench* scripts (sourced): free ports, starting and
# stopping the gateway under test, and its CPU time and call count.
# Expects BIN (the wasmgate binary), ADMIN (its admin port) and work (a
# scratch folder) to be set; sets pid.

# port prints a free loopback TCP port.
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start CONFIG starts the gateway on CONFIG and waits for /readyz; its
# stderr goes to $work/gateway.log (printed if it exits first).
start() {
  $BIN serve --config "$1" >/dev/null 2>>"$work/gateway.log" &
  pid=$!
  until curl -sf "http://127.0.0.1:$ADMIN/readyz" >/dev/null 2>&1; do
    kill -0 $pid 2>/dev/null || { cat "$work/gateway.log"; exit 1; }
    sleep 0.01
  done
}

# stop ends the gateway started by start.
stop() { kill -TERM $pid; wait $pid || true; pid=; }

# wait_serving PID LOG waits until a helper process (mcpbench -serve,
# -otlp-sink) wrote its "serving" line to LOG.
wait_serving() {
  until grep -q serving "$2" 2>/dev/null; do
    kill -0 "$1" 2>/dev/null || { cat "$2"; exit 1; }
    sleep 0.01
  done
}

# cpu_ticks is the gateway's user + system time so far, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }

# calls is the gateway's tool calls so far.
calls() { curl -s "http://127.0.0.1:$ADMIN/metrics" | awk '/^wasmgate_tool_calls_total/{n += $NF} END{print n + 0}'; }
