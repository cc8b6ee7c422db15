package main

// The files of `wasmgate plugin new --interceptor NAME`: a Go interceptor
// (docs/interceptors.md) built on the pdk/intercept package, with the
// go.mod, go.sum and kit of the plugin scaffold (scaffold.go).

const scaffoldInterceptorMain = `//go:build wasip1

// Command [[.Name]] is a wasmgate interceptor: the gateway runs
// intercept_request before a call's source and intercept_response on its
// result, and each answers continue, deny or modify. Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o [[.Name]].wasm .
//
// (or make). docs/interceptors.md in wasmgate describes the input, the
// answers and what the gateway checks of a modification.
package main

import (
	"slices"

	"github.com/wasmgate/wasmgate/pdk/intercept"
)

func main() {}

// Config is this interceptor's config: section in gateway.yaml, given to
// the module as JSON.
type Config struct {
	// Deny are tools this interceptor refuses: an example to replace
	// with your own decision.
	Deny []string ` + "`" + `json:"deny"` + "`" + `
}

// interceptRequest sees a call before its source runs: ev.Method, ev.Name
// (the tool), ev.Arguments, ev.Principal. It may deny the call, or modify
// its arguments (intercept.ModifyArguments), which the gateway checks
// against the tool's input schema again.
//
//go:wasmexport intercept_request
func interceptRequest() int32 {
	var cfg Config
	if err := intercept.Config(&cfg); err != nil {
		return intercept.Fail(err)
	}
	ev, err := intercept.Input()
	if err != nil {
		return intercept.Fail(err)
	}
	if slices.Contains(cfg.Deny, ev.Name) {
		return intercept.Answer(intercept.Deny("[[.Name]]: " + ev.Name + " is not allowed here"))
	}
	return intercept.Answer(intercept.Continue())
}

// interceptResponse sees a result before the client does: ev.Result.
// intercept.ParseResult(ev.Result) reads it; its EachText rewrites every
// text the model reads, and intercept.ModifyResult returns the new result.
// Answer continue when nothing changed.
//
//go:wasmexport intercept_response
func interceptResponse() int32 {
	ev, err := intercept.Input()
	if err != nil {
		return intercept.Fail(err)
	}
	// To change what the model reads:
	//
	//	res, err := intercept.ParseResult(ev.Result)
	//	if err != nil {
	//		return intercept.Fail(err)
	//	}
	//	if res.EachText(func(s string) string { return strings.ReplaceAll(s, "secret", "[hidden]") }) {
	//		out, err := intercept.ModifyResult(res)
	//		if err != nil {
	//			return intercept.Fail(err)
	//		}
	//		return intercept.Answer(out)
	//	}
	_ = ev
	return intercept.Answer(intercept.Continue())
}
`

const scaffoldInterceptorMakefile = `# [[.Name]]: a wasmgate interceptor. make builds [[.Name]].wasm with the
# standard Go toolchain; make validate loads it in wasmgate.
# WASMGATE is the wasmgate on PATH; make WASMGATE=/path/to/wasmgate for another.
WASMGATE ?= wasmgate
GO ?= go

[[.Name]].wasm: main.go go.mod $(wildcard [[.Kit]]/*/*.go [[.Kit]]/*/*/*.go)
	GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -trimpath -o $@ .

.PHONY: validate serve clean
validate: [[.Name]].wasm
	$(WASMGATE) validate --config gateway.yaml

serve: [[.Name]].wasm
	$(WASMGATE) serve --config gateway.yaml

clean:
	rm -f [[.Name]].wasm
`

const scaffoldInterceptorConfig = `# Runs this interceptor: wasmgate serve --config gateway.yaml (or make
# serve). Add the plugins or upstreams whose calls it should see, or copy
# the interceptors entry into your own gateway.yaml (docs/interceptors.md).
# Saving this file or rebuilding the module reloads the running gateway.
# The ports were free when ` + "`wasmgate plugin new`" + ` ran (--port chooses them).
transports:
  http:
    listen: 127.0.0.1:[[.HTTPPort]]
admin:
  listen: 127.0.0.1:[[.AdminPort]]       # status page: http://127.0.0.1:[[.AdminPort]]/
interceptors:
  - name: [[.Name]]
    path: ./[[.Name]].wasm
    on: [tools/call]                   # also resources/read, prompts/get, tools/list, ...
    phase: both                        # request | response | both
    failure: closed                    # closed: a failing interceptor fails the call; open: it goes on
    limits:
      timeout: 100ms
    config:
      deny: []                         # tools it refuses (main.go, Config)
`

const scaffoldInterceptorReadme = "# [[.Name]]\n\n" +
	"A [wasmgate](https://github.com/wasmgate/wasmgate) interceptor, created by `wasmgate plugin new --interceptor [[.Name]]`:\n" +
	"`intercept_request` sees each call before its source runs, `intercept_response` its result\n" +
	"before the client does; each answers continue, deny or modify (wasmgate's docs/interceptors.md).\n\n" +
	"```sh\n" +
	"make              # GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o [[.Name]].wasm .\n" +
	"make validate     # wasmgate validate --config gateway.yaml\n" +
	"make serve        # a gateway on http://127.0.0.1:[[.HTTPPort]]/mcp with this interceptor\n" +
	"```\n\n" +
	"`gateway.yaml` has the interceptor's entry (`interceptors:`): add the plugins or upstreams\n" +
	"whose calls it should see, or copy the entry into your own gateway.yaml. Its `config:`\n" +
	"reaches `main.go` as JSON (`intercept.Config`).\n\n" +
	"The Makefile runs the `wasmgate` on PATH; `make WASMGATE=/path/to/wasmgate validate` runs another.\n\n" +
	"`[[.Kit]]/` is a copy of wasmgate's `pdk` and `pdk/intercept` packages (and the\n" +
	"`wire` package they use), taken from wasmgate [[.Version]]; `go.mod` points\n" +
	"`github.com/wasmgate/wasmgate` at it, so the project builds with nothing but\n" +
	"the Go module proxy (for `[[.GoPDK]]`).\n"
