package intercept_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	gw "github.com/wasmgate/wasmgate/gateway/intercept"
	"github.com/wasmgate/wasmgate/pdk/intercept"
)

// jsonFields lists t's fields as name, JSON tag and kind, recursing into
// struct and pointer-to-struct fields.
func jsonFields(t reflect.Type, prefix string) []string {
	var out []string
	for f := range t.Fields() {
		if !f.IsExported() || f.Tag.Get("json") == "-" {
			continue // not in the JSON (the gateway's bookkeeping)
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		out = append(out, prefix+f.Name+" `"+f.Tag.Get("json")+"` "+ft.Kind().String())
		if ft.Kind() == reflect.Struct {
			out = append(out, jsonFields(ft, prefix+f.Name+".")...)
		}
	}
	return out
}

// The guest's types have the gateway's JSON shape, field by field.
func TestShapesMatchGateway(t *testing.T) {
	for _, c := range []struct{ guest, host reflect.Type }{
		{reflect.TypeFor[intercept.Event](), reflect.TypeFor[gw.Input]()},
		{reflect.TypeFor[intercept.Output](), reflect.TypeFor[gw.Output]()},
	} {
		g, h := jsonFields(c.guest, ""), jsonFields(c.host, "")
		if !slices.Equal(g, h) {
			t.Errorf("%v and %v differ:\n%s\nwant\n%s", c.guest, c.host, strings.Join(g, "\n"), strings.Join(h, "\n"))
		}
	}
	for _, c := range [][2]string{
		{intercept.ExportRequest, gw.ExportRequest},
		{intercept.ExportResponse, gw.ExportResponse},
		{intercept.PhaseRequest, gw.PhaseRequest},
		{intercept.PhaseResponse, gw.PhaseResponse},
		{intercept.DecisionContinue, gw.Continue},
		{intercept.DecisionDeny, gw.Deny},
		{intercept.DecisionModify, gw.Modify},
		{intercept.ConfigKey, gw.ConfigKey},
	} {
		if c[0] != c[1] {
			t.Errorf("constant %q, the gateway's is %q", c[0], c[1])
		}
	}
}

// roundTrip encodes v and decodes it into a new T, then encodes that.
func roundTrip[T any](t *testing.T, v any) (string, string) {
	t.Helper()
	a, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var w T
	if err := json.Unmarshal(a, &w); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return string(a), string(b)
}

// Sample values cross from the gateway to the guest and back unchanged.
func TestJSONMatchesGateway(t *testing.T) {
	ins := []gw.Input{
		{
			Phase: "response", Method: "tools/call", Endpoint: "agents", Source: "fs", Name: "read_file",
			Arguments: json.RawMessage(`{"path":"/srv/a.txt"}`),
			Result:    json.RawMessage(`{"content":[{"type":"text","text":"hi"}],"isError":false}`),
			Principal: gw.Principal{Name: "alice", Groups: []string{"dev", "ops"}},
			Transport: "http", Session: &gw.Session{ID: "s1", Labels: []string{"pii"}}, TraceID: "4bf92f3577b34da6a3ce929d0e0e4736",
		},
		{Phase: "request", Method: "tools/list", Endpoint: "e", Principal: gw.Principal{Name: "anonymous"}, Transport: "stdio"},
	}
	for _, in := range ins {
		a, b := roundTrip[intercept.Event](t, in)
		if a != b {
			t.Errorf("gateway input\n%s\nreaches the guest as\n%s", a, b)
		}
	}
	outs := []intercept.Output{
		intercept.Continue(),
		intercept.Deny("no"),
		must(intercept.ModifyArguments(map[string]any{"path": "/srv/b"})),
		must(intercept.ModifyResult(json.RawMessage(`{"content":[]}`))).WithMessage("redacted"),
	}
	for _, out := range outs {
		a, b := roundTrip[gw.Output](t, out)
		if a != b {
			t.Errorf("guest output\n%s\nreaches the gateway as\n%s", a, b)
		}
	}
	if got := string(mustJSON(t, outs[0])); got != `{"decision":"continue"}` {
		t.Errorf("Continue() is %s", got)
	}
	if got := string(mustJSON(t, outs[2])); got != `{"decision":"modify","arguments":{"path":"/srv/b"}}` {
		t.Errorf("ModifyArguments is %s", got)
	}
}

func must(o intercept.Output, err error) intercept.Output {
	if err != nil {
		panic(err)
	}
	return o
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestModifyUnencodable(t *testing.T) {
	if _, err := intercept.ModifyArguments(make(chan int)); err == nil {
		t.Error("ModifyArguments of a channel: no error")
	}
	if _, err := intercept.ModifyResult(func() {}); err == nil {
		t.Error("ModifyResult of a func: no error")
	}
}

func TestDecodeArguments(t *testing.T) {
	e := intercept.Event{Arguments: json.RawMessage(`{"path":"x","n":2}`)}
	var a struct {
		Path string `json:"path"`
		N    int    `json:"n"`
	}
	if err := e.DecodeArguments(&a); err != nil || a.Path != "x" || a.N != 2 {
		t.Errorf("DecodeArguments: %+v, %v", a, err)
	}
	a.Path = "kept"
	if err := (&intercept.Event{}).DecodeArguments(&a); err != nil || a.Path != "kept" {
		t.Errorf("DecodeArguments without arguments: %+v, %v", a, err)
	}
	if err := (&intercept.Event{Arguments: json.RawMessage(`[1]`)}).DecodeArguments(&a); err == nil {
		t.Error("DecodeArguments of an array into a struct: no error")
	}
}
