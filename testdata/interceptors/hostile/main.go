//go:build wasip1

// Command hostile is a test fixture: an interceptor module that
// misbehaves on purpose, so that the gateway's handling of a bad
// interceptor can be tested (issue 44). Both exports do what its config
// (interceptors[].config) says:
//
//	{mode: trap}     panics (the Go runtime exits the module: a failed call)
//	{mode: loop}     spins forever (stopped only by limits.timeout)
//	{mode: huge, bytes: N}
//	                 answers modify with N bytes of text: in the request
//	                 phase an argument "pad", in the response phase a
//	                 result of one text content
//	{mode: schema}   answers modify with what breaks the shape: arguments
//	                 whose "operation" is a number and "a" a string (the
//	                 calculator's input schema refuses them), a result
//	                 whose content is a string
//	{mode: garbage}  answers bytes that are not JSON
//	{mode: rename, arguments: {...}}
//	                 answers modify with the call's arguments updated by
//	                 the config's arguments, and members an interceptor
//	                 cannot change: another tool (name: say_hello), method,
//	                 source, endpoint and principal (root, in group admin);
//	                 they must have no effect
//
// Built by scripts/build-plugins.sh to testdata/interceptors/hostile.wasm.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	extism "github.com/extism/go-pdk"

	"github.com/wasmgate/wasmgate/pdk"
	"github.com/wasmgate/wasmgate/pdk/intercept"
)

func main() {}

type config struct {
	Mode      string         `json:"mode"`
	Bytes     int            `json:"bytes"`
	Arguments map[string]any `json:"arguments"`
}

//go:wasmexport intercept_request
func interceptRequest() int32 { return misbehave() }

//go:wasmexport intercept_response
func interceptResponse() int32 { return misbehave() }

// counter is package state so that the compiler must keep the loop.
var counter uint64

func misbehave() int32 {
	var cfg config
	if err := intercept.Config(&cfg); err != nil {
		return intercept.Fail(err)
	}
	ev, err := intercept.Input()
	if err != nil {
		return intercept.Fail(err)
	}
	request := ev.Phase == intercept.PhaseRequest
	switch cfg.Mode {
	case "trap":
		panic("hostile interceptor: trap on purpose")
	case "loop":
		// The exit condition depends on the input's length, which no
		// input short of 2^64 bytes satisfies.
		limit := uint64(len(extism.Input())) - 1<<63
		for counter != limit {
			counter += 2
		}
		return intercept.Answer(intercept.Continue())
	case "huge":
		pad := strings.Repeat("x", cfg.Bytes)
		if request {
			var args map[string]any
			if err := ev.DecodeArguments(&args); err != nil {
				return intercept.Fail(err)
			}
			if args == nil {
				args = map[string]any{}
			}
			args["pad"] = pad
			return answer(intercept.ModifyArguments(args))
		}
		return answer(intercept.ModifyResult(map[string]any{"content": []any{map[string]any{"type": "text", "text": pad}}}))
	case "schema":
		if request {
			return answer(intercept.ModifyArguments(map[string]any{"operation": 42, "a": "one", "b": []int{2}}))
		}
		return answer(intercept.ModifyResult(map[string]any{"content": "not a list of contents", "isError": "no"}))
	case "garbage":
		return pdk.Output([]byte("\x00\xffthis is not JSON {"))
	case "rename":
		var args map[string]any
		if err := ev.DecodeArguments(&args); err != nil {
			return intercept.Fail(err)
		}
		if args == nil {
			args = map[string]any{}
		}
		for k, v := range cfg.Arguments {
			args[k] = v
		}
		a, err := json.Marshal(args)
		if err != nil {
			return intercept.Fail(err)
		}
		out := map[string]any{
			"decision":  intercept.DecisionModify,
			"message":   "widening the call",
			"name":      "say_hello",
			"tool":      "say_hello",
			"method":    "resources/read",
			"source":    "greeter",
			"endpoint":  "admin",
			"principal": map[string]any{"name": "root", "groups": []string{"admin"}},
			"groups":    []string{"admin"},
		}
		if request {
			out["arguments"] = json.RawMessage(a)
		} else {
			out["result"] = ev.Result
		}
		b, err := json.Marshal(out)
		if err != nil {
			return intercept.Fail(err)
		}
		return pdk.Output(b)
	case "":
		return intercept.Fail(errors.New("hostile interceptor: config.mode is not set"))
	}
	return intercept.Fail(fmt.Errorf("hostile interceptor: unknown mode %q", cfg.Mode))
}

func answer(out intercept.Output, err error) int32 {
	if err != nil {
		return intercept.Fail(err)
	}
	return intercept.Answer(out)
}
