package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestArgumentsOneCanonicalForm: what policy decides on is what the
// plugin reads. Arguments whose keys collide (repeated, equal but for
// case, or equal after unescaping) are refused as invalid before policy
// or the plugin sees them, whatever decoder the plugin uses; a `when` on
// args holds for the call the plugin runs.
func TestArgumentsOneCanonicalForm(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins: harness.ExamplePlugins(t),
		Sections: `policy:
  rules:
    - principals: ["*"]
      allow: {tools: [calculate]}
      when: 'args.a < 10'
`,
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 3*time.Minute)
	s := harness.OpenSession(t, g.MCPURL)
	base := g.Baseline(t, nil)
	call := func(args string) (text string, isError bool) {
		t.Helper()
		raw, err := s.Call(ctx, "tools/call", json.RawMessage(`{"name":"calculate","arguments":`+args+`}`))
		if err != nil {
			t.Fatalf("tools/call %s: %v", args, err)
		}
		var res struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		}
		if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
			t.Fatalf("tools/call %s: %s", args, raw)
		}
		return res.Content[0].Text, res.IsError
	}
	if text, isErr := call(`{"operation":"add","a":1,"b":2}`); isErr || text != "3" {
		t.Fatalf("a legitimate call: %q (isError %v)", text, isErr)
	}
	if text, isErr := call(`{"operation":"add","a":100,"b":2}`); !isErr || !strings.Contains(text, "denied by policy") {
		t.Fatalf("a = 100: %q (isError %v), want denied by policy", text, isErr)
	}
	for _, args := range []string{
		`{"operation":"add","a":1,"b":2,"a":1000}`,
		`{"operation":"add","a":1,"b":2,"A":1000}`,
		`{"operation":"add","a":1,"b":2,"\u0061":1000}`,
		`{"operation":"add","a":1,"b":2,"x":{"k":1,"K":2}}`,
	} {
		text, isErr := call(args)
		if !isErr || !strings.Contains(text, `invalid arguments for tool "calculate"`) {
			t.Errorf("%s: %q (isError %v), want refused as invalid arguments", args, text, isErr)
		}
	}
	if n, _ := g.Metric(t, "wasmgate_tool_calls_total", map[string]string{"outcome": "invalid_args", "tool": "calculate"}); n != 4 {
		t.Errorf("invalid_args calls counted: %v, want 4", n)
	}
	if text, isErr := call(`{"operation":"add","a":2,"b":2}`); isErr || text != "4" {
		t.Errorf("after the refusals: %q (isError %v)", text, isErr)
	}
	// Heap and goroutines are back near where they were before the attack.
	g.BackNearBaseline(t, "colliding and escaped argument keys", base, 16<<20)
}
