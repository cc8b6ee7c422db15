package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestCompletionThroughEnvelope: completion/complete runs through the
// same envelope as the call it completes: it takes from the prompt's rate
// limit (shared with prompts/get), a refusal says so, and every
// completion has an audit line of kind "completion".
func TestCompletionThroughEnvelope(t *testing.T) {
	t.Parallel()
	audit := filepath.Join(t.TempDir(), "audit.log")
	v2 := harness.Q(harness.Wasm(t, "testdata/plugins/hyperv2"))
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins: harness.Item("name: hyperv2", "path: "+v2),
		Sections: `policy:
  rules:
    - principals: ["*"]
      allow: {tools: ["*"], resources: ["*"], prompts: ["*"]}
      rate_limit: {rate: 1/m, burst: 3}
audit:
  file: ` + harness.Q(audit) + "\n",
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 3*time.Minute)
	c := g.SessionClient(t)
	base := g.Baseline(t, nil)
	ref := mcp.PromptReference{Type: "ref/prompt", Name: "greet"}
	var served, limited int
	for range 5 {
		res, err := c.Complete(ctx, mcp.CompleteRequest{Params: mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteArgument{Name: "name", Value: "G"}}})
		switch {
		case err == nil && strings.Join(res.Completion.Values, " ") == "Grace":
			served++
		case err != nil && strings.Contains(err.Error(), `completion for prompt "greet" is rate limited`):
			limited++
		default:
			t.Fatalf("complete: %v %+v", err, res)
		}
	}
	if served != 3 || limited != 2 {
		t.Errorf("5 completions with a burst of 3: %d served, %d rate limited; want 3 and 2", served, limited)
	}
	// The limit is the prompt's: prompts/get is refused too now.
	if _, err := c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "x"}}}); err == nil || !strings.Contains(err.Error(), "rate limited") {
		t.Errorf("prompts/get after the completions took the burst: %v, want rate limited", err)
	}
	var lines []string
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(audit)
		lines = nil
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, `"kind":"completion"`) {
				lines = append(lines, l)
			}
		}
		if len(lines) >= 5 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(lines) != 5 || strings.Count(strings.Join(lines, "\n"), `"outcome":"rate_limited"`) != 2 {
		t.Errorf("audit lines of kind completion: %d (want 5, 2 of them rate_limited):\n%s", len(lines), strings.Join(lines, "\n"))
	}
	// Heap and goroutines are back near where they were before the attack.
	g.BackNearBaseline(t, "completions past the rate limit", base, 16<<20)
}
