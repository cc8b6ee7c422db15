#!/usr/bin/env bash
# make test-wazero-arm64: the patched wazero's arm64 code, tested on an
# amd64 machine. The tests are cross-compiled (GOARCH=arm64) and run
# under Debian's qemu-user (qemu-aarch64, apt-get install qemu-user):
#
#   - the arm64 backend's unit tests (internal/engine/wazevo/backend/isa/arm64);
#   - the compiler engine (internal/engine/wazevo), whose tests compile
#     modules to arm64 and run them, and check the execution-context
#     offsets the termination-check patch added;
#   - the engine integration tests (internal/integration_test/engine),
#     among them a runaway loop and a runaway recursion stopped by a
#     closed module and by a garbage collection (TestStopTheWorldWhileSpinning);
#
# then the last two again with the termination checks forced on for every
# module (the wazero_force_termination build tag), as make test-wazero
# does on amd64. qemu translates the code the engine writes, so the
# termination checks run as arm64 instructions; it does not model a real
# core's memory ordering or timing. A test the compiler engine skips
# (it would if the platform check failed) fails this target.
#
# Emulated, the engine integration tests take about 6 minutes a pass on
# 2 cores (the whole target about 12), so go test's default 10-minute
# timeout is raised. --quick leaves them out (about 1.5 minutes): the
# backend's unit tests, and the compiler engine's with and without
# termination checks forced on; .ci/run runs that.
#
# Usage: scripts/test-wazero-arm64.sh [--quick] [go test flags...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../third_party/wazero"

qemu=${QEMU_AARCH64:-qemu-aarch64}
if ! command -v "$qemu" >/dev/null; then
  echo "test-wazero-arm64: $qemu not found: apt-get install qemu-user" >&2
  exit 1
fi
pkgs=(./internal/engine/wazevo/backend/isa/arm64 ./internal/engine/wazevo ./internal/integration_test/engine)
# Tests that must have run (not skipped) on the compiler engine.
must=(TestE2E Test_ExecutionContextOffsets TestEngineCompiler TestStopTheWorldWhileSpinning)
if [[ ${1:-} == --quick ]]; then
  shift
  pkgs=("${pkgs[@]:0:2}")
  must=("${must[@]:0:2}")
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
run() {
  echo "test-wazero-arm64: GOARCH=arm64 go test -exec $qemu $*"
  GOARCH=arm64 go test -count=1 -timeout 30m -v -exec "$qemu" "$@" >"$log" 2>&1 || {
    grep -v '^=== \|^    --- PASS\|^--- PASS' "$log" | tail -100
    return 1
  }
  grep '^ok\|^FAIL\|^---' "$log" | grep -v -- '--- PASS' || true
  local name
  for name in "${must[@]}"; do
    if grep -q -- "--- SKIP: $name " "$log"; then
      echo "test-wazero-arm64: $name was skipped on arm64" >&2
      return 1
    fi
  done
}
run "$@" "${pkgs[@]}"
for name in "${must[@]}"; do
  grep -q -- "--- PASS: $name " "$log" || {
    echo "test-wazero-arm64: $name did not run" >&2
    exit 1
  }
done
run -tags wazero_force_termination "$@" "${pkgs[@]:1}"
echo "test-wazero-arm64: passed in $(($(date +%s) - start)) s"
