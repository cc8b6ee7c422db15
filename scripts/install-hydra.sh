#!/usr/bin/env bash
# Installs ORY Hydra v2.3.0 (the authorization server the per-user OAuth
# tests start, internal/oauthtest) as $(go env GOPATH)/bin/hydra, built
# from its module on the Go module proxy. `go install
# github.com/ory/hydra/v2@v2.3.0` refuses the module: its go.mod has
# replace directives, one of them to ./internal/httpclient, a nested module
# its zip leaves out. So the module is downloaded, that replace dropped
# (the published github.com/ory/hydra-client-go/v2 v2.2.1 it stands for
# builds), and it is built with SQLite (cgo: gcc), which its in-memory
# database (dsn: memory) needs. .ci/run uses it; skipped when hydra is
# there already. Cold (empty module and build caches) it took 7 minutes
# here on 2 cores shared with other builds (download 20 s, build 415 s
# wall, 244 s user); the binary is 59 MB.
#   bash scripts/install-hydra.sh
set -euo pipefail
v=v2.3.0
bin=$(go env GOPATH)/bin/hydra
if [[ -x $bin ]] && "$bin" version 2>/dev/null | grep -q "$v"; then
  echo "install-hydra.sh: $bin is $v already"
  exit 0
fi
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" # outside any module
dir=$(GOFLAGS=-mod=mod go mod download -json "github.com/ory/hydra/v2@$v" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
if [[ -z $dir || ! -f $dir/go.mod ]]; then
  echo "install-hydra.sh: github.com/ory/hydra/v2@$v: nothing downloaded" >&2
  exit 1
fi
cp -r "$dir" src
chmod -R u+w src
cd src
go mod edit -dropreplace github.com/ory/hydra-client-go/v2
mkdir -p "$(dirname "$bin")"
CGO_ENABLED=1 GOFLAGS=-mod=mod go build -trimpath \
  -tags sqlite,sqlite_omit_load_extension \
  -ldflags "-X github.com/ory/hydra/v2/driver/config.Version=$v" \
  -o "$bin" .
"$bin" version
