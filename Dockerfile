# wasmgate in a container: a static binary, the default gateway.yaml and
# the example plugins, run as an unprivileged user.
#
#   docker build --build-arg VERSION=$(git describe --tags --always) \
#                --build-arg COMMIT=$(git rev-parse HEAD) -t wasmgate .
#   docker run --rm -p 127.0.0.1:8080:8080 -p 127.0.0.1:9090:9090 wasmgate
#   docker run --rm -i wasmgate serve --stdio        # an IDE's stdio server
#
# Inside, the listeners bind 0.0.0.0 so that published ports reach them.
# wasmgate refuses a non-loopback MCP listener without authentication, so
# this image sets WASMGATE_AUTH__ALLOW_ANONYMOUS=true: publish the ports on
# 127.0.0.1 as above, or configure auth.principals (docs/auth.md) in your
# own config and unset it (-e WASMGATE_AUTH__ALLOW_ANONYMOUS=false). Serve
# your own plugins by mounting them and a config naming them:
#   docker run -v $PWD/gateway.yaml:/etc/wasmgate/gateway.yaml:ro \
#              -v $PWD/plugins:/plugins:ro ... wasmgate
# `docker kill -s HUP` reloads; saving a mounted file reloads by itself.

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY third_party ./third_party
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
# The example plugins (wasip1), then the gateway: static, no cgo.
RUN bash scripts/build-plugins.sh \
 && CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
      -o /out/wasmgate ./cmd/wasmgate \
 && mkdir -p /out/etc/wasmgate /out/plugins /out/cache \
 && bash scripts/installed-config.sh /usr/share/wasmgate/plugins <configs/gateway.yaml >/out/etc/wasmgate/gateway.yaml \
 && cp examples/plugins/*.wasm /out/plugins/

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/wasmgate /usr/bin/wasmgate
COPY --from=build /out/etc/wasmgate/gateway.yaml /etc/wasmgate/gateway.yaml
COPY --from=build /out/plugins/ /usr/share/wasmgate/plugins/
COPY --from=build --chown=65532:65532 /out/cache /var/cache/wasmgate
COPY LICENSE /usr/share/doc/wasmgate/LICENSE
USER 65532:65532
ENV WASMGATE_CONFIG=/etc/wasmgate/gateway.yaml \
    WASMGATE_SERVER__CACHE_DIR=/var/cache/wasmgate \
    WASMGATE_SERVER__LOG__FORMAT=json \
    WASMGATE_TRANSPORTS__HTTP__LISTEN=0.0.0.0:8080 \
    WASMGATE_ADMIN__LISTEN=0.0.0.0:9090 \
    WASMGATE_AUTH__ALLOW_ANONYMOUS=true
EXPOSE 8080 9090
ENTRYPOINT ["/usr/bin/wasmgate"]
CMD ["serve"]
