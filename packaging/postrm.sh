#!/bin/sh
# wasmgate postrm: forget the unit; purge also removes cache and state.
set -e
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload >/dev/null 2>&1 || true
fi
if [ "$1" = purge ]; then
  rm -rf /var/cache/wasmgate /var/lib/wasmgate /var/cache/private/wasmgate /var/lib/private/wasmgate
fi
exit 0
