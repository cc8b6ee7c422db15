package seaflea

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/abi/abitest"
)

type module = abitest.Module

func TestDescribe(t *testing.T) {
	m := &module{Exports: map[string]string{
		"tools_information":     `[{"name":"add","description":"Adds"},{"name":"echo","inputSchema":{"type":"object","required":["x"]}}]`,
		"resources_information": `[{"uri":"kv://{key}","name":"kv"},{"uri":"a://readme","name":"readme","mimeType":"text/plain"}]`,
		"prompts_information":   `[{"name":"review","arguments":[{"name":"code","required":true}]}]`,
		"add":                   "",
		"echo":                  "",
		"kv":                    "",
		"readme":                "",
		"review":                "",
	}}
	d, err := ABI{}.Describe(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Tools) != 2 || string(d.Tools[0].InputSchema) != `{"type":"object"}` || string(d.Tools[1].InputSchema) != `{"type":"object","required":["x"]}` {
		t.Errorf("tools = %+v", d.Tools)
	}
	if len(d.Resources) != 2 || d.Resources[0].Template == nil || d.Resources[0].Template.Raw != "kv://{key}" || d.Resources[1].Template != nil {
		t.Errorf("resources = %+v", d.Resources)
	}
	if len(d.Prompts) != 1 || !d.Prompts[0].Arguments[0].Required {
		t.Errorf("prompts = %+v", d.Prompts)
	}
}

// Detect takes a module exporting any information export, and no other.
func TestDetect(t *testing.T) {
	if (ABI{}).Detect(&module{Exports: map[string]string{"add": ""}}) {
		t.Error("Detect took a module without information exports")
	}
	for _, e := range infoExports {
		if !(ABI{}).Detect(&module{Exports: map[string]string{e: "[]"}}) {
			t.Errorf("Detect refused a module exporting %s", e)
		}
	}
}

// An item whose export is missing is listed with a warning naming it, and
// using it fails with an error saying so; the rest of the plugin works.
func TestMissingExportIsAWarning(t *testing.T) {
	ctx := context.Background()
	m := &module{Exports: map[string]string{
		"tools_information":     `[{"name":"hello"}]`,
		"resources_information": `[{"uri":"goodbye://bye","name":"bye"}]`,
		"prompts_information":   `[{"name":"farewell"}]`,
		"hello":                 "hi",
	}}
	d, err := ABI{}.Describe(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Tools) != 1 || len(d.Resources) != 1 || len(d.Prompts) != 1 {
		t.Fatalf("descriptor %+v", d)
	}
	if len(d.Warnings) != 2 || !strings.Contains(d.Warnings[0], `resource "bye" has no export`) || !strings.Contains(d.Warnings[1], `prompt "farewell" has no export`) {
		t.Errorf("warnings %q", d.Warnings)
	}
	if out, err := (ABI{}).CallTool(ctx, m, "hello", nil); err != nil || string(out.Text) != "hi" || out.Result != nil {
		t.Errorf("hello = %+v, %v", out, err)
	}
	var ce *abi.CallError
	_, err = ABI{}.ReadResource(ctx, m, d.Resources[0], "goodbye://bye", nil)
	if !errors.As(err, &ce) || ce.Kind != abi.KindError || !strings.Contains(ce.Msg, `resource "bye" is listed by the plugin, but the plugin has no export`) {
		t.Errorf("reading bye: %v", err)
	}
	_, err = ABI{}.GetPrompt(ctx, m, "farewell", nil)
	if !errors.As(err, &ce) || ce.Kind != abi.KindError || !strings.Contains(ce.Msg, `prompt "farewell" is listed`) {
		t.Errorf("getting farewell: %v", err)
	}
}

func TestDescribeErrors(t *testing.T) {
	for _, c := range []struct {
		exports map[string]string
		want    string
	}{
		{map[string]string{"tools_information": `{`}, "tools_information: invalid JSON"},
		{map[string]string{"tools_information": `[{"name":""}]`}, "tools_information: a tool has an empty name"},
		{map[string]string{"tools_information": `[{"name":"a"}]`, "prompts_information": `[{"name":"a"}]`, "a": ""},
			`prompts_information: prompt "a" has the same name as a tool`},
		{map[string]string{"resources_information": `[{"name":"r"}]`, "r": ""}, `resources_information: resource "r" has an empty uri`},
		{map[string]string{"resources_information": `[{"name":"r","uri":"x://{a"}]`, "r": ""}, `resources_information: resource "r": uri template`},
		{map[string]string{"prompts_information": strings.Repeat(" ", maxInfoBytes+1)}, "prompts_information: output of"},
	} {
		_, err := ABI{}.Describe(context.Background(), &module{Exports: c.exports})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %s...", c.exports, err, c.want)
		}
	}
}

func TestCalls(t *testing.T) {
	ctx := context.Background()
	m := &module{Exports: map[string]string{
		"add":    "3",
		"kv":     `{"text":"dark"}`,
		"readme": `{"uri":"a://readme","text":"hi"}`,
		"review": `[{"role":"user","content":{"type":"text","text":"look"}}]`,
		"broken": `nope`,
	}}
	var a ABI

	if out, err := a.CallTool(ctx, m, "add", nil); err != nil || string(out.Text) != "3" || m.Input["add"] != "{}" {
		t.Errorf("CallTool = %q, %v; input %q", out, err, m.Input["add"])
	}

	tpl, err := abi.ParseURITemplate("kv://{key}")
	if err != nil {
		t.Fatal(err)
	}
	var kv abi.Resource
	kv.URI, kv.Name, kv.MimeType, kv.Template = "kv://{key}", "kv", "text/plain", tpl
	cs, err := a.ReadResource(ctx, m, kv, "kv://theme", map[string]string{"key": "theme"})
	if err != nil || len(cs) != 1 || cs[0].URI != "kv://theme" || cs[0].MimeType != "text/plain" || cs[0].Text != "dark" {
		t.Errorf("ReadResource(template) = %+v, %v", cs, err)
	}
	if want := `{"uri":"kv://theme","arguments":{"key":"theme"}}`; m.Input["kv"] != want {
		t.Errorf("template input = %s, want %s", m.Input["kv"], want)
	}
	var readme abi.Resource
	readme.URI, readme.Name = "a://readme", "readme"
	if cs, err := a.ReadResource(ctx, m, readme, "a://readme", nil); err != nil || len(cs) != 1 || cs[0].Text != "hi" || m.Input["readme"] != "" {
		t.Errorf("ReadResource(static) = %+v, %v; input %q", cs, err, m.Input["readme"])
	}

	msgs, err := a.GetPrompt(ctx, m, "review", nil)
	if err != nil || len(msgs) != 1 || msgs[0].Role != "user" || string(msgs[0].Content) != `{"type":"text","text":"look"}` || m.Input["review"] != "{}" {
		t.Errorf("GetPrompt = %+v, %v; input %q", msgs, err, m.Input["review"])
	}
	if _, err := a.GetPrompt(ctx, m, "review", map[string]string{"code": "x"}); err != nil || m.Input["review"] != `{"code":"x"}` {
		t.Errorf("GetPrompt input %q, %v", m.Input["review"], err)
	}

	// Output that is not the ABI's JSON is the plugin's error, not a crash.
	var ce *abi.CallError
	var broken abi.Resource
	broken.URI, broken.Name = "a://broken", "broken"
	if _, err := a.ReadResource(ctx, m, broken, "a://broken", nil); !errors.As(err, &ce) || ce.Kind != abi.KindError {
		t.Errorf("ReadResource(broken) = %v", err)
	}
	if _, err := a.GetPrompt(ctx, m, "broken", nil); !errors.As(err, &ce) || ce.Kind != abi.KindError {
		t.Errorf("GetPrompt(broken) = %v", err)
	}
}
