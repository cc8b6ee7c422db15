#!/usr/bin/env bash
# Builds every plugin directory under examples/plugins/, examples/rankers/,
# examples/interceptors/, testdata/plugins/ and testdata/interceptors/ to
# <dir>.wasm beside it, with the standard Go toolchain:
#
#   GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o <dir>.wasm ./<dir>
#
# and assembles every <name>.wat file there (modules written in WebAssembly
# text) to <name>.wasm with wabt's wat2wasm (Debian: apt-get install wabt);
# without wat2wasm it says so and skips them, and the tests that need them
# skip too.
#
# A module is rebuilt only when it is missing or older than one of its
# sources: the .go files of its directory, of pdk/ and wire/ (which plugins
# import), or go.mod/go.sum; its .wat file. It prints one line per module it
# builds.
#
# Usage: scripts/build-plugins.sh [-f]    (-f: rebuild everything)
# Works from any directory.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

force=0
case "${1:-}" in
  -f) force=1 ;;
  "") ;;
  *) echo "usage: $0 [-f]" >&2; exit 2 ;;
esac

# stale OUT DIR: true when OUT must be (re)built.
stale() {
  local out=$1 dir=$2
  [[ $force == 1 || ! -f $out ]] && return 0
  [[ -n $(find "$dir" pdk wire go.mod go.sum -name '*.go' -newer "$out" -print -quit 2>/dev/null) ]] && return 0
  [[ go.mod -nt $out || go.sum -nt $out ]] && return 0
  return 1
}

built=0
for dir in examples/plugins/*/ examples/rankers/*/ examples/interceptors/*/ testdata/plugins/*/ testdata/interceptors/*/; do
  dir=${dir%/}
  compgen -G "$dir/*.go" >/dev/null || continue
  out=$dir.wasm
  stale "$out" "$dir" || continue
  echo "build $out"
  GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -o "$out" "./$dir"
  built=$((built + 1))
done
for wat in examples/plugins/*.wat examples/interceptors/*.wat testdata/plugins/*.wat; do
  [[ -f $wat ]] || continue
  out=${wat%.wat}.wasm
  [[ $force == 1 || ! -f $out || $wat -nt $out ]] || continue
  if ! command -v wat2wasm >/dev/null; then
    echo "skip $out: wat2wasm not found (install wabt)" >&2
    continue
  fi
  echo "assemble $out"
  wat2wasm "$wat" -o "$out"
  built=$((built + 1))
done
if [[ $built == 0 ]]; then
  echo "plugins up to date"
fi
