# wasmgate — the two commands are `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
CONFIG ?= configs/gateway.yaml
BENCH_DURATION ?= 5s

.PHONY: all build plugins run test test-go test-wazero node-deps bench fuzz validate clean

all: build

## plugins: build every example plugin and test fixture (*.wasm)
plugins:
	@bash scripts/build-plugins.sh

## build: the plugins and bin/wasmgate
build: plugins
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/wasmgate ./cmd/wasmgate

## run: build everything and serve the default config
run: build
	./bin/wasmgate serve --config $(CONFIG)

## validate: check the default config and its plugins
validate: build
	./bin/wasmgate validate --config $(CONFIG)

## node-deps: the official TypeScript SDK for the outside-client tests
node-deps: tests/node/node_modules/.package-lock.json

tests/node/node_modules/.package-lock.json: tests/node/package.json tests/node/package-lock.json
	npm ci --prefix tests/node --no-audit --no-fund

## test: every test, with the race detector
# The fairness test measures throughput, and the termination tests measure
# how soon a runaway guest is stopped, so they run on their own after the
# rest (go test runs packages in parallel).
ALONE_TESTS := TestSpinningPluginDoesNotStarveOthers|TestRunawayStoppedAtTimeout|TestGCWhileRunaway
test: plugins node-deps
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 20m -skip '^($(ALONE_TESTS))$$' ./...
	$(GO) test -race -count=1 -timeout 5m -p 1 -run '^($(ALONE_TESTS))$$' ./cmd/wasmgate ./loader

## test-wazero: the patched wazero's own tests (engines, spec suites,
## integration), also with termination checks forced on for every module;
## not part of `make test` (see third_party/wazero/PATCHES.md)
test-wazero:
	@bash scripts/test-wazero.sh

## bench: tools/call throughput and latency over Streamable HTTP
bench: build
	$(GO) build -o bin/mcpbench ./cmd/mcpbench
	@bash scripts/bench.sh $(BENCH_DURATION)

## fuzz: run each fuzz target for FUZZTIME (default 30s)
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./loader -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME)
	$(GO) test ./loader/abi -run '^$$' -fuzz '^FuzzURITemplate$$' -fuzztime $(FUZZTIME)
	$(GO) test ./gateway -run '^$$' -fuzz '^FuzzValidateArgs$$' -fuzztime $(FUZZTIME)
	$(GO) test ./policy -run '^$$' -fuzz '^FuzzGlob$$' -fuzztime $(FUZZTIME)
	$(GO) test ./policy -run '^$$' -fuzz '^FuzzPolicy$$' -fuzztime $(FUZZTIME)
	$(GO) test ./gateway -run '^$$' -fuzz '^FuzzHTTPRequest$$' -fuzztime $(FUZZTIME)
	$(GO) test ./pdk/args -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)

clean:
	rm -rf bin
	find examples/plugins testdata/plugins -name '*.wasm' -delete
