package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/relaytest"
)

// listDefs is tools/list by name.
func listDefs(ctx context.Context, t *testing.T, c *client.Client) map[string]mcp.Tool {
	t.Helper()
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]mcp.Tool{}
	for _, tl := range res.Tools {
		out[tl.Name] = tl
	}
	return out
}

// unknownAnswer is how the gateway answers a call of name: the error or
// the text, with name replaced by NAME, so two names' answers compare.
func unknownAnswer(ctx context.Context, c *client.Client, name string) string {
	res, err := harness.CallToolErr(ctx, c, name, map[string]any{"message": "x"})
	if err != nil {
		return strings.ReplaceAll(err.Error(), name, "NAME")
	}
	return strings.ReplaceAll(fmt.Sprintf("isError=%v %s", res.IsError, harness.ResultText(res)), name, "NAME")
}

// TestPluginCuration (issue 17): tools.exclude and overrides on a plugin.
// tools/list shows exactly the curated set; an excluded tool answers as an
// unknown one; a renamed tool works under its new name (policy, metrics
// and audit see it) and not its old; a relist is curated too; a hot
// reload changing the curation updates the lists with list_changed; a
// reload whose rename collides with another tool of the plugin is
// refused, naming both, and the gateway keeps serving.
func TestPluginCuration(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	v1 := e.Module("hyperv1", "testdata/plugins/hyperv1")
	render := func(curation string) []byte {
		return []byte(e.YAML(harness.NoWatch, harness.Item("name: h", "path: "+harness.Q(v1), "prefix: x"+curation)))
	}
	harness.WriteFile(t, e.Config, render(""))
	g := bins.Start(t, harness.Options{Config: e.Config})
	ctx := harness.Ctx(t, 3*time.Minute)
	c := g.SessionClient(t, transport.WithContinuousListening())
	notes := harness.CountNotes(c)
	full := listDefs(ctx, t, c)
	if _, ok := full["x_v1_echo"]; !ok || len(full) < 5 {
		t.Fatalf("uncurated tools: %v", slices.Sorted(mapsKeys(full)))
	}
	reload := func(curation, what string) (int, string) {
		t.Helper()
		harness.WriteFile(t, e.Config, render(curation))
		return g.PostReload(t)
	}
	curated := `, tools: {exclude: ["v1_fail", "v1_panic", "v1_added_*"]}, overrides: {v1_echo: {name: say, description: "Says it back", annotations: {title: Say, read_only_hint: true}}}`
	if code, body := reload(curated, "curate"); code != 200 {
		t.Fatalf("reload with a curation: %d %s", code, body)
	}
	want := []string{}
	for name := range full {
		if name != "x_v1_fail" && name != "x_v1_panic" && name != "x_v1_echo" {
			want = append(want, name)
		}
	}
	want = append(want, "x_say")
	slices.Sort(want)
	harness.WaitTools(ctx, t, c, 10*time.Second, want...)
	if !harness.WaitFor(10*time.Second, func() bool { return notes.Lists()[0] >= 1 }) {
		t.Error("no tools/list_changed after the curation changed")
	}
	defs := listDefs(ctx, t, c)
	say := defs["x_say"]
	if say.Description != "Says it back" || say.Annotations.Title != "Say" || say.Annotations.ReadOnlyHint == nil || !*say.Annotations.ReadOnlyHint {
		t.Errorf("x_say listed as %+v", say)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "x_say", map[string]any{"message": "hi"}); isErr || text != "hi" {
		t.Errorf("x_say = %q isError=%v", text, isErr)
	}
	unknown := unknownAnswer(ctx, c, "x_no_such_tool")
	for _, name := range []string{"x_v1_fail", "x_v1_echo", "v1_echo"} {
		if got := unknownAnswer(ctx, c, name); got != unknown {
			t.Errorf("%s answers %q, an unknown tool %q", name, got, unknown)
		}
	}
	m := g.Scrape(t)
	if m.ToolCalls("x_say", "ok") != 1 || m.ToolCalls("x_v1_echo", "ok") != 0 {
		t.Errorf("wasmgate_tool_calls_total: x_say %v, x_v1_echo %v", m.ToolCalls("x_say", "ok"), m.ToolCalls("x_v1_echo", "ok"))
	}
	// A relist goes through the same curation: v1_added_1 is excluded.
	before := notes.Lists()[0]
	if text, isErr := harness.CallTool(ctx, t, c, "x_v1_add_tool", nil); isErr || text != "v1_added_1" {
		t.Fatalf("x_v1_add_tool = %q", text)
	}
	if got := unknownAnswer(ctx, c, "x_v1_added_1"); got != unknown {
		t.Errorf("the excluded relisted x_v1_added_1 answers %q", got)
	}
	if got := slices.Sorted(mapsKeys(listDefs(ctx, t, c))); !slices.Equal(got, want) {
		t.Errorf("after the relist: %v, want %v", got, want)
	}

	// A rename onto another tool of the plugin: refused, naming both; the
	// curated set keeps serving.
	code, body := reload(`, overrides: {v1_echo: {name: v1_now}}`, "collide")
	if code == 200 || !strings.Contains(body, `tools "v1_echo" and "v1_now" would both be published as "x_v1_now"`) &&
		!strings.Contains(body, `tools "v1_now" and "v1_echo" would both be published as "x_v1_now"`) {
		t.Errorf("reload with a colliding rename: %d %s", code, body)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "x_say", map[string]any{"message": "still"}); isErr || text != "still" {
		t.Errorf("x_say after the refused reload = %q isError=%v", text, isErr)
	}

	// Changing the curation again: v1_fail back, say renamed repeat.
	before = notes.Lists()[0]
	if code, body := reload(`, tools: {include: ["v1_echo", "v1_fail"]}, overrides: {v1_echo: {name: repeat}}`, "recurate"); code != 200 {
		t.Fatalf("reload: %d %s", code, body)
	}
	harness.WaitTools(ctx, t, c, 10*time.Second, "x_repeat", "x_v1_fail")
	if !harness.WaitFor(10*time.Second, func() bool { return notes.Lists()[0] > before }) {
		t.Error("no tools/list_changed after the curation changed again")
	}
	if d := listDefs(ctx, t, c)["x_repeat"]; d.Description != full["x_v1_echo"].Description {
		t.Errorf("x_repeat keeps the plugin's description: %q, want %q", d.Description, full["x_v1_echo"].Description)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "x_v1_fail", nil); !isErr || text != "this tool always fails" {
		t.Errorf("x_v1_fail = %q isError=%v", text, isErr)
	}
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestRelayCuration: the same keys on a relay site (a Go page): the page
// registers calculate, set-storage and admin_delete; the site excludes
// admin_* and renames calculate to calc. The lists, the calls and the
// registered frame follow the curation.
func TestRelayCuration(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	harness.WriteFile(t, e.Config, []byte(e.YAML(harness.NoWatch)+
		"relay:\n  sites:\n    - {name: demo, token_env: RELAY_DEMO_TOKEN, tools: {exclude: [\"admin_*\"]}, overrides: {calculate: {name: calc, description: \"Adds and more\"}}}\n"))
	g := bins.Start(t, harness.Options{Config: e.Config, Env: []string{"RELAY_DEMO_TOKEN=" + relayToken}})
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t)
	p := startGoPage(t, relayURL(g.MCPURL, "demo"), "demo", relayToken)
	obj := map[string]any{"type": "object"}
	ack := p.register(map[string]any{"id": 1, "tools": []any{relaytest.CalcTool(),
		map[string]any{"name": "set-storage", "inputSchema": obj}, map[string]any{"name": "admin_delete", "inputSchema": obj}}})
	if got := fmt.Sprint(ack["tools"]); got != "[demo_calc demo_set-storage]" {
		t.Errorf("registered tools %s, want [demo_calc demo_set-storage]", got)
	}
	if w := fmt.Sprint(ack["warnings"]); !strings.Contains(w, `tool "admin_delete" not published: the site's tools.include/exclude leave it out`) {
		t.Errorf("warnings %s", w)
	}
	harness.WaitTools(ctx, t, c, 10*time.Second, "demo_calc", "demo_set-storage")
	if d := listDefs(ctx, t, c)["demo_calc"]; d.Description != "Adds and more" {
		t.Errorf("demo_calc description %q", d.Description)
	}
	go func() {
		f := p.nextCall()
		if f["name"] != "calculate" {
			t.Errorf("the page was called %v, want its own name calculate", f)
		}
		p.answer(f, "8")
	}()
	if text, isErr := harness.CallTool(ctx, t, c, "demo_calc", map[string]any{"operation": "add", "a": 5, "b": 3}); isErr || text != "8" {
		t.Errorf("demo_calc = %q isError=%v", text, isErr)
	}
	unknown := unknownAnswer(ctx, c, "demo_nothing")
	for _, name := range []string{"demo_admin_delete", "demo_calculate"} {
		if got := unknownAnswer(ctx, c, name); got != unknown {
			t.Errorf("%s answers %q, an unknown tool %q", name, got, unknown)
		}
	}
}
