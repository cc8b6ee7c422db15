//go:build wasip1

package main

import (
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
	if len(ev.Result) == 0 || !r.MayHold(ev.Result) {
		return intercept.Answer(intercept.Continue())
	}
	res, err := intercept.ParseResult(ev.Result)
	if err != nil {
		return intercept.Fail(err)
	}
	if !res.EachText(r.Redact) {
		return intercept.Answer(intercept.Continue())
	}
	out, err := intercept.ModifyResult(res)
	if err != nil {
		return intercept.Fail(err)
	}
	return intercept.Answer(out.WithMessage("redacted personal data"))
}
