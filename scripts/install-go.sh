#!/usr/bin/env bash
# Installs the Go toolchain VERSION (e.g. go1.26.8) in $GOROOT_DEST, from
# the Go module proxy: the module golang.org/toolchain@v0.0.1-VERSION.OS-ARCH,
# which is what `GOTOOLCHAIN=VERSION` fetches on Go 1.21 and later. Any `go`
# with modules does the download (Debian 12's golang-go, Go 1.19, cannot
# switch toolchains itself). .ci/run uses it.
#   GOROOT_DEST=/usr/local/go scripts/install-go.sh go1.26.8
set -euo pipefail
v=${1:?usage: GOROOT_DEST=DIR install-go.sh goVERSION}
dest=${GOROOT_DEST:?usage: GOROOT_DEST=DIR install-go.sh goVERSION}

work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" # outside any module: an older go cannot read a newer go.mod
export GOPATH=$work/gopath GOMODCACHE=$work/gopath/pkg/mod GO111MODULE=on GOFLAGS=-mod=mod GOTOOLCHAIN=local
mod="golang.org/toolchain@v0.0.1-$v.$(go env GOOS)-$(go env GOARCH)"
go mod init fetch-toolchain >/dev/null 2>&1
dir=$(go mod download -json "$mod" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
if [[ -z $dir || ! -f $dir/bin/go ]]; then
  echo "install-go.sh: $mod: no toolchain downloaded" >&2
  exit 1
fi
rm -rf "$dest.new"
cp -r "$dir" "$dest.new"
chmod -R u+w "$dest.new"
# Module zips keep no file modes: the commands must be executable again.
chmod +x "$dest.new"/bin/* "$dest.new"/pkg/tool/*/*
rm -rf "$dest"
mv "$dest.new" "$dest"
"$dest/bin/go" version
