# wasmgate — the two commands are `make run` and `make test`.
SHELL := /bin/bash
GO ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
CONFIG ?= configs/gateway.yaml
BENCH_DURATION ?= 5s

.PHONY: all build plugins run test test-go test-wazero third-party check-third-party test-packaging check-dashboard node-deps bench bench-relay bench-policy bench-storm bench-upstream bench-tracing bench-state bench-endpoints bench-search bench-identity bench-flows bench-interceptors bench-scale bench-peers cluster cluster-restart fuzz validate conformance conformance-endpoint clean install dist

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

## node-deps: the official TypeScript SDK for the outside-client tests, and the npm MCP servers of the upstream and tool-search tests
node-deps: tests/node/node_modules/.package-lock.json

# server-puppeteer's puppeteer would download a browser at install time;
# the catalog tests only list its tools, so no browser is fetched.
tests/node/node_modules/.package-lock.json: tests/node/package.json tests/node/package-lock.json
	PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1 npm ci --prefix tests/node --no-audit --no-fund

## test: every test, with the race detector
# The fairness test measures throughput, and the termination tests measure
# how soon a runaway guest is stopped, so they run on their own after the
# rest (go test runs packages in parallel). The end-to-end tests of
# cmd/wasmgate mostly wait (on gateways, npm servers, Chromium, timers),
# and all but the few that say why not are t.Parallel: TEST_PARALLEL of
# them run at once, whatever the number of cores (go test's -parallel
# default is GOMAXPROCS).
ALONE_TESTS := TestSpinningPluginDoesNotStarveOthers|TestRunawayStoppedAtTimeout|TestGCWhileRunaway
TEST_PARALLEL ?= 4
test: plugins node-deps
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 40m -parallel $(TEST_PARALLEL) -skip '^($(ALONE_TESTS))$$' ./...
	$(GO) test -race -count=1 -timeout 5m -p 1 -run '^($(ALONE_TESTS))$$' ./cmd/wasmgate ./loader

## third-party: rebuild third_party/<fork> (mcp-go, wazero, extism-go-sdk)
## in place from its release and the diffs in third_party/<fork>/patches/
## (scripts/third-party.sh; FORKS= names some, e.g. FORKS=mcp-go)
third-party:
	@bash scripts/third-party.sh $(FORKS)

## check-third-party: rebuild the forks in a scratch directory and compare
## them with third_party/; fails naming the files that differ, or the
## patch that does not apply; then runs the tests the patches add to mcp-go
check-third-party:
	@bash scripts/third-party.sh --check $(FORKS)

## test-wazero: the patched wazero's own tests (engines, spec suites,
## integration), also with termination checks forced on for every module;
## not part of `make test` (see third_party/wazero/PATCHES.md)
test-wazero:
	@bash scripts/test-wazero.sh

## test-wazero-arm64: the patched wazero's arm64 backend and engine tests,
## cross-compiled and run under qemu-user (qemu-aarch64; apt-get install
## qemu-user), also with termination checks forced on (.ci/run runs its
## --quick part: the backend and the compiler engine)
.PHONY: test-wazero-arm64
test-wazero-arm64:
	@bash scripts/test-wazero-arm64.sh

## test-packaging: make dist and make install checked, the .deb installed
## on this machine (root) and its unit checked with systemd-analyze
test-packaging: plugins
	TEST_PACKAGING=1 $(GO) test -count=1 -timeout 40m -run '^TestPackaging$$' ./cmd/wasmgate

## check-dashboard: Debian's prometheus (/usr/bin/prometheus) scrapes a
## gateway under load; every query of examples/grafana/wasmgate.json and
## every alert of configs/prometheus/alerts.yml is evaluated against it
## (TestDashboardQueries, also part of `make test`)
check-dashboard: plugins
	$(GO) test -count=1 -timeout 5m -run '^TestDashboardQueries$$' ./cmd/wasmgate

## conformance: the official MCP conformance suite (@modelcontextprotocol/conformance,
## tests/conformance) against the gateway serving testdata/plugins/conformance;
## every active server scenario must pass, directly, through a second
## gateway that has the first as a shared HTTP upstream (--proxied), and
## against a non-default endpoint (conformance-endpoint). Needs npm;
## fetches Node 22 when the system's node is older.
conformance: build
	@bash scripts/conformance.sh
	@bash scripts/conformance.sh --proxied
	@bash scripts/conformance.sh --endpoint /mcp/all

## conformance-endpoint: the conformance suite against the second of two
## endpoints (/mcp/all, selecting every source; the first serves one tool)
conformance-endpoint: build
	@bash scripts/conformance.sh --endpoint /mcp/all

## bench: tools/call throughput and latency over Streamable HTTP, then
## the policy, upstream, tracing, shared-state, endpoints, tool search and
## per-caller identity figures (each also alone below)
bench: build
	$(GO) build -o bin/mcpbench ./cmd/mcpbench
	$(GO) build -o bin/searchbench ./cmd/searchbench
	$(GO) build -o bin/identitybench ./cmd/identitybench
	cd bench/stock && $(GO) build -o ../../bin/mcpstock .
	@bash scripts/bench.sh $(BENCH_DURATION)
	@bash scripts/bench-policy.sh $(BENCH_DURATION)
	@bash scripts/bench-upstream.sh $(BENCH_DURATION)
	@bash scripts/bench-tracing.sh $(BENCH_DURATION)
	@bash scripts/bench-state.sh $(BENCH_DURATION)
	@bash scripts/bench-endpoints.sh $(BENCH_DURATION)
	@bash scripts/bench-search.sh
	@bash scripts/bench-identity.sh $(BENCH_DURATION)
	@bash scripts/bench-flows.sh $(BENCH_DURATION)
	@bash scripts/bench-interceptors.sh $(BENCH_DURATION)

## bench-identity: each caller's identity toward an HTTP upstream (issue
## 42): tools/call at 16 JWT callers with a static bearer against each
## caller's cached exchanged token (RFC 8693, a real OpenID provider),
## then a cache miss against one token endpoint round trip (ROUNDS,
## CLIENTS, RTT_N: the script)
bench-identity: build
	$(GO) build -o bin/mcpbench ./cmd/mcpbench
	$(GO) build -o bin/identitybench ./cmd/identitybench
	@bash scripts/bench-identity.sh $(BENCH_DURATION)

## bench-flows: flow control (issue 43): the CPU a call pays with a
## trifecta rule in memory, and the Redis round trips per call on Redis.
bench-flows: build
	@bash scripts/bench-flows.sh $(BENCH_DURATION)

## bench-interceptors: interceptors (issue 44): a no-op Go and WAT
## interceptor on every call, and the redact example over 10 KiB.
bench-interceptors: build
	@bash scripts/bench-interceptors.sh $(BENCH_DURATION)

## bench-scale: scale (issue 46): a start with 20 upstreams that take 5 s
## each to answer initialize, without and with the catalogs a previous
## run kept; memory per idle session with 10,000 of them, without and with
## a per_client upstream session each, beside the floor (a net/http-only
## server) measured the same way; calls at 16 clients with 10,000 idle
## sessions against none (UPSTREAMS, DELAY, ROUNDS, SESSIONS, QUIET,
## CALLS_CLIENTS, CALLS_DURATION: the script)
bench-scale: build
	@bash scripts/bench-scale.sh
## bench-peers: wasmgate against the proxies that run here (issue 46): npm's
## supergateway and mcp-proxy (bench/peers, installed by npm ci), Go's
## httputil.ReverseProxy and the upstream called directly, over stdio
## and HTTP at 1 and 16 clients, in turns (ROUNDS, CLIENTS: the script)
bench-peers: build bench/peers/node_modules/.package-lock.json
	$(GO) build -o bin/mcpbench ./cmd/mcpbench
	@bash scripts/bench-peers.sh $(BENCH_DURATION)

bench/peers/node_modules/.package-lock.json: bench/peers/package.json bench/peers/package-lock.json
	npm ci --prefix bench/peers --no-audit --no-fund

## bench-search: tool search (issue 41): find_tools, tools/call and
## call_tool over HTTP at 1 client against a 10,000-tool synthetic
## upstream, start, reload and memory in mode search against mode all;
## the index's in-process figures and recall (go test -bench
## ./gateway/search); the tools/list bytes of the testdata catalog in
## mode all against mode search (ROUNDS, CALLS, PARTS: the script)
bench-search: build
	$(GO) build -o bin/searchbench ./cmd/searchbench
	@bash scripts/bench-search.sh

## bench-upstream: tools/call proxied to an upstream MCP server (mcp-go's
## own, native handler) over HTTP and stdio, against calling it directly
bench-upstream: build
	$(GO) build -o bin/mcpbench ./cmd/mcpbench
	@bash scripts/bench-upstream.sh $(BENCH_DURATION)

## bench-tracing: the same load with tracing off, sample_ratio 0 and 1
## (to a local OTLP sink), alternating (ROUNDS, default 3); ratios to off
bench-tracing: build
	$(GO) build -o bin/mcpbench ./cmd/mcpbench
	@bash scripts/bench-tracing.sh $(BENCH_DURATION)

## bench-state: state.backend redis against memory (calculate, set-storage,
## a rate-limited call) at 16 clients, with Redis round trips per call
bench-state: build
	$(GO) build -o bin/mcpbench ./cmd/mcpbench
	@bash scripts/bench-state.sh $(BENCH_DURATION)

## bench-endpoints: calls on one of ten endpoints against a gateway with
## one, in turns (ROUNDS, default 3) at 16 clients; then a reload with ten
## endpoints against one (go test -bench BenchmarkReloadEndpoints ./gateway)
bench-endpoints: build
	$(GO) build -o bin/mcpbench ./cmd/mcpbench
	@bash scripts/bench-endpoints.sh $(BENCH_DURATION)

## cluster: three replicas behind HAProxy (round robin) with Redis, on this
## machine (configs/cluster/); Ctrl-C stops them all
cluster: build
	@bash scripts/cluster.sh

## cluster-restart: start replica R (1, 2 or 3) of the running make cluster
## again, e.g. after it was killed: make cluster-restart R=2
cluster-restart:
	@bash scripts/cluster.sh restart $(R)

## bench-relay: tools/call through the browser relay to the demo page in headless Chromium
bench-relay: build
	$(GO) build -o bin/mcpbench ./cmd/mcpbench
	@bash scripts/bench-relay.sh $(BENCH_DURATION)

## bench-policy: the same load without auth, with auth, policy, rate limits
## and audit, and with only the token sent, rotating (ROUNDS, default 2)
bench-policy: build
	$(GO) build -o bin/mcpbench ./cmd/mcpbench
	@bash scripts/bench-policy.sh $(BENCH_DURATION)

## bench-storm: calls under ~9 config saves a second, changing a limit or
## removing and restoring a plugin, against no saves (issue 21, item 9)
bench-storm: build
	$(GO) build -o bin/mcpbench ./cmd/mcpbench
	@bash scripts/bench-storm.sh $(BENCH_DURATION)

## fuzz: run each fuzz target for FUZZTIME (default 30s)
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./loader -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME)
	$(GO) test ./loader -run '^$$' -fuzz '^FuzzSelection$$' -fuzztime $(FUZZTIME)
	$(GO) test ./loader/abi -run '^$$' -fuzz '^FuzzURITemplate$$' -fuzztime $(FUZZTIME)
	$(GO) test ./loader/abi -run '^$$' -fuzz '^FuzzURITemplateOverlap$$' -fuzztime $(FUZZTIME)
	$(GO) test ./loader/lockfile -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./gateway/source -run '^$$' -fuzz '^FuzzValidateArgs$$' -fuzztime $(FUZZTIME)
	$(GO) test ./gateway/source -run '^$$' -fuzz '^FuzzFlatSchema$$' -fuzztime $(FUZZTIME)
	$(GO) test ./relay -run '^$$' -fuzz '^FuzzDecodeFrame$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/glob -run '^$$' -fuzz '^FuzzGlob$$' -fuzztime $(FUZZTIME)
	$(GO) test ./policy -run '^$$' -fuzz '^FuzzPolicy$$' -fuzztime $(FUZZTIME)
	$(GO) test ./policy -run '^$$' -fuzz '^FuzzFastCondition$$' -fuzztime $(FUZZTIME)
	$(GO) test ./gateway -run '^$$' -fuzz '^FuzzHTTPRequest$$' -fuzztime $(FUZZTIME)
	$(GO) test ./gateway -run '^$$' -fuzz '^FuzzFastCall$$' -fuzztime $(FUZZTIME)
	$(GO) test ./gateway/roundtrip -run '^$$' -fuzz '^FuzzOpen$$' -fuzztime $(FUZZTIME)
	$(GO) test ./pdk/args -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/canon -run '^$$' -fuzz '^FuzzArgs$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/canon -run '^$$' -fuzz '^FuzzFlat$$' -fuzztime $(FUZZTIME)
	$(GO) test ./internal/canon -run '^$$' -fuzz '^FuzzFlatValue$$' -fuzztime $(FUZZTIME)
	$(GO) test ./gateway/ops -run '^$$' -fuzz '^FuzzAuditLine$$' -fuzztime $(FUZZTIME)
	$(GO) test ./gateway/search -run '^$$' -fuzz '^FuzzSearch$$' -fuzztime $(FUZZTIME)
	$(GO) test ./auth/vault -run '^$$' -fuzz '^FuzzOpen$$' -fuzztime $(FUZZTIME)
	$(GO) test ./auth/upstreamauth -run '^$$' -fuzz '^FuzzTopLevelString$$' -fuzztime $(FUZZTIME)
	$(GO) test ./flow -run '^$$' -fuzz '^FuzzResetHandler$$' -fuzztime $(FUZZTIME)
	$(GO) test ./state -run '^$$' -fuzz '^FuzzDecodeTaint$$' -fuzztime $(FUZZTIME)

## install: the binary, the unit, /etc/wasmgate/gateway.yaml and the
## example plugins, under DESTDIR (staging) and PREFIX (default /usr/local)
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SYSCONFDIR ?= /etc
DATADIR ?= $(PREFIX)/share/wasmgate
DOCDIR ?= $(PREFIX)/share/doc/wasmgate
UNITDIR ?= $(PREFIX)/lib/systemd/system
# The binary to install: bin/wasmgate by default (make dist installs the
# cross-compiled ones into the package trees).
INSTALL_BIN ?= bin/wasmgate
DOCS := README.md CHANGELOG.md LICENSE docs/operations.md docs/config.md docs/plugins.md docs/reload.md docs/metrics.md docs/policy.md docs/relay-protocol.md docs/ARCHITECTURE.md docs/endpoints.md docs/perf.md docs/scale-out.md docs/trust.md docs/flows.md docs/upstreams.md docs/interceptors.md docs/apps-and-skills.md
install: $(if $(filter bin/wasmgate,$(INSTALL_BIN)),build,plugins)
	BINDIR='$(BINDIR)' SYSCONFDIR='$(SYSCONFDIR)' DATADIR='$(DATADIR)' DOCDIR='$(DOCDIR)' UNITDIR='$(UNITDIR)' \
	  DESTDIR='$(DESTDIR)' BIN='$(INSTALL_BIN)' DOCS='$(DOCS)' bash scripts/install.sh

## dist: release archives for linux and darwin on amd64 and arm64, Debian
## packages for linux, and SHA256SUMS, in dist/
DIST_TARGETS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
NFPM ?= $(GO) run github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
dist: plugins
	VERSION='$(VERSION)' COMMIT='$(COMMIT)' TARGETS='$(DIST_TARGETS)' NFPM='$(NFPM)' GO='$(GO)' DOCS='$(DOCS)' \
	  bash scripts/dist.sh

clean:
	rm -rf bin dist
	find examples/plugins examples/rankers examples/interceptors testdata/plugins testdata/interceptors -name '*.wasm' -delete
