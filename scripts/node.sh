#!/usr/bin/env bash
# Prints the path of a Node.js binary of major version MIN or later: the
# system's `node`, or, when that is missing or older, node-linux-<arch>@MIN
# installed from the npm registry under DIR/node_modules (once; later runs
# reuse it). Says on stderr what it installed.
#   scripts/node.sh MIN DIR
# Used by scripts/conformance.sh (Node 22) and .ci/run (Node 20).
set -euo pipefail
min=${1:?usage: node.sh MIN DIR} dir=${2:?usage: node.sh MIN DIR}

major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if ((major >= min)); then
  command -v node
  exit 0
fi
case $(uname -m) in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node.sh: no Node.js $min package for $(uname -m)" >&2; exit 1 ;;
esac
pkg=node-linux-$arch
bin=$dir/node_modules/$pkg/bin/node
have=$("$bin" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if ((have < min)); then
  echo "node.sh: node $(node --version 2>/dev/null || echo missing) is older than $min; installing $pkg@$min from npm into $dir" >&2
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "$pkg@$min" >/dev/null
fi
cd "$(dirname "$bin")" && echo "$PWD/node"
