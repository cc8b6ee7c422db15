package intercept

import (
	"encoding/json"
	"fmt"

	"github.com/wasmgate/wasmgate/pdk/args"
)

// DecodeEvent decodes an interceptor's input. Inside a module,
// encoding/json costs far more than anything else a small interceptor
// does, and most of an input is its arguments or result: DecodeEvent
// reads the top-level members with package args, keeps arguments and
// result raw (not decoded, not copied), and decodes only the small
// principal and session with encoding/json.
func DecodeEvent(b []byte) (*Event, error) {
	o, err := args.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("decode interceptor input: %w", err)
	}
	e := &Event{}
	for _, f := range []struct {
		name string
		to   *string
	}{{"phase", &e.Phase}, {"method", &e.Method}, {"endpoint", &e.Endpoint}, {"source", &e.Source}, {"name", &e.Name},
		{"transport", &e.Transport}, {"trace_id", &e.TraceID}} {
		if s, ok := o.String(f.name); ok {
			*f.to = s
		}
	}
	if raw, ok := o.Raw("arguments"); ok && string(raw) != "null" {
		e.Arguments = raw
	}
	if raw, ok := o.Raw("result"); ok && string(raw) != "null" {
		e.Result = raw
	}
	if raw, ok := o.Raw("principal"); ok {
		if err := json.Unmarshal(raw, &e.Principal); err != nil {
			return nil, fmt.Errorf("decode interceptor input: principal: %w", err)
		}
	}
	if raw, ok := o.Raw("session"); ok && string(raw) != "null" {
		e.Session = &Session{}
		if err := json.Unmarshal(raw, e.Session); err != nil {
			return nil, fmt.Errorf("decode interceptor input: session: %w", err)
		}
	}
	return e, nil
}

// continueJSON is the answer of Continue, written without encoding/json.
var continueJSON = []byte(`{"decision":"continue"}`)

// EncodeOutput is out as JSON. Arguments and Result are written as they
// are, not validated and compacted as encoding/json would (inside a
// module that costs more than most interceptors' own work): the gateway
// checks them as it reads the answer.
func EncodeOutput(out Output) ([]byte, error) {
	if out.Decision == DecisionContinue && out.Message == "" && len(out.Arguments) == 0 && len(out.Result) == 0 {
		return continueJSON, nil
	}
	b := make([]byte, 0, len(out.Arguments)+len(out.Result)+len(out.Message)+64)
	d, err := json.Marshal(out.Decision)
	if err != nil {
		return nil, err
	}
	b = append(append(b, `{"decision":`...), d...)
	if out.Message != "" {
		m, err := json.Marshal(out.Message)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"message":`...), m...)
	}
	if len(out.Arguments) > 0 {
		b = append(append(b, `,"arguments":`...), out.Arguments...)
	}
	if len(out.Result) > 0 {
		b = append(append(b, `,"result":`...), out.Result...)
	}
	return append(b, '}'), nil
}
