package intercept

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/loader"
)

// fake answers out (or err) and records the arguments and result it saw.
type fake struct {
	out  *Output
	err  error
	seen []string
}

func (f *fake) Intercept(_ context.Context, in *Input) (*Output, error) {
	f.seen = append(f.seen, string(in.Arguments)+"|"+string(in.Result))
	return f.out, f.err
}

func spec(name, phase, failure string, on ...string) loader.InterceptorSpec {
	if len(on) == 0 {
		on = []string{"tools/call"}
	}
	return loader.InterceptorSpec{Name: name, Phase: phase, Failure: failure, On: on}
}

func chainOf(entries ...*entry) *Chain { return &Chain{list: entries} }

func TestChainOrderAndModify(t *testing.T) {
	var order []string
	mk := func(name string, out *Output) *entry {
		f := &fake{out: out}
		return &entry{spec: spec(name, loader.PhaseBoth, loader.FailureClosed), ic: interceptorFunc(func(ctx context.Context, in *Input) (*Output, error) {
			order = append(order, name+":"+in.Phase)
			return f.Intercept(ctx, in)
		})}
	}
	c := chainOf(
		mk("a", &Output{Decision: Modify, Arguments: json.RawMessage(`{"x":1}`), Result: json.RawMessage(`{"content":[]}`)}),
		mk("b", &Output{Decision: Continue}),
	)
	v := c.Run(context.Background(), &Input{Phase: PhaseRequest, Method: "tools/call", Arguments: json.RawMessage(`{"x":0}`)}, nil)
	if v.Denied || string(v.Arguments) != `{"x":1}` {
		t.Errorf("request: %+v", v)
	}
	v = c.Run(context.Background(), &Input{Phase: PhaseResponse, Method: "tools/call", Result: json.RawMessage(`{"content":[{"type":"text","text":"x"}]}`)}, nil)
	if v.Denied || string(v.Result) != `{"content":[]}` {
		t.Errorf("response: %+v", v)
	}
	if got := strings.Join(order, " "); got != "a:request b:request b:response a:response" {
		t.Errorf("order %q, want config order in, reverse order out", got)
	}
}

type interceptorFunc func(context.Context, *Input) (*Output, error)

func (f interceptorFunc) Intercept(ctx context.Context, in *Input) (*Output, error) {
	return f(ctx, in)
}

func TestChainDenyAndFailure(t *testing.T) {
	boom := errors.New("trap: unreachable")
	after := &fake{out: &Output{Decision: Continue}}
	for _, tc := range []struct {
		name    string
		first   *entry
		denied  bool
		msg     string
		reached bool // the next interceptor ran
	}{
		{"deny", &entry{spec: spec("guard", loader.PhaseRequest, loader.FailureClosed), ic: &fake{out: &Output{Decision: Deny, Message: "path outside /srv"}}},
			true, `denied by interceptor "guard": path outside /srv`, false},
		{"fails closed", &entry{spec: spec("guard", loader.PhaseRequest, loader.FailureClosed), ic: &fake{err: boom}},
			true, `interceptor "guard" failed: trap: unreachable (failure: closed)`, false},
		{"fails open", &entry{spec: spec("guard", loader.PhaseRequest, loader.FailureOpen), ic: &fake{err: boom}}, false, "", true},
		{"modify without arguments", &entry{spec: spec("guard", loader.PhaseRequest, loader.FailureClosed), ic: &fake{out: &Output{Decision: Modify}}},
			true, `answered "modify" without the arguments`, false},
		{"modify refused by the check", &entry{spec: spec("guard", loader.PhaseRequest, loader.FailureClosed), ic: &fake{out: &Output{Decision: Modify, Arguments: json.RawMessage(`{"path":7}`)}}},
			true, "its modification was refused: bad schema", false},
		{"modify not an object", &entry{spec: spec("guard", loader.PhaseRequest, loader.FailureOpen), ic: &fake{out: &Output{Decision: Modify, Arguments: json.RawMessage(`[1]`)}}},
			false, "", true},
	} {
		after.seen = nil
		c := chainOf(tc.first, &entry{spec: spec("next", loader.PhaseRequest, loader.FailureClosed), ic: after})
		v := c.Run(context.Background(), &Input{Phase: PhaseRequest, Method: "tools/call", Arguments: json.RawMessage(`{"path":"a"}`)},
			func(json.RawMessage) error { return errors.New("bad schema") })
		if v.Denied != tc.denied || !strings.Contains(v.Message, tc.msg) || (len(after.seen) > 0) != tc.reached {
			t.Errorf("%s: %+v, next ran %v", tc.name, v, len(after.seen) > 0)
		}
		if tc.reached && len(after.seen) > 0 && after.seen[0] != `{"path":"a"}|` {
			t.Errorf("%s: the next interceptor saw %q, want the arguments unchanged", tc.name, after.seen[0])
		}
	}
}

func TestChainMatchAndWidening(t *testing.T) {
	f := &fake{out: &Output{Decision: Modify, Arguments: json.RawMessage(`{"uri":"file:///etc/passwd"}`)}}
	s := spec("m", loader.PhaseRequest, loader.FailureClosed, "tools/call", "resources/read")
	s.Match = loader.InterceptorMatch{Endpoints: []string{"public"}, Sources: []string{"fs*"}, Tools: []string{"read_*"}}
	c := chainOf(&entry{spec: s, ic: f})
	for _, tc := range []struct {
		in   Input
		runs bool
	}{
		{Input{Phase: PhaseRequest, Method: "tools/call", Endpoint: "public", Source: "fs", Name: "read_file"}, true},
		{Input{Phase: PhaseRequest, Method: "tools/call", Endpoint: "admin", Source: "fs", Name: "read_file"}, false},
		{Input{Phase: PhaseRequest, Method: "tools/call", Endpoint: "public", Source: "web", Name: "read_file"}, false},
		{Input{Phase: PhaseRequest, Method: "tools/call", Endpoint: "public", Source: "fs", Name: "write_file"}, false},
		{Input{Phase: PhaseRequest, Method: "prompts/get", Endpoint: "public", Source: "fs", Name: "read_x"}, false},
		{Input{Phase: PhaseResponse, Method: "tools/call", Endpoint: "public", Source: "fs", Name: "read_file"}, false},
	} {
		f.seen = nil
		c.Run(context.Background(), &tc.in, nil)
		if (len(f.seen) > 0) != tc.runs {
			t.Errorf("%+v: ran %v, want %v", tc.in, len(f.seen) > 0, tc.runs)
		}
	}
	// A resource read's "arguments" are not the interceptor's to change:
	// nothing an interceptor returns widens a call.
	v := c.Run(context.Background(), &Input{Phase: PhaseRequest, Method: "resources/read", Endpoint: "public", Source: "fs", Name: "read_me"}, nil)
	if !v.Denied || !strings.Contains(v.Message, "modified the arguments of resources/read") {
		t.Errorf("a resource read's modified arguments: %+v", v)
	}
	var nilChain *Chain
	if nilChain.Sees("tools/call", "x", PhaseRequest) || nilChain.Run(context.Background(), &Input{}, nil).Denied {
		t.Error("a nil chain sees or denies something")
	}
}

func TestParseOutput(t *testing.T) {
	for _, tc := range []struct{ raw, err string }{
		{`{"decision":"continue"}`, ""},
		{`{"decision":"deny","message":"no"}`, ""},
		{`{"decision":"allow"}`, `decision is "allow"`},
		{`not json`, "not a JSON object"},
		{`{}`, `decision is ""`},
	} {
		_, err := ParseOutput([]byte(tc.raw))
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.raw, err, tc.err)
		}
	}
	if _, err := ParseOutput(make([]byte, MaxOutput+1)); err == nil || !strings.Contains(err.Error(), "over the bound") {
		t.Errorf("an oversized answer: %v", err)
	}
}

// FuzzSliceOutput: an answer read by ParseOutput (which slices a
// modification as the PDKs write it, unread) and then applied ends as
// the same answer decoded whole by encoding/json and applied: the same
// decision, message, arguments or result, or an error for both.
func FuzzSliceOutput(f *testing.F) {
	for _, s := range []string{
		`{"decision":"modify","result":{"content":[]}}`,
		`{"decision":"modify","message":"redacted \"x\" \\ \u00e9","result":{"content":[{"type":"text","text":"a"}]}} `,
		`{"decision":"modify","arguments":{"path":"/tmp/a"}}`,
		`{"decision":"modify","result":{"a":1},"decision":"continue"}`,
		`{"decision":"modify","result":{"a":1},"message":"later"}`,
		`{"decision":"modify","result":{"a":1},"arguments":{"b":2}}`,
		`{"decision":"modify","result":{"a":1}}}`,
		`{"decision":"modify","result":{"a":1`,
		`{"decision":"modify","result":[1]}`,
		`{"decision":"modify","message":"x","result":{"a":1},"decision":"deny"}`,
		`{"decision":"modify","message":"\ud800","result":{}}`,
		`{"decision":"modify","message":1,"result":{}}`,
		`{"decision":"modify"}`,
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	// the check: a strict decode, as every caller's
	check := func(mod json.RawMessage) error {
		var v map[string]any
		return json.Unmarshal(mod, &v)
	}
	run := func(out *Output, err error, response bool) (string, error) {
		if err != nil {
			return "", err
		}
		in := &Input{Phase: PhaseRequest, Method: "tools/call", Arguments: json.RawMessage(`{}`)}
		if response {
			in.Phase, in.Result = PhaseResponse, json.RawMessage(`{"content":[]}`)
		}
		if out.Decision == Modify {
			if err := apply(in, out, check); err != nil {
				return "", err
			}
		}
		norm := func(raw json.RawMessage) string {
			var v any
			_ = json.Unmarshal(raw, &v)
			b, _ := json.Marshal(v)
			return string(b)
		}
		return out.Decision + "|" + out.Message + "|" + norm(in.Arguments) + "|" + norm(in.Result), nil
	}
	f.Fuzz(func(t *testing.T, raw []byte, response bool) {
		out, err := ParseOutput(bytes.Clone(raw))
		got, gerr := run(out, err, response)
		out, err = decodeOutput(bytes.Clone(raw))
		want, werr := run(out, err, response)
		if (gerr != nil) != (werr != nil) || got != want {
			t.Fatalf("%q:\n sliced: %q, %v\ndecoded: %q, %v", raw, got, gerr, want, werr)
		}
	})
}
