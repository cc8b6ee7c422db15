//go:build wasip1

package main

import (
	"fmt"

	"github.com/wasmgate/wasmgate/pdk/intercept"
)

//go:wasmexport intercept_response
func interceptResponse() int32 {
	var cfg Config
	if err := intercept.Config(&cfg); err != nil {
		return intercept.Fail(err)
	}
	mode, err := ParseMode(cfg.Mode)
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
	found := ""
	for _, t := range res.Texts() {
		if found = Find(t); found != "" {
			break
		}
	}
	if found == "" {
		return intercept.Answer(intercept.Continue())
	}
	msg := fmt.Sprintf("possible prompt injection in the result of %s: %q", ev.Name, found)
	switch mode {
	case Deny:
		return intercept.Answer(intercept.Deny(msg))
	case Strip:
		res.EachText(StripSentences)
	default:
		if !res.PrependText(Warning) {
			// A resource's contents: warn in each text that holds a
			// marker.
			res.EachText(func(s string) string {
				if Find(s) == "" {
					return s
				}
				return Warning + "\n" + s
			})
		}
	}
	out, err := intercept.ModifyResult(res)
	if err != nil {
		return intercept.Fail(err)
	}
	return intercept.Answer(out.WithMessage(msg))
}
