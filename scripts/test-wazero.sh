#!/usr/bin/env bash
# make test-wazero: runs the patched wazero's own tests (third_party/wazero)
# twice: as they are, and with the termination checks forced on for every
# module of every test (the wazero_force_termination build tag), so that
# the engines, the spec suites and the integration tests all run through
# the checks.
#
# The spec suites' test data (71 MB) is not vendored: it is copied from
# the upstream module github.com/tetratelabs/wazero@v1.12.0, downloaded
# through the Go module proxy and checked against the hash pinned below.
#
# Usage: scripts/test-wazero.sh [go test flags...]   (e.g. -race, -short)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

readonly version=v1.12.0
readonly sum='h1:DuWcpNu/FzgEXgGBDp8J1Spc+CWOvvtvVyjKlaZopYU='
readonly modsum='h1:LvKtzl2RqO4gyF27BiXU+nKAjcV8f38U+kP/q2vgxh0='
wz=third_party/wazero

# upstream_dir prints the directory of the upstream module, downloading it
# if needed, from a scratch module whose go.sum pins it.
upstream_dir() {
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  cat >"$tmp/go.mod" <<MOD
module wazero-testdata
go 1.25
require github.com/tetratelabs/wazero $version
MOD
  cat >"$tmp/go.sum" <<SUM
github.com/tetratelabs/wazero $version $sum
github.com/tetratelabs/wazero $version/go.mod $modsum
SUM
  (cd "$tmp" && GOFLAGS=-mod=mod go mod download github.com/tetratelabs/wazero &&
    go list -m -f '{{.Dir}}' github.com/tetratelabs/wazero)
}

need=0
for suite in "$wz"/internal/integration_test/spectest/*/; do
  [[ -f $suite/spec_test.go || -f $suite/spectest.go ]] || continue
  [[ -d $suite/testdata ]] || need=1
done
if [[ $need == 1 ]]; then
  src=$(upstream_dir)
  for suite in "$src"/internal/integration_test/spectest/*/; do
    name=$(basename "$suite")
    [[ -d $suite/testdata && ! -d $wz/internal/integration_test/spectest/$name/testdata ]] || continue
    echo "test-wazero: spec test data of $name from $src"
    cp -r "$suite/testdata" "$wz/internal/integration_test/spectest/$name/testdata"
    chmod -R u+w "$wz/internal/integration_test/spectest/$name/testdata"
  done
fi

cd "$wz"
start=$(date +%s)
echo "test-wazero: go test $* ./..."
go test -count=1 "$@" ./...
echo "test-wazero: go test -tags wazero_force_termination $* ./internal/engine/... ./internal/integration_test/... (every module with termination checks)"
go test -count=1 -tags wazero_force_termination "$@" ./internal/engine/... ./internal/integration_test/...
echo "test-wazero: passed in $(($(date +%s) - start)) s"
