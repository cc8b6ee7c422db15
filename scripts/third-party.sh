#!/usr/bin/env bash
# make third-party / make check-third-party: the forks in third_party/ are
# their upstream releases plus the diffs in third_party/<fork>/patches/,
# applied in order; this script rebuilds them.
#
# For each fork it takes the release from the Go module cache (downloading
# it through the module proxy if needed, and checking it against the hash
# pinned below), copies it to a scratch directory, applies the fork's
# patches with `git apply`, runs what the release generates (mcp-go:
# server/internal/gen, whose templates the patches change), and keeps the
# subset of files the fork vendors (keep_<fork> below). Files the patches
# add are always kept. PATCHES.md and patches/ are the fork's own.
#
#   scripts/third-party.sh [fork...]          rebuild third_party/<fork> in place
#   scripts/third-party.sh --check [fork...]  rebuild into a scratch directory and
#                                             compare with third_party/<fork>;
#                                             exits 1 naming the files that differ;
#                                             then runs the tests the patches add
#                                             (mcp-go: go test in a copy of the
#                                             fork; each fails without its patch)
#   scripts/third-party.sh --each [fork...]   also compile the fork and its tests
#                                             the fork after each patch: for a
#                                             rebase, to find the patch that breaks
#
# Forks: mcp-go, wazero, extism-go-sdk (all when none is named). It needs
# no network once the releases (and, for mcp-go, goimports' module) are
# in the module cache. Files git ignores (wazero's spec test data, which
# make test-wazero copies in) are left alone and not compared.
#
# A rebase onto a newer release: bump the version and hashes below, run
# `scripts/third-party.sh --each <fork>`, and fix the patch it names
# (apply it by hand with `git apply --3way` in the scratch tree, then
# regenerate the diff from the result); PATCHES.md says what each is for.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

# module, version, go.sum hash of the release's zip: one line per fork.
declare -A module version sum
module[mcp-go]=github.com/mark3labs/mcp-go
version[mcp-go]=v1.2.1
sum[mcp-go]='h1:gd8VD3feMAVycwAM0x1nhv42Q1oLLjfOyowoUzHULB8='
module[wazero]=github.com/tetratelabs/wazero
version[wazero]=v1.12.0
sum[wazero]='h1:DuWcpNu/FzgEXgGBDp8J1Spc+CWOvvtvVyjKlaZopYU='
module[extism-go-sdk]=github.com/extism/go-sdk
version[extism-go-sdk]=v1.7.1
sum[extism-go-sdk]='h1:lWJos6uY+tRFdlIHR+SJjwFDApY7OypS/2nMhiVQ9Sw='
all_forks=(mcp-go wazero extism-go-sdk)

# goimports formats what mcp-go's generator writes (upstream's generator
# runs goimports@latest; the version is pinned here so that the output
# does not change under us, and so that it runs offline).
goimports_version=v0.53.0

mode=rebuild
forks=()
for arg in "$@"; do
  case $arg in
  --check) mode=check ;;
  --each) each=1 ;;
  -h | --help)
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
  -*)
    echo "third-party: unknown flag $arg" >&2
    exit 2
    ;;
  *)
    [[ -n ${module[$arg]:-} ]] || {
      echo "third-party: unknown fork $arg (forks: ${all_forks[*]})" >&2
      exit 2
    }
    forks+=("$arg")
    ;;
  esac
done
((${#forks[@]})) || forks=("${all_forks[@]}")
each=${each:-0}

scratch=$(mktemp -d)
trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT

die() {
  echo "third-party: $*" >&2
  exit 1
}

# release_dir FORK prints the module cache directory of FORK's release,
# downloading it if needed, after checking its hash.
release_dir() {
  local f=$1 json dir got
  json=$(cd "$scratch" && GOFLAGS= go mod download -json "${module[$f]}@${version[$f]}") ||
    die "$f: cannot download ${module[$f]}@${version[$f]}: $json"
  dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$json")
  got=$(sed -n 's/^[[:space:]]*"Sum": "\(.*\)",$/\1/p' <<<"$json")
  [[ -d $dir ]] || die "$f: no directory for ${module[$f]}@${version[$f]} in: $json"
  [[ $got == "${sum[$f]}" ]] || die "$f: ${module[$f]}@${version[$f]} has hash $got, want ${sum[$f]}"
  echo "$dir"
}

# The files each fork keeps from its release, as paths relative to the
# patched release tree, one a line (files the patches add are kept too).
keep_mcp-go() {
  printf '%s\n' LICENSE go.mod go.sum
  find client client/transport mcp server tracing -maxdepth 1 -type f -name '*.go' ! -name '*_test.go'
}
keep_wazero() {
  find . -type f ! -path './.git/*' ! -path './.github/*' ! -path './.netlify/*' \
    ! -path './internal/integration_test/spectest/*/testdata/*' | sed 's|^\./||'
}
keep_extism-go-sdk() {
  printf '%s\n' LICENSE go.mod go.sum extism-runtime.wasm extism-runtime.wasm.version
  find . -maxdepth 1 -type f -name '*.go' ! -name '*_test.go' | sed 's|^\./||'
}

# generate_mcp-go runs the release's generator (server/internal/gen) on
# the patched templates, as `go generate ./server/internal/gen` does.
generate_mcp-go() {
  local tree=$1
  # The module cache is tried first as a proxy of its own, so that
  # `go run goimports@version` (which asks a proxy whether the module is
  # deprecated) works offline once the module is cached.
  local proxy
  proxy="file://$(go env GOMODCACHE)/cache/download,$(go env GOPROXY)"
  (cd "$tree/server/internal/gen" &&
    GOIMPORTS="env GOPROXY=$proxy go run golang.org/x/tools/cmd/goimports@$goimports_version" go run . ../..) ||
    die "mcp-go: server/internal/gen failed"
}

# build_tree FORK TREE checks that TREE, a patched release, compiles, its
# tests included (go vet with one cheap analyzer type-checks them; the
# releases do not pass every analyzer), but for the packages that use the
# data the fork leaves out (wazero's spec suites).
build_tree() {
  (
    cd "$2"
    export GOFLAGS=-mod=mod
    mapfile -t pkgs < <(go list -e -f '{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}' ./... |
      grep -v '/integration_test/spectest' | cut -d' ' -f1)
    go vet -atomic "${pkgs[@]}"
  )
}

# test_mcp-go runs the tests the patches add (PATCHES.md names them), in
# TREE, a copy of the fork: its packages with test files, offline, as they
# build from the fork's go.mod and go.sum, with the race detector (the
# fork's code runs in the gateway's goroutines; wasmgate's own -race tests
# reach it only through the gateway).
test_mcp-go() {
  (
    cd "$1"
    export GOFLAGS=-mod=readonly GOPROXY=off
    mapfile -t pkgs < <(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...)
    ((${#pkgs[@]})) || exit 0
    go test -race -count=1 -timeout 4m "${pkgs[@]}"
  )
}

# rebuild FORK OUT writes FORK rebuilt from its release and patches to OUT.
rebuild() {
  local f=$1 out=$2 src tree p n=0
  src=$(release_dir "$f")
  tree=$scratch/$f.tree
  mkdir -p "$tree"
  # Spec test data (71 MB) is not kept; no patch touches it.
  tar -C "$src" --exclude='./internal/integration_test/spectest/*/testdata' -cf - . | tar -C "$tree" -xf -
  chmod -R u+w "$tree"
  # A repository of its own, so that git apply works relative to it and
  # lists what the patches add.
  git -C "$tree" init -q
  git -C "$tree" add -A
  git -C "$tree" -c user.name=third-party -c user.email=third-party@localhost commit -q -m release
  for p in "$root/third_party/$f/patches"/*.diff; do
    [[ -e $p ]] || continue
    n=$((n + 1))
    if ! git -C "$tree" apply --whitespace=nowarn "$p" 2>"$scratch/apply.err"; then
      sed 's/^/  /' "$scratch/apply.err" >&2
      die "$f: patch ${p#"$root"/} does not apply to ${module[$f]}@${version[$f]} (after $((n - 1)) others)"
    fi
    git -C "$tree" add -A
    if ((each)); then
      echo "third-party: $f: $(basename "$p"): compile" >&2
      [[ $(type -t "generate_$f") == function ]] && "generate_$f" "$tree"
      build_tree "$f" "$tree" || die "$f: does not build after ${p#"$root"/}"
      git -C "$tree" checkout -q -- . # the generated files are made again at the end
    fi
  done
  if [[ $(type -t "generate_$f") == function ]]; then "generate_$f" "$tree"; fi
  mkdir -p "$out"
  {
    (cd "$tree" && "keep_$f")
    git -C "$tree" diff --cached --name-only --diff-filter=A HEAD
  } | sort -u | tar -C "$tree" -cf - --no-recursion -T - | tar -C "$out" -xf - # one copy, not a cp per file
  cp "$root/third_party/$f/PATCHES.md" "$out/"
  cp -r "$root/third_party/$f/patches" "$out/"
  echo "third-party: $f: ${module[$f]}@${version[$f]} and $n patches" >&2
}

# tracked FORK lists the files of third_party/FORK that git does not
# ignore (tracked, or new and not ignored), relative to it.
tracked() {
  git ls-files --cached --others --exclude-standard -- "third_party/$1" | sed "s|^third_party/$1/||" | sort -u
}

status=0
for f in "${forks[@]}"; do
  out=$scratch/$f.out
  rebuild "$f" "$out"
  have=$scratch/$f.have
  mkdir -p "$have"
  # the files that exist (a tracked file may have been deleted), in one copy
  tracked "$f" | while IFS= read -r file; do [[ -e third_party/$f/$file ]] && printf '%s\n' "$file"; done |
    tar -C "third_party/$f" -cf - --no-recursion -T - | tar -C "$have" -xf -
  if [[ $mode == check ]]; then
    if ! diff -rq "$out" "$have" >"$scratch/diff" 2>&1; then
      echo "third-party: third_party/$f differs from ${module[$f]}@${version[$f]} plus its patches:" >&2
      sed -e "s|$out|rebuilt|g" -e "s|$have|third_party/$f|g" "$scratch/diff" >&2
      diff -ru "$out" "$have" | sed -e "s|$out|rebuilt|g" -e "s|$have|third_party/$f|g" | head -200 >&2 || true
      echo "third-party: run scripts/third-party.sh $f (make third-party) to rebuild it, or fix the patch" >&2
      status=1
    else
      echo "third-party: third_party/$f matches" >&2
      if [[ $(type -t "test_$f") == function ]]; then
        echo "third-party: $f: the patches' tests" >&2
        "test_$f" "$have" || {
          echo "third-party: third_party/$f: the patches' tests fail" >&2
          status=1
        }
      fi
    fi
  else
    # In place: the files git does not ignore are replaced by the rebuilt ones.
    tracked "$f" | (cd "third_party/$f" && xargs -d '\n' rm -f --)
    cp -r "$out/." "third_party/$f/"
    find "third_party/$f" -type d -empty -delete
    echo "third-party: third_party/$f rebuilt" >&2
  fi
done
exit $status
