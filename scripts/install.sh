#!/usr/bin/env bash
# Installs wasmgate (called by `make install`; see the Makefile for the
# variables). Layout, under $DESTDIR:
#   $BINDIR/wasmgate
#   $UNITDIR/wasmgate.service          ExecStart and docs point at the above
#   $SYSCONFDIR/wasmgate/gateway.yaml   plugin paths rewritten to $DATADIR/plugins;
#                                       an existing one is kept (the new one is
#                                       written beside it as gateway.yaml.new)
#   $DATADIR/plugins/*.wasm             the example plugins
#   $DOCDIR/                            README, CHANGELOG, LICENSE, docs
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

: "${BINDIR:?}" "${SYSCONFDIR:?}" "${DATADIR:?}" "${DOCDIR:?}" "${UNITDIR:?}" "${BIN:?}"
DESTDIR=${DESTDIR:-}
DOCS=${DOCS:-README.md LICENSE}

install -d "$DESTDIR$BINDIR" "$DESTDIR$UNITDIR" "$DESTDIR$SYSCONFDIR/wasmgate" \
  "$DESTDIR$DATADIR/plugins" "$DESTDIR$DOCDIR"
install -m 0755 "$BIN" "$DESTDIR$BINDIR/wasmgate"

sed -e "s|^ExecStart=/usr/bin/wasmgate |ExecStart=$BINDIR/wasmgate |" \
    -e "s|/etc/wasmgate/|$SYSCONFDIR/wasmgate/|g" \
    -e "s|file:///usr/share/doc/wasmgate/|file://$DOCDIR/|" \
    configs/wasmgate.service >"$DESTDIR$UNITDIR/wasmgate.service"
chmod 0644 "$DESTDIR$UNITDIR/wasmgate.service"

for wasm in examples/plugins/*.wasm; do
  install -m 0644 "$wasm" "$DESTDIR$DATADIR/plugins/"
done

# The shipped config names the plugins relative to configs/; installed,
# they live in $DATADIR/plugins.
cfg=$(mktemp)
trap 'rm -f "$cfg"' EXIT
bash scripts/installed-config.sh "$DATADIR/plugins" <configs/gateway.yaml >"$cfg"
dst="$DESTDIR$SYSCONFDIR/wasmgate/gateway.yaml"
if [[ -e $dst ]] && ! cmp -s "$cfg" "$dst"; then
  install -m 0644 "$cfg" "$dst.new"
  echo "kept $dst; the new default is $dst.new"
else
  install -m 0644 "$cfg" "$dst"
fi

for doc in $DOCS; do
  install -m 0644 "$doc" "$DESTDIR$DOCDIR/"
done
install -m 0644 configs/prometheus/alerts.yml "$DESTDIR$DOCDIR/alerts.yml"
install -m 0644 examples/grafana/wasmgate.json "$DESTDIR$DOCDIR/grafana-dashboard.json"
echo "installed wasmgate in ${DESTDIR:-/}: $BINDIR/wasmgate, $UNITDIR/wasmgate.service, $SYSCONFDIR/wasmgate/gateway.yaml, $DATADIR/plugins"
