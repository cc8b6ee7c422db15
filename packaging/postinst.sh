#!/bin/sh
# wasmgate postinst: the system user the unit runs as. Nothing is enabled
# or started: `systemctl enable --now wasmgate` is the operator's call.
set -e
if [ "$1" = configure ] || [ "$1" = "" ]; then
  # Its home is the unit's StateDirectory, /var/lib/wasmgate: adduser
  # creates it (a home that does not exist makes adduser warn), and so does
  # a reinstall after a purge (which keeps the user, as Debian does).
  # systemd moves it under /var/lib/private when it starts the unit
  # (DynamicUser=) and leaves a symlink, which is left alone here.
  if ! getent passwd wasmgate >/dev/null; then
    adduser --system --group --home /var/lib/wasmgate \
      --gecos "wasmgate MCP gateway" wasmgate >/dev/null
  fi
  if [ ! -L /var/lib/wasmgate ]; then
    install -d -o wasmgate -g wasmgate -m 0750 /var/lib/wasmgate
  fi
  if [ -d /run/systemd/system ]; then
    systemctl daemon-reload >/dev/null 2>&1 || true
    # An upgrade restarts a running gateway with the new binary.
    if systemctl is-active --quiet wasmgate.service; then
      systemctl try-restart wasmgate.service >/dev/null 2>&1 || true
    fi
  fi
fi
exit 0
