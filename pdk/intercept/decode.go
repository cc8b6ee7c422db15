package intercept

import (
	"encoding/json"
	"fmt"
	"strings"

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
		p, err := member(raw, "principal")
		if err != nil {
			return nil, err
		}
		e.Principal.Name, _ = p.String("name")
		if e.Principal.Groups, err = stringsOf(p, "principal.groups"); err != nil {
			return nil, err
		}
	}
	if raw, ok := o.Raw("session"); ok && string(raw) != "null" {
		s, err := member(raw, "session")
		if err != nil {
			return nil, err
		}
		e.Session = &Session{}
		e.Session.ID, _ = s.String("id")
		if e.Session.Labels, err = stringsOf(s, "session.labels"); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// member parses raw, the member name of the input, as an object (with
// package args, as the rest: encoding/json's reflection costs a module
// more than the whole of a small interceptor's work).
func member(raw []byte, name string) (args.Object, error) {
	o, err := args.Parse(raw)
	if err != nil {
		return args.Object{}, fmt.Errorf("decode interceptor input: %s: %w", name, err)
	}
	return o, nil
}

// stringsOf is o's member named as the last element of key, a list of
// strings or null (nil); anything else is an error naming key.
func stringsOf(o args.Object, key string) ([]string, error) {
	name := key[strings.LastIndexByte(key, '.')+1:]
	if !o.Has(name) || o.IsNull(name) {
		return nil, nil
	}
	ss, ok := o.Strings(name)
	if !ok {
		return nil, fmt.Errorf("decode interceptor input: %s: not a list of strings", key)
	}
	return ss, nil
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
