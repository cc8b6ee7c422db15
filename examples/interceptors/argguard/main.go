//go:build wasip1

package main

import (
	"github.com/wasmgate/wasmgate/pdk/intercept"
)

//go:wasmexport intercept_request
func interceptRequest() int32 {
	var cfg Config
	if err := intercept.Config(&cfg); err != nil {
		return intercept.Fail(err)
	}
	g, err := NewGuard(cfg)
	if err != nil {
		return intercept.Fail(err)
	}
	ev, err := intercept.Input()
	if err != nil {
		return intercept.Fail(err)
	}
	if ev.Method != "tools/call" {
		return intercept.Answer(intercept.Continue())
	}
	if err := g.Check(ev.Arguments); err != nil {
		return intercept.Answer(intercept.Deny(ev.Name + ": " + err.Error()))
	}
	return intercept.Answer(intercept.Continue())
}
