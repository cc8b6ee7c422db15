#!/bin/sh
# wasmgate prerm: stop the service before its files go away (not on upgrade).
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
  systemctl stop wasmgate.service >/dev/null 2>&1 || true
fi
exit 0
