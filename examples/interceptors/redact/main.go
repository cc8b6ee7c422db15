//go:build wasip1

package main

import (
	"strings"

	"github.com/wasmgate/wasmgate/pdk/intercept"
)

//go:wasmexport intercept_response
func interceptResponse() int32 {
	var cfg Config
	if err := intercept.Config(&cfg); err != nil {
		return intercept.Fail(err)
	}
	r, err := NewRedactor(cfg.Patterns)
	if err != nil {
		return intercept.Fail(err)
	}
	ev, err := intercept.Input()
	if err != nil {
		return intercept.Fail(err)
	}
	// Lists (tools/list, ...) are left as they are: their descriptions
	// are the servers' own, pinned by the lock file.
	if len(ev.Result) == 0 || strings.HasSuffix(ev.Method, "/list") || !r.MayHold(ev.Result) {
		return intercept.Answer(intercept.Continue())
	}
	res, changed, err := r.RedactJSON(ev.Result)
	if err != nil {
		return intercept.Fail(err)
	}
	if !changed {
		return intercept.Answer(intercept.Continue())
	}
	out := intercept.Output{Decision: intercept.DecisionModify, Result: res}
	return intercept.Answer(out.WithMessage("redacted personal data"))
}
