package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestSessionScopedRelist (issue 16): a plugin with instances: session
// whose instance of session A relists changes A's view alone: A lists and
// calls the new tool and is told list_changed; B neither sees nor can call
// it and gets no list_changed. A session-scoped relist cannot take over a
// name another source owns: A's calculate is still the calculator's.
func TestSessionScopedRelist(t *testing.T) {
	t.Parallel()
	v1 := harness.Q(harness.Wasm(t, "testdata/plugins/hyperv1"))
	calc := harness.Q(harness.Wasm(t, "examples/plugins/calculator"))
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins: harness.Item("name: sess", "path: "+v1, "instances: session") + harness.Item("name: calculator", "path: "+calc),
	}))
	g := bins.Start(t, harness.Options{Config: cfg, Stdio: true})
	ctx := harness.Ctx(t, 2*time.Minute)
	a := g.SessionClient(t, transport.WithContinuousListening())
	b := g.SessionClient(t, transport.WithContinuousListening())
	notesA, notesB := harness.CountNotes(a), harness.CountNotes(b)
	list := func(c *client.Client) []string {
		t.Helper()
		res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		return names
	}
	shared := list(b)
	base := g.Baseline(t, nil)

	if text, isErr := harness.CallTool(ctx, t, a, "v1_add_tool", nil); isErr || text != "v1_added_1" {
		t.Fatalf("v1_add_tool: %q", text)
	}
	if !harness.WaitFor(10*time.Second, func() bool { return notesA.Lists()[0] >= 1 }) {
		t.Fatal("session A was not told tools/list_changed")
	}
	if got := list(a); !slices.Contains(got, "v1_added_1") || !slices.Contains(got, "calculate") || len(got) != len(shared)+1 {
		t.Errorf("A lists %v, want the shared %v and v1_added_1", got, shared)
	}
	if text, isErr := harness.CallTool(ctx, t, a, "v1_added_1", nil); isErr || text != "I was added" {
		t.Errorf("A calls v1_added_1: %q isError=%v", text, isErr)
	}
	if got := list(b); !slices.Equal(got, shared) {
		t.Errorf("B lists %v, want the shared %v", got, shared)
	}
	res, err := harness.CallToolErr(ctx, b, "v1_added_1", nil)
	if err == nil && !res.IsError {
		t.Errorf("B calls v1_added_1: %q, want an unknown tool", harness.ResultText(res))
	} else if err != nil && !strings.Contains(err.Error(), "not found") {
		t.Errorf("B calls v1_added_1: %v, want not found", err)
	}
	if n := notesB.Lists()[0]; n != 0 {
		t.Errorf("B was told tools/list_changed %d times", n)
	}

	// Taking over calculate in A's view is refused; the calculator answers.
	if text, isErr := harness.CallTool(ctx, t, a, "v1_add_tool", map[string]any{"name": "calculate"}); isErr || text != "calculate" {
		t.Fatalf("v1_add_tool calculate: %q", text)
	}
	if !harness.WaitFor(10*time.Second, func() bool {
		n, _ := g.Metric(t, "wasmgate_claims_refused_total", map[string]string{"source": "sess"})
		return n >= 1
	}) {
		t.Error("the session's claim of calculate was not counted as refused")
	}
	for _, c := range []*client.Client{a, b} {
		if text, isErr := harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": "add", "a": 2, "b": 2}); isErr || text != "4" {
			t.Errorf("calculate after A's relist: %q (isError %v), want the calculator's 4", text, isErr)
		}
	}
	if n := notesB.Lists()[0]; n != 0 {
		t.Errorf("B was told tools/list_changed %d times", n)
	}

	// Over stdio the MCP library keeps no tools per session: the relist
	// is not published, for stdio or anyone, and stdio's instance stays.
	sc := g.StdioClient(t)
	if text, isErr := harness.CallTool(ctx, t, sc, "v1_add_tool", nil); isErr || text != "v1_added_1" {
		t.Fatalf("stdio v1_add_tool: %q", text)
	}
	if !harness.WaitFor(10*time.Second, func() bool { return strings.Contains(g.Stderr(), "the session's transport keeps no lists of its own") }) {
		t.Errorf("no warning that stdio's relist is not published")
	}
	if text, isErr := harness.CallTool(ctx, t, sc, "v1_add_tool", nil); isErr || text != "v1_added_2" {
		t.Errorf("stdio's instance lost its state: v1_add_tool = %q", text)
	}
	if got := list(b); !slices.Equal(got, shared) {
		t.Errorf("B lists %v after stdio's relist, want the shared %v", got, shared)
	}
	if n := notesB.Lists()[0]; n != 0 {
		t.Errorf("B was told tools/list_changed %d times", n)
	}
	a.Close()
	g.BackNearBaseline(t, "a session-scoped relist", base, 16<<20)
}

// TestSessionScopedRelistPromptsResources (issue 16): the same for
// prompts and resources. A session-scoped instance of session A that adds
// a prompt and a resource changes A's lists alone: A lists, gets and
// reads them and is told prompts and resources list_changed; B lists the
// shared ones, its get and read of A's names are not found, and it is
// told nothing. A's view keeps the plugin's shared entries too (greet,
// hyper://readme).
func TestSessionScopedRelistPromptsResources(t *testing.T) {
	t.Parallel()
	v2 := harness.Q(harness.Wasm(t, "testdata/plugins/hyperv2"))
	calc := harness.Q(harness.Wasm(t, "examples/plugins/calculator"))
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins: harness.Item("name: sess", "path: "+v2, "instances: session") + harness.Item("name: calculator", "path: "+calc),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)
	a := g.SessionClient(t, transport.WithContinuousListening())
	b := g.SessionClient(t, transport.WithContinuousListening())
	notesA, notesB := harness.CountNotes(a), harness.CountNotes(b)
	prompts := func(c *client.Client) []string {
		t.Helper()
		res, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range res.Prompts {
			names = append(names, p.Name)
		}
		return names
	}
	resources := func(c *client.Client) []string {
		t.Helper()
		return harness.Resources(ctx, t, c)
	}
	templates := func(c *client.Client) int {
		t.Helper()
		res, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.ResourceTemplates)
	}
	sharedP, sharedR, sharedT := prompts(b), resources(b), templates(b)
	if !slices.Contains(sharedP, "greet") || !slices.Contains(sharedR, "hyper://readme") || sharedT == 0 {
		t.Fatalf("shared lists: prompts %v, resources %v, %d templates", sharedP, sharedR, sharedT)
	}
	base := g.Baseline(t, nil)

	for _, kind := range []string{"prompts", "resources"} {
		if text, isErr := harness.CallTool(ctx, t, a, "v2_grow", map[string]any{"kind": kind}); isErr || text != kind+": 1" {
			t.Fatalf("v2_grow %s: %q", kind, text)
		}
	}
	if !harness.WaitFor(10*time.Second, func() bool { n := notesA.Lists(); return n[1] >= 1 && n[2] >= 1 }) {
		t.Fatalf("session A was not told resources and prompts list_changed: %v", notesA.Lists())
	}
	if got := prompts(a); !slices.Contains(got, "grown_1") || !slices.Contains(got, "greet") || len(got) != len(sharedP)+1 {
		t.Errorf("A lists prompts %v, want the shared %v and grown_1", got, sharedP)
	}
	if got := resources(a); !slices.Contains(got, "hyper://grown/1") || !slices.Contains(got, "hyper://readme") || len(got) != len(sharedR)+1 {
		t.Errorf("A lists resources %v, want the shared %v and hyper://grown/1", got, sharedR)
	}
	if got := templates(a); got != sharedT {
		t.Errorf("A lists %d templates, want the shared %d", got, sharedT)
	}
	gp := mcp.GetPromptRequest{}
	gp.Params.Name = "grown_1"
	if res, err := a.GetPrompt(ctx, gp); err != nil || len(res.Messages) != 1 {
		t.Errorf("A gets grown_1: %v %v", res, err)
	} else if tc, ok := mcp.AsTextContent(res.Messages[0].Content); !ok || tc.Text != "grown prompt 1" {
		t.Errorf("A gets grown_1: %+v", res.Messages[0].Content)
	}
	rr := mcp.ReadResourceRequest{}
	rr.Params.URI = "hyper://grown/1"
	if res, err := a.ReadResource(ctx, rr); err != nil || len(res.Contents) != 1 {
		t.Errorf("A reads hyper://grown/1: %v %v", res, err)
	} else if tc, ok := res.Contents[0].(mcp.TextResourceContents); !ok || tc.Text != "grown 1" {
		t.Errorf("A reads hyper://grown/1: %+v", res.Contents[0])
	}
	// The shared entries still answer in A's view.
	gp.Params.Name, gp.Params.Arguments = "greet", map[string]string{"name": "Ada"}
	if _, err := a.GetPrompt(ctx, gp); err != nil {
		t.Errorf("A gets greet: %v", err)
	}

	if got := prompts(b); !slices.Equal(got, sharedP) {
		t.Errorf("B lists prompts %v, want the shared %v", got, sharedP)
	}
	if got := resources(b); !slices.Equal(got, sharedR) {
		t.Errorf("B lists resources %v, want the shared %v", got, sharedR)
	}
	gp.Params.Name, gp.Params.Arguments = "grown_1", nil
	if res, err := b.GetPrompt(ctx, gp); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("B gets grown_1: %v %v, want not found", res, err)
	}
	if res, err := b.ReadResource(ctx, rr); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("B reads hyper://grown/1: %v %v, want not found", res, err)
	}
	// B may not subscribe to what only A's view has.
	sub := mcp.SubscribeRequest{}
	sub.Params.URI = "hyper://grown/1"
	if err := b.Subscribe(ctx, sub); err == nil {
		t.Error("B subscribed to A's hyper://grown/1")
	}
	if err := a.Subscribe(ctx, sub); err != nil {
		t.Errorf("A subscribes to hyper://grown/1: %v", err)
	}
	if n := notesB.Lists(); n != (harness.Lists{}) {
		t.Errorf("B was told list_changed %v", n)
	}

	// A reload that keeps the plugin keeps A's view and B's.
	before, _ := g.Reloads(t)
	harness.WriteFile(t, cfg, []byte(bins.YAML(harness.Parts{
		Plugins: harness.Item("name: sess", "path: "+v2, "instances: session") + harness.Item("name: calculator", "path: "+calc, "limits: {timeout: 29s}"),
	})))
	if _, failed := g.WaitReload(t, before, "the calculator's timeout"); failed > 0 {
		t.Fatalf("the reload failed: %s", g.Stderr())
	}
	if got := prompts(a); !slices.Contains(got, "grown_1") {
		t.Errorf("after a reload A lists prompts %v, want grown_1 still", got)
	}
	if got := prompts(b); !slices.Equal(got, sharedP) {
		t.Errorf("after a reload B lists prompts %v, want the shared %v", got, sharedP)
	}
	a.Close()
	g.BackNearBaseline(t, "a session-scoped relist of prompts and resources", base, 16<<20)
}
