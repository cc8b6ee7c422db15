#!/usr/bin/env bash
# Builds release artifacts in dist/ (called by `make dist`):
#   wasmgate_<version>_<os>_<arch>.tar.gz   for each of $TARGETS: the static
#       binary, gateway.yaml with the example plugins in plugins/, the
#       systemd unit, LICENSE, README, CHANGELOG and docs/
#   wasmgate_<debversion>_<arch>.deb        for each linux target (nfpm)
#   SHA256SUMS                              of all of the above
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

: "${VERSION:?}" "${COMMIT:?}" "${TARGETS:?}" "${NFPM:?}"
GO=${GO:-go}
DOCS=${DOCS:-README.md LICENSE}
ldflags="-s -w -X main.version=$VERSION -X main.commit=$COMMIT"

# The Debian version (scripts/debversion.sh): the tag, or for an untagged
# build 0.0.0~git<date>.<hash>, which dpkg orders before any release.
debver=$(bash scripts/debversion.sh "$VERSION" "$COMMIT")

rm -rf dist
mkdir -p dist
for target in $TARGETS; do
  os=${target%/*} arch=${target#*/}
  name="wasmgate_${VERSION}_${os}_${arch}"
  stage="dist/$name"
  echo "build $name"
  mkdir -p "$stage/plugins" "$stage/docs"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$GO" build -trimpath -ldflags "$ldflags" -o "$stage/wasmgate" ./cmd/wasmgate
  cp examples/plugins/*.wasm "$stage/plugins/"
  bash scripts/installed-config.sh ./plugins <configs/gateway.yaml >"$stage/gateway.yaml"
  cp configs/wasmgate.service "$stage/"
  for doc in $DOCS; do
    case $doc in
      docs/*) cp "$doc" "$stage/docs/" ;;
      *) cp "$doc" "$stage/" ;;
    esac
  done
  tar -C dist --owner=0 --group=0 --numeric-owner -czf "dist/$name.tar.gz" "$name"

  if [[ $os == linux ]]; then
    root="dist/debroot-$arch"
    make --no-print-directory install DESTDIR="$root" PREFIX=/usr INSTALL_BIN="$stage/wasmgate" >/dev/null
    echo "package wasmgate_${debver}_${arch}.deb"
    sed -e "s|\${ROOT}|$root|g" -e "s|\${DEB_ARCH}|$arch|g" -e "s|\${DEB_VERSION}|$debver|g" \
      packaging/nfpm.yaml >"dist/nfpm-$arch.yaml"
    $NFPM package --config "dist/nfpm-$arch.yaml" --packager deb --target "dist/wasmgate_${debver}_${arch}.deb"
    rm -f "dist/nfpm-$arch.yaml"
    rm -rf "$root"
  fi
  rm -rf "$stage"
done
(cd dist && sha256sum -- *.tar.gz *.deb >SHA256SUMS)
cat dist/SHA256SUMS
