package hypermcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/abi/abitest"
)

type module = abitest.Module

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		exports []string
		v1, v2  bool
	}{
		{[]string{"call", "describe"}, true, false},
		{[]string{"call"}, false, false},
		{[]string{"describe", "list_tools"}, false, true},
		{[]string{"complete"}, false, true},
		{[]string{"tools_information"}, false, false},
	} {
		m := &module{Exports: map[string]string{}}
		for _, e := range c.exports {
			m.Exports[e] = ""
		}
		if got := (V1{}).Detect(m); got != c.v1 {
			t.Errorf("V1.Detect(%v) = %v", c.exports, got)
		}
		if got := (V2{}).Detect(m); got != c.v2 {
			t.Errorf("V2.Detect(%v) = %v", c.exports, got)
		}
	}
}

func TestV1(t *testing.T) {
	ctx := context.Background()
	m := &module{Exports: map[string]string{
		"describe": `{"tools":[{"name":"echo","description":"Echoes","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}`,
		"call":     `{"content":[{"type":"text","text":"hi"}]}`,
	}}
	d, err := V1{}.Describe(ctx, m)
	if err != nil || len(d.Tools) != 1 || d.Tools[0].Name != "echo" || string(d.Tools[0].Annotations) != `{"readOnlyHint":true}` {
		t.Fatalf("Describe = %+v, %v", d, err)
	}
	if m.Input["describe"] != "" {
		t.Errorf("describe input %q, want empty", m.Input["describe"])
	}
	res, err := V1{}.CallTool(ctx, m, "echo", json.RawMessage(`{"x":1}`))
	if err != nil || string(res.Result) != m.Exports["call"] || res.Text != nil {
		t.Errorf("CallTool = %+v, %v", res, err)
	}
	if want := `{"params":{"name":"echo","arguments":{"x":1}}}`; m.Input["call"] != want {
		t.Errorf("call input %s, want %s", m.Input["call"], want)
	}

	for out, want := range map[string]string{
		`{}`:                       `no "tools" array`,
		`{"tools":[{"name":"a"}]}`: `tool "a": inputSchema must be a JSON object`,
		`{"tools":[{"name":"a","inputSchema":[]}]}`:                               `tool "a": inputSchema must be a JSON object`,
		`{"tools":[{"inputSchema":{}}]}`:                                          "a tool has an empty name",
		`{"tools":[{"name":"a","inputSchema":{}},{"name":"a","inputSchema":{}}]}`: `tool "a" is listed twice`,
		`nope`: "invalid JSON",
	} {
		_, err := V1{}.Describe(ctx, &module{Exports: map[string]string{"describe": out, "call": ""}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("describe %s: %v, want %q", out, err, want)
		}
	}
	// A result with no content is refused unless it has
	// structuredContent.
	for out, ok := range map[string]bool{
		`{"content":[]}`:   false,
		`{"isError":true}`: false,
		`{"content":[],"structuredContent":{"a":1}}`: true,
		`{"structuredContent":{"a":1}}`:              true,
		`[]`:                                         false,
	} {
		_, err := V1{}.CallTool(ctx, &module{Exports: map[string]string{"call": out}}, "t", nil)
		var ce *abi.CallError
		if ok != (err == nil) || (err != nil && (!errors.As(err, &ce) || ce.Kind != abi.KindError)) {
			t.Errorf("call returning %s: %v", out, err)
		}
	}
}

func TestV2(t *testing.T) {
	m := &module{Exports: map[string]string{
		"list_tools":              `{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}`,
		"list_prompts":            `{"prompts":[{"name":"p","arguments":[{"name":"a","required":true}]}]}`,
		"list_resources":          `{"resources":[{"uri":"x://r","name":"r"}]}`,
		"list_resource_templates": `{"resourceTemplates":[{"uriTemplate":"x://n/{id}","name":"n","mimeType":"text/plain"},{"uriTemplate":"x://f/{+path}","name":"f"}]}`,
		"call_tool":               `{"content":[{"type":"text","text":"ok"}]}`,
		"read_resource":           `{"contents":[{"text":"body"}]}`,
		"complete":                `{"completion":{"values":["a","b"],"total":2}}`,
	}}
	ctx := abi.WithRequest(context.Background(), abi.Request{ID: json.RawMessage(`"r1"`), Meta: json.RawMessage(`{"progressToken":7}`)})
	d, err := V2{}.Describe(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Tools) != 1 || len(d.Prompts) != 1 || !d.Prompts[0].Arguments[0].Required || len(d.Resources) != 2 {
		t.Fatalf("Describe = %+v", d)
	}
	if r := d.Resources[1]; r.URI != "x://n/{id}" || r.Template == nil || r.MimeType != "text/plain" {
		t.Errorf("template %+v", r)
	}
	if want := `{"context":{"id":0,"_meta":{}}}`; m.Input["list_tools"] != want {
		t.Errorf("list_tools input %s, want %s", m.Input["list_tools"], want)
	}
	// A template wasmgate cannot match is left out with a warning; a
	// list whose serving export is missing is a warning too.
	if len(d.Warnings) != 2 || !strings.Contains(d.Warnings[0], "1 prompts but has no get_prompt export") || !strings.Contains(d.Warnings[1], `"x://f/{+path}" is left out`) {
		t.Errorf("warnings %q", d.Warnings)
	}

	if _, err := (V2{}).CallTool(ctx, m, "t", json.RawMessage(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if want := `{"request":{"name":"t","arguments":{"a":1}},"context":{"id":"r1","_meta":{"progressToken":7}}}`; m.Input["call_tool"] != want {
		t.Errorf("call_tool input %s, want %s", m.Input["call_tool"], want)
	}
	cs, err := V2{}.ReadResource(ctx, m, d.Resources[1], "x://n/3", map[string]string{"id": "3"})
	if err != nil || len(cs) != 1 || cs[0].URI != "x://n/3" || cs[0].Text != "body" {
		t.Errorf("ReadResource = %+v, %v", cs, err)
	}
	if want := `{"request":{"uri":"x://n/3"},"context":{"id":"r1","_meta":{"progressToken":7}}}`; m.Input["read_resource"] != want {
		t.Errorf("read_resource input %s, want %s", m.Input["read_resource"], want)
	}
	_, err = V2{}.GetPrompt(ctx, m, "p", map[string]string{"a": "1"})
	var ce *abi.CallError
	if !errors.As(err, &ce) || ce.Kind != abi.KindError || !strings.Contains(ce.Msg, "no get_prompt export") {
		t.Errorf("GetPrompt without get_prompt: %v", err)
	}
	c, err := V2{}.Complete(ctx, m, abi.CompleteRequest{Prompt: "p", Argument: "a", Value: "x", Arguments: map[string]string{"b": "2"}})
	if err != nil || len(c.Values) != 2 || c.Total == nil || *c.Total != 2 {
		t.Errorf("Complete = %+v, %v", c, err)
	}
	if want := `{"request":{"ref":{"type":"prompt","name":"p"},"argument":{"name":"a","value":"x"},"context":{"arguments":{"b":"2"}}},"context":{"id":"r1","_meta":{"progressToken":7}}}`; m.Input["complete"] != want {
		t.Errorf("complete input %s, want %s", m.Input["complete"], want)
	}
	if _, err := (V2{}).Complete(ctx, m, abi.CompleteRequest{URI: "x://n/{id}", Argument: "id"}); err != nil || !strings.Contains(m.Input["complete"], `"ref":{"type":"resource","uri":"x://n/{id}"}`) {
		t.Errorf("complete a template: %v, input %s", err, m.Input["complete"])
	}
}
