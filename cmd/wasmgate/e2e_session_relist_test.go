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
	if !harness.WaitFor(10*time.Second, func() bool { return strings.Contains(g.Stderr(), "the session's transport keeps no tools of its own") }) {
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
