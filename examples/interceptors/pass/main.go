//go:build wasip1

package main

import (
	"github.com/wasmgate/wasmgate/pdk/intercept"
)

//go:wasmexport intercept_request
func interceptRequest() int32 {
	if _, err := intercept.Input(); err != nil {
		return intercept.Fail(err)
	}
	return intercept.Answer(intercept.Continue())
}

//go:wasmexport intercept_response
func interceptResponse() int32 {
	if _, err := intercept.Input(); err != nil {
		return intercept.Fail(err)
	}
	return intercept.Answer(intercept.Continue())
}
