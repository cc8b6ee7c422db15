#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in tests/conformance/package.json) against wasmgate serving the
# fixture plugin testdata/plugins/conformance over Streamable HTTP on
# loopback. Every active server scenario must pass.
#
# The suite needs Node.js 22 or later. When the system's node is older, the
# script installs Node 22 from the npm package node-linux-<arch>@22 next to
# the suite (tests/conformance/node_modules, scripts/node.sh) and runs the
# suite with it.
#
# Usage: scripts/conformance.sh [extra arguments for `conformance server`]
#        (make conformance; e.g. --scenario tools-call-sampling --verbose)
# Expects bin/wasmgate and the plugins built (make build).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
dir=tests/conformance

if [[ ! -x bin/wasmgate || ! -f testdata/plugins/conformance.wasm ]]; then
  echo "conformance: bin/wasmgate or testdata/plugins/conformance.wasm is missing: run make build" >&2
  exit 2
fi

if [[ ! -f $dir/node_modules/.package-lock.json || $dir/package-lock.json -nt $dir/node_modules/.package-lock.json ]]; then
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null
fi

node=$(bash scripts/node.sh 22 "$dir")
echo "conformance: suite $(cd "$dir" && "$node" -p 'require("@modelcontextprotocol/conformance/package.json").version') on node $("$node" --version)"

work=$(mktemp -d)
gateway=
cleanup() {
  if [[ -n $gateway ]]; then
    kill -INT "$gateway" 2>/dev/null || true
    wait "$gateway" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/gateway.yaml" <<EOF
server:
  watch: false
transports:
  http:
    listen: 127.0.0.1:0
admin:
  enabled: false
plugins:
  - name: conformance
    path: $root/testdata/plugins/conformance.wasm
    limits:
      timeout: 30s
EOF

# --ready-file says, once wasmgate is ready, where it listens.
bin/wasmgate serve --config "$work/gateway.yaml" --ready-file "$work/ready.json" 2>"$work/gateway.log" &
gateway=$!
for _ in $(seq 1 300); do
  [[ -f $work/ready.json ]] && break
  if ! kill -0 "$gateway" 2>/dev/null; then
    cat "$work/gateway.log" >&2
    echo "conformance: wasmgate exited before it was ready" >&2
    exit 1
  fi
  sleep 0.2
done
if [[ ! -f $work/ready.json ]]; then
  cat "$work/gateway.log" >&2
  echo "conformance: wasmgate was not ready after 60s" >&2
  exit 1
fi
url=$("$node" -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).mcp' "$work/ready.json")

status=0
"$node" "$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" server \
  --url "$url" "$@" || status=$?
if ((status != 0)); then
  echo "conformance: the suite failed (exit $status); the gateway's log:" >&2
  tail -n 50 "$work/gateway.log" >&2
fi
exit "$status"
