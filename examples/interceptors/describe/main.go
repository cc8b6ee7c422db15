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
	rw, err := NewRewriter(cfg)
	if err != nil {
		return intercept.Fail(err)
	}
	ev, err := intercept.Input()
	if err != nil {
		return intercept.Fail(err)
	}
	if len(ev.Result) == 0 {
		return intercept.Answer(intercept.Continue())
	}
	res, err := intercept.ParseResult(ev.Result)
	if err != nil {
		return intercept.Fail(err)
	}
	key, entries := res.Entries()
	if key == "" {
		return intercept.Answer(intercept.Continue())
	}
	kept, changed := rw.Rewrite(entries)
	if !changed {
		return intercept.Answer(intercept.Continue())
	}
	res.SetEntries(key, kept)
	out, err := intercept.ModifyResult(res)
	if err != nil {
		return intercept.Fail(err)
	}
	return intercept.Answer(out)
}
