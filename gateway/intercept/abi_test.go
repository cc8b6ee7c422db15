package intercept

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestAppendJSON checks the hand-written encoder against encoding/json:
// both decode to the same value.
func TestAppendJSON(t *testing.T) {
	for _, in := range []Input{
		{Phase: PhaseRequest, Method: "tools/call", Endpoint: "default"},
		{Phase: PhaseResponse, Method: "tools/call", Endpoint: "e", Source: "s", Name: "n <&> \u2028 \"q\"\x01",
			Arguments: json.RawMessage(`{"a":[1,2,{"b":"c"}]}`), Result: json.RawMessage(`{"content":[]}`),
			Principal: Principal{Name: "alice", Groups: []string{"admins", "é"}}, Transport: "http",
			Session: &Session{ID: "s1", Labels: []string{"private"}}, TraceID: "abc"},
		{Phase: PhaseResponse, Method: "tools/list", Principal: Principal{Groups: []string{}}, Session: &Session{}},
		{Name: "bad \xff utf-8"},
	} {
		checkAppendJSON(t, &in)
	}
}

func checkAppendJSON(t *testing.T, in *Input) {
	t.Helper()
	want, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	got := in.AppendJSON(nil)
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("AppendJSON gave %s: %v", got, err)
	}
	if err := json.Unmarshal(want, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("AppendJSON:\n %s\nencoding/json:\n %s", got, want)
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("response", "tools/call", "n\u2028<", "alice", "g", "lab", "s", `{"a":1}`)
	f.Fuzz(func(t *testing.T, phase, method, name, principal, group, label, session, args string) {
		in := &Input{Phase: phase, Method: method, Name: name, Principal: Principal{Name: principal, Groups: []string{group}}}
		if json.Valid([]byte(args)) {
			var c json.RawMessage
			if json.Unmarshal([]byte(args), &c) == nil && len(c) > 0 {
				in.Arguments = c
			}
		}
		if session != "" {
			in.Session = &Session{ID: session, Labels: []string{label}}
		}
		checkAppendJSON(t, in)
	})
}
