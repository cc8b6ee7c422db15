#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in tests/conformance/package.json) against wasmgate serving the
# fixture plugin testdata/plugins/conformance over Streamable HTTP on
# loopback. Every active server scenario must pass.
#
# With --proxied as the first argument, the suite runs against a second
# gateway that has the first as a session: shared HTTP upstream (no
# prefix): the same scenarios, through the gateway's upstream client, its
# attribution of the upstream's requests and log notifications to their
# caller, and its per-caller logging level.
#
# With --endpoint PATH the gateway has an endpoints section (issue 40,
# docs/endpoints.md) of two endpoints: the first at /mcp selecting one
# tool of the fixture and nothing else, the second at PATH selecting
# every source; the suite runs against PATH, a non-default endpoint,
# which must pass exactly as the default does. make conformance runs all
# three.
#
# The suite needs Node.js 22 or later. When the system's node is older, the
# script installs Node 22 from the npm package node-linux-<arch>@22 next to
# the suite (tests/conformance/node_modules, scripts/node.sh) and runs the
# suite with it.
#
# Usage: scripts/conformance.sh [--proxied | --endpoint PATH] [extra arguments for `conformance server`]
#        (make conformance; e.g. --scenario tools-call-sampling --verbose)
# Expects bin/wasmgate and the plugins built (make build).
set -euo pipefail

proxied=
endpoint=
case ${1:-} in
  --proxied)
    proxied=1
    shift
    ;;
  --endpoint)
    endpoint=${2:-}
    if [[ $endpoint != /* || $endpoint == /mcp ]]; then
      echo "conformance: --endpoint needs a path starting with / other than /mcp (e.g. --endpoint /mcp/all)" >&2
      exit 2
    fi
    shift 2
    ;;
esac

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
gateways=()
cleanup() {
  for pid in "${gateways[@]}"; do
    kill -INT "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

# serve NAME starts wasmgate with $work/NAME.yaml; once it is ready
# (serve --ready-file says where it listens), $url is its MCP URL.
serve() {
  local name=$1 pid
  bin/wasmgate serve --config "$work/$name.yaml" --ready-file "$work/$name.ready.json" 2>"$work/$name.log" &
  pid=$!
  gateways+=("$pid")
  for _ in $(seq 1 300); do
    [[ -f $work/$name.ready.json ]] && break
    if ! kill -0 "$pid" 2>/dev/null; then
      cat "$work/$name.log" >&2
      echo "conformance: wasmgate ($name) exited before it was ready" >&2
      exit 1
    fi
    sleep 0.2
  done
  if [[ ! -f $work/$name.ready.json ]]; then
    cat "$work/$name.log" >&2
    echo "conformance: wasmgate ($name) was not ready after 60s" >&2
    exit 1
  fi
  url=$("$node" -p 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).mcp' "$work/$name.ready.json")
}

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
if [[ -n $endpoint ]]; then
  cat >>"$work/gateway.yaml" <<EOF
endpoints:
  - name: first
    path: /mcp
    sources: [conformance]
    tools: {include: [test_simple_text]}
    resources: {exclude: ["*"]}
    prompts: {exclude: ["*"]}
  - name: all
    path: $endpoint
EOF
fi

serve gateway
if [[ -n $endpoint ]]; then
  # The ready file names the first endpoint's URL; the suite gets the
  # second's.
  url=$("$node" -p 'new URL(process.argv[2], process.argv[1]).href' "$url" "$endpoint")
  echo "conformance: against the endpoint $endpoint (the second of two; the first, /mcp, serves one tool)"
fi
logs=("$work/gateway.log")
if [[ -n $proxied ]]; then
  cat >"$work/proxy.yaml" <<EOF
server:
  watch: false
transports:
  http:
    listen: 127.0.0.1:0
admin:
  enabled: false
upstreams:
  - name: conformance
    url: $url
    session: shared
    limits:
      timeout: 30s
EOF
  serve proxy
  logs+=("$work/proxy.log")
  echo "conformance: through a second gateway, which has the first as a shared HTTP upstream"
fi

status=0
"$node" "$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" server \
  --url "$url" "$@" || status=$?
if ((status != 0)); then
  for log in "${logs[@]}"; do
    echo "conformance: the suite failed (exit $status); $(basename "$log" .log)'s log:" >&2
    tail -n 50 "$log" >&2
  done
fi
exit "$status"
