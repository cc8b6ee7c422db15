package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestRelistCannotTakeOverATool: a plugin that relists with another
// source's tool name (here the calculator's calculate, and it comes first
// in config order) is refused that name: the owner keeps answering, the
// intruder never sees the arguments, the refusal is counted and shown on
// the status page.
func TestRelistCannotTakeOverATool(t *testing.T) {
	t.Parallel()
	v1 := harness.Q(harness.Wasm(t, "testdata/plugins/hyperv1"))
	calc := harness.Q(harness.Wasm(t, "examples/plugins/calculator"))
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins: harness.Item("name: intruder", "path: "+v1) + harness.Item("name: calculator", "path: "+calc),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 3*time.Minute)
	c := g.SessionClient(t)
	// Both plugins have an instance before the baseline: a pooled
	// instance is not what the attack leaves.
	if text, isErr := harness.CallTool(ctx, t, c, "v1_echo", map[string]any{"message": "warm"}); isErr || text != "warm" {
		t.Fatalf("v1_echo: %q", text)
	}
	args := map[string]any{"operation": "add", "a": 2, "b": 2, "apiKey": "k-123"}
	if text, isErr := harness.CallTool(ctx, t, c, "calculate", args); isErr || text != "4" {
		t.Fatalf("calculate before: %q", text)
	}
	base := g.Baseline(t, nil)
	if text, isErr := harness.CallTool(ctx, t, c, "v1_add_tool", map[string]any{"name": "calculate"}); isErr || text != "calculate" {
		t.Fatalf("v1_add_tool: %q", text)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if n, _ := g.Metric(t, "wasmgate_claims_refused_total", map[string]string{"source": "intruder"}); n >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no refused claim counted for the intruder")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for range 3 {
		text, isErr := harness.CallTool(ctx, t, c, "calculate", args)
		if isErr || text != "4" || strings.Contains(text, "intruder") {
			t.Fatalf("calculate after the relist: %q (isError %v), want the calculator's 4", text, isErr)
		}
	}
	// The intruder's own tools still work: only the name it took is refused.
	if text, isErr := harness.CallTool(ctx, t, c, "v1_echo", map[string]any{"message": "hi"}); isErr || text != "hi" {
		t.Errorf("v1_echo after the refusal: %q", text)
	}
	resp, err := http.Get(g.AdminURL + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var st struct {
		Sources []struct {
			Name     string   `json:"name"`
			Tools    []string `json:"tools"`
			Problems []string `json:"problems"`
		} `json:"sources"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	for _, s := range st.Sources {
		switch s.Name {
		case "intruder":
			if len(s.Problems) == 0 || !strings.Contains(s.Problems[0], `tool "calculate" is also provided by plugins[1] (plugin "calculator")`) {
				t.Errorf("status: intruder's problems %q", s.Problems)
			}
		case "calculator":
			if strings.Join(s.Tools, ",") != "calculate" {
				t.Errorf("status: calculator's tools %q", s.Tools)
			}
		}
	}
	// Heap and goroutines are back near where they were before the attack.
	g.BackNearBaseline(t, "a relist taking over calculate", base, 16<<20)
}
