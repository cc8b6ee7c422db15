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
# Rust modules, directories there with a src/lib.rs (std, no crates; the
# redact-rs example interceptor), it builds to <dir>.wasm with rustc alone:
#
#   rustc --edition 2021 --target wasm32-unknown-unknown --crate-type cdylib \
#       -C opt-level=3 -C codegen-units=1 -C lto -C panic=abort -C strip=symbols \
#       -C target-feature=+bulk-memory,+simd128 -o <dir>.wasm <dir>/src/lib.rs
#
# (bulk memory makes a copy one memory.copy, SIMD widens loops: wazero has
# both) with /usr/bin/rustc (Debian 12: apt-get install rustc
# libstd-rust-dev-wasm32) when it has the wasm32-unknown-unknown target,
# else the rustc on PATH if it has it (rustup target add
# wasm32-unknown-unknown). Without either it says what to install and
# builds the rest (make run needs no Rust); the tests that need a Rust
# module fail, saying the same.
#
# A module is rebuilt only when it is missing or older than one of its
# sources: the .go files of its directory, of pdk/ and wire/ (which plugins
# import), or go.mod/go.sum; its .wat file; the files of a Rust module's
# directory. It prints one line per module it builds.
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
# rust_wasm: a rustc with the wasm32-unknown-unknown standard library,
# Debian's first; empty without one.
rust_wasm() {
  local rc sysroot
  for rc in /usr/bin/rustc "$(command -v rustc || true)"; do
    [[ -n $rc && -x $rc ]] || continue
    sysroot=$("$rc" --print sysroot 2>/dev/null) || continue
    if [[ -d $sysroot/lib/rustlib/wasm32-unknown-unknown/lib ]]; then
      echo "$rc"
      return
    fi
  done
}
rustc_bin=
missing=
for dir in examples/interceptors/*/ testdata/interceptors/*/; do
  dir=${dir%/}
  [[ -f $dir/src/lib.rs ]] || continue
  out=$dir.wasm
  [[ $force == 1 || ! -f $out || -n $(find "$dir" -type f -newer "$out" -print -quit) ]] || continue
  rustc_bin=${rustc_bin:-$(rust_wasm)}
  if [[ -z $rustc_bin ]]; then
    echo "error: cannot build $out: no rustc with the wasm32-unknown-unknown target (Debian: apt-get install rustc libstd-rust-dev-wasm32; rustup: rustup target add wasm32-unknown-unknown); the tests that need it will fail" >&2
    missing=1
    continue
  fi
  echo "build $out ($rustc_bin)"
  "$rustc_bin" --edition 2021 --target wasm32-unknown-unknown --crate-type cdylib \
    -C opt-level=3 -C codegen-units=1 -C lto -C panic=abort -C strip=symbols \
    -C target-feature=+bulk-memory,+simd128 -o "$out" "$dir/src/lib.rs"
  built=$((built + 1))
done
if [[ $built == 0 && -z $missing ]]; then
  echo "plugins up to date"
fi
