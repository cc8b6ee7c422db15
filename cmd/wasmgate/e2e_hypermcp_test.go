package main

// hyper-mcp's two plugin ABIs, run unchanged: testdata/plugins/hyperv1
// (describe/call) and testdata/plugins/hyperv2 (every v2 export), served
// beside each other with wasmgate's naming (a second copy of hyperv2 with
// a prefix on its tools, prompts and resource URIs), config and clock.

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/mcphttp"
)

func hyperConfig(t *testing.T) string {
	t.Helper()
	v1 := harness.Q(harness.Wasm(t, "testdata/plugins/hyperv1"))
	v2 := harness.Q(harness.Wasm(t, "testdata/plugins/hyperv2"))
	return harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: harness.Item("name: hyperv1", "path: "+v1, "config: {greeting: ahoy}") +
		harness.Item("name: hyperv2", "path: "+v2) +
		harness.Item("name: second", "path: "+v2, "prefix: b")}))
}

func TestValidateNamesHyperMCPABIs(t *testing.T) {
	t.Parallel()
	r := runValidate(t, hyperConfig(t), nil, nil)
	if r.Code != 0 {
		t.Fatalf("validate exited %d:\n%s", r.Code, r.Stderr)
	}
	for _, w := range []string{
		"plugin hyperv1 (plugins[0]): hyper-mcp v1 ABI; 10 tools, 0 resources, 0 resource templates, 0 prompts",
		"plugin hyperv2 (plugins[1]): hyper-mcp v2 ABI; 11 tools, 2 resources, 1 resource template, 1 prompt",
		`warning: resource template "hyper://files/{+path}" is left out`,
		"plugin second (plugins[2]): hyper-mcp v2 ABI",
	} {
		if !strings.Contains(r.Stdout, w) {
			t.Errorf("validate output does not contain %q:\n%s", w, r.Stdout)
		}
	}
}

func TestHyperMCPv1(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: hyperConfig(t), Stdio: true})
	ctx := harness.Ctx(t, time.Minute)
	for name, c := range map[string]*client.Client{"http": g.SessionClient(t), "stdio": g.StdioClient(t)} {
		t.Run(name, func(t *testing.T) {
			if got, isErr := harness.CallTool(ctx, t, c, "v1_echo", map[string]any{"message": "hi"}); got != "hi" || isErr {
				t.Errorf("echo = %q (isError %v)", got, isErr)
			}
			res, err := harness.CallToolErr(ctx, c, "v1_image", nil)
			if err != nil || res.IsError || len(res.Content) != 2 {
				t.Fatalf("image = %+v, %v", res, err)
			}
			if img, ok := mcp.AsImageContent(res.Content[0]); !ok || img.MIMEType != "image/png" || img.Data == "" {
				t.Errorf("image content %#v", res.Content[0])
			}
			// Extism config is the plugin's config map.
			if got, _ := harness.CallTool(ctx, t, c, "v1_config", map[string]any{"key": "greeting"}); got != "ahoy" {
				t.Errorf("config greeting = %q", got)
			}
			// The guest sees the real clock.
			got, _ := harness.CallTool(ctx, t, c, "v1_now", nil)
			if n, err := strconv.ParseInt(got, 10, 64); err != nil || n < time.Now().Add(-time.Hour).Unix() {
				t.Errorf("now = %q, want about %d", got, time.Now().Unix())
			}
			if got, isErr := harness.CallTool(ctx, t, c, "v1_fail", nil); !isErr || got != "this tool always fails" {
				t.Errorf("fail = %q (isError %v)", got, isErr)
			}
			if got, isErr := harness.CallTool(ctx, t, c, "v1_broken", nil); !isErr || !strings.Contains(got, "no content and no structuredContent") {
				t.Errorf("broken = %q (isError %v)", got, isErr)
			}
			if got, isErr := harness.CallTool(ctx, t, c, "v1_panic", nil); !isErr || !strings.Contains(got, "hyperv1: panic on purpose") {
				t.Errorf("panic = %q (isError %v)", got, isErr)
			}
			// The plugin keeps serving after the crash.
			if got, _ := harness.CallTool(ctx, t, c, "v1_echo", map[string]any{"message": "again"}); got != "again" {
				t.Errorf("v1_echo after a crash = %q", got)
			}
			// Arguments are checked against the tool's schema first.
			if got, isErr := harness.CallTool(ctx, t, c, "v1_echo", map[string]any{}); !isErr || !strings.Contains(got, "message") {
				t.Errorf("v1_echo without message = %q (isError %v)", got, isErr)
			}
		})
	}
}

func TestHyperMCPv2(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: hyperConfig(t), Stdio: true})
	ctx := harness.Ctx(t, time.Minute)
	for name, c := range map[string]*client.Client{"http": g.SessionClient(t), "stdio": g.StdioClient(t)} {
		t.Run(name, func(t *testing.T) {
			// The context carries the client's request id and _meta.
			req := mcp.CallToolRequest{}
			req.Params.Name = "v2_context"
			req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"trace": "x1"}}
			res, err := c.CallTool(ctx, req)
			if err != nil || res.IsError {
				t.Fatalf("context = %+v, %v", res, err)
			}
			var got struct {
				ID   json.RawMessage `json:"id"`
				Meta map[string]any  `json:"_meta"`
			}
			if err := json.Unmarshal([]byte(harness.ResultText(res)), &got); err != nil {
				t.Fatalf("context %q: %v", harness.ResultText(res), err)
			}
			if len(got.ID) == 0 || string(got.ID) == "null" || got.Meta["trace"] != "x1" {
				t.Errorf("context = %s", harness.ResultText(res))
			}

			res, err = harness.CallToolErr(ctx, c, "v2_structured", nil)
			if err != nil || res.IsError || harness.ResultText(res) != "42" {
				t.Fatalf("structured = %+v, %v", res, err)
			}
			if m, ok := res.StructuredContent.(map[string]any); !ok || m["answer"] != float64(42) {
				t.Errorf("structuredContent = %#v", res.StructuredContent)
			}

			// Both copies serve, the second under its prefix.
			for _, tool := range []string{"v2_echo", "b_v2_echo"} {
				if got, _ := harness.CallTool(ctx, t, c, tool, map[string]any{"message": tool}); got != tool {
					t.Errorf("%s = %q", tool, got)
				}
			}

			// Prompts: content of every type is passed on.
			pr, err := harness.GetPrompt(ctx, c, "b_greet", map[string]string{"name": "Ada"})
			if err != nil || len(pr.Messages) != 2 {
				t.Fatalf("b_greet = %+v, %v", pr, err)
			}
			if tc, ok := mcp.AsTextContent(pr.Messages[0].Content); !ok || tc.Text != "Hello Ada" {
				t.Errorf("first message %#v", pr.Messages[0])
			}
			if img, ok := mcp.AsImageContent(pr.Messages[1].Content); !ok || pr.Messages[1].Role != mcp.RoleAssistant || img.MIMEType != "image/png" {
				t.Errorf("second message %#v", pr.Messages[1])
			}

			// Resources: static, blob, template; the prefix applies to
			// URIs and templates, and contents carry the URI asked for.
			if got := harness.ReadText(ctx, t, c, "hyper://readme"); got != "hyper readme" {
				t.Errorf("hyper://readme = %q", got)
			}
			if got := harness.ReadText(ctx, t, c, "hyper://b/readme"); got != "hyper readme" {
				t.Errorf("hyper://b/readme = %q", got)
			}
			if got := harness.ReadText(ctx, t, c, "hyper://b/notes/7"); got != "note 7" {
				t.Errorf("hyper://b/notes/7 = %q", got)
			}
			logo := harness.ReadResource(ctx, t, c, "hyper://logo")
			if b, ok := logo[0].(mcp.BlobResourceContents); !ok || b.MIMEType != "image/png" || b.Blob == "" {
				t.Errorf("hyper://logo = %#v", logo)
			}
			uris := harness.Resources(ctx, t, c)
			if strings.Join(uris, " ") != "hyper://b/logo hyper://b/readme hyper://logo hyper://readme" {
				t.Errorf("resources %q", uris)
			}
			tpls := harness.Templates(ctx, t, c)
			if strings.Join(tpls, " ") != "hyper://b/notes/{id} hyper://notes/{id}" {
				t.Errorf("templates %q", tpls)
			}

			// completion/complete reaches the plugin owning the prompt or
			// template, with its own names.
			for _, c2 := range []struct {
				ref        any
				arg, value string
				want       string
			}{
				{mcp.PromptReference{Type: "ref/prompt", Name: "b_greet"}, "name", "A", "Ada Alan"},
				{mcp.PromptReference{Type: "ref/prompt", Name: "greet"}, "name", "G", "Grace"},
				{mcp.ResourceReference{Type: "ref/resource", URI: "hyper://b/notes/{id}"}, "id", "", "1 2 3"},
				{mcp.PromptReference{Type: "ref/prompt", Name: "nonexistent"}, "name", "A", ""},
			} {
				res, err := c.Complete(ctx, mcp.CompleteRequest{Params: mcp.CompleteParams{Ref: c2.ref, Argument: mcp.CompleteArgument{Name: c2.arg, Value: c2.value}}})
				if err != nil {
					t.Fatalf("complete %+v: %v", c2.ref, err)
				}
				if got := strings.Join(res.Completion.Values, " "); got != c2.want {
					t.Errorf("complete %+v %s=%q: %q, want %q", c2.ref, c2.arg, c2.value, got, c2.want)
				}
			}
		})
	}
}

// tools/list carries a plugin's optional tool fields as they are, and no
// "annotations" for a tool that declares none; prompts/get answers -32602
// for a missing required argument and for an argument that is not a
// string.
func TestHyperMCPWire(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: hyperConfig(t)})
	ctx := harness.Ctx(t, time.Minute)
	s := harness.OpenSession(t, g.MCPURL)
	raw, err := s.Call(ctx, "tools/list", nil)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []map[string]json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	tools := map[string]map[string]json.RawMessage{}
	for _, tool := range list.Tools {
		var name string
		json.Unmarshal(tool["name"], &name)
		tools[name] = tool
	}
	if a := tools["v1_image"]["annotations"]; a != nil {
		t.Errorf("tool v1_image declares no annotations but is listed with %s", a)
	}
	if a := string(tools["v1_echo"]["annotations"]); a != `{"readOnlyHint":true}` {
		t.Errorf("tool v1_echo annotations %s", a)
	}
	if got := string(tools["b_v2_echo"]["title"]); got != `"Echo"` {
		t.Errorf("tool b_v2_echo title %s", got)
	}
	if got := string(tools["b_v2_echo"]["outputSchema"]); !strings.Contains(got, `"message"`) {
		t.Errorf("tool b_v2_echo outputSchema %s", got)
	}

	for _, c := range []struct {
		name   string
		params any
	}{
		{"missing required argument", map[string]any{"name": "greet", "arguments": map[string]any{}}},
		{"no arguments", map[string]any{"name": "greet"}},
		{"non-string argument", map[string]any{"name": "greet", "arguments": map[string]any{"name": 7}}},
	} {
		_, err := s.Call(ctx, "prompts/get", c.params)
		var re *mcphttp.RPCError
		if !errors.As(err, &re) || re.Code != mcp.INVALID_PARAMS {
			t.Errorf("prompts/get with a %s: %v, want error %d", c.name, err, mcp.INVALID_PARAMS)
		}
	}
}

// The worked examples of docs/plugins.md in the two hyper-mcp ABIs.
func TestHyperMCPExamples(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: harness.Item("name: shout_v1", "path: "+harness.Q(harness.Wasm(t, "examples/plugins/shout_v1"))) +
		harness.Item("name: shout_v2", "path: "+harness.Q(harness.Wasm(t, "examples/plugins/shout_v2")), "prefix: v2")}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, time.Minute)
	c := g.SessionClient(t)
	for _, tool := range []string{"shout", "v2_shout"} {
		if got, isErr := harness.CallTool(ctx, t, c, tool, map[string]any{"text": "hey"}); isErr || got != "HEY" {
			t.Errorf("%s = %q (isError %v)", tool, got, isErr)
		}
	}
	pr, err := harness.GetPrompt(ctx, c, "v2_shout_prompt", map[string]string{"text": "hey"})
	if err != nil || harness.PromptText(t, pr) != "Shout this: hey" {
		t.Errorf("v2_shout_prompt = %+v, %v", pr, err)
	}
}
