package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestHiddenAnswersAsUnknown: by default a call of a tool the caller may
// not see gets the very answer an unknown tool gets (names cannot be
// enumerated), and is still counted and audited as denied; with
// policy.reveal_hidden it says "denied by policy".
func TestHiddenAnswersAsUnknown(t *testing.T) {
	t.Parallel()
	for _, reveal := range []bool{false, true} {
		extra := ""
		if reveal {
			extra = "  reveal_hidden: true\n"
		}
		cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
			Plugins:  harness.ExamplePlugins(t),
			Sections: "policy:\n" + extra + "  rules:\n    - principals: [\"*\"]\n      allow: {tools: [calculate]}\n",
		}))
		g := bins.Start(t, harness.Options{Config: cfg})
		ctx := harness.Ctx(t, 3*time.Minute)
		s := harness.OpenSession(t, g.MCPURL)
		base := g.Baseline(t, nil)
		answer := func(name string) string {
			raw, err := s.Call(ctx, "tools/call", json.RawMessage(`{"name":"`+name+`","arguments":{}}`))
			if err != nil {
				return strings.ReplaceAll(err.Error(), name, "NAME")
			}
			return strings.ReplaceAll(string(raw), name, "NAME")
		}
		hidden, unknown := answer("say_hello"), answer("no_such_tool")
		if !reveal && hidden != unknown {
			t.Errorf("a hidden tool is answered %q, an unknown one %q: they can be told apart", hidden, unknown)
		}
		if reveal && !strings.Contains(hidden, "denied by policy") {
			t.Errorf("reveal_hidden: a hidden tool is answered %q, want denied by policy", hidden)
		}
		if n, _ := g.Metric(t, "wasmgate_policy_denials_total", map[string]string{"kind": "tool"}); n != 1 {
			t.Errorf("reveal_hidden %v: denials counted %v, want 1", reveal, n)
		}
		// Enumerating names holds nothing.
		for i := range 200 {
			answer(fmt.Sprintf("guess_%d", i))
		}
		g.BackNearBaseline(t, "enumerating tool names", base, 16<<20)
	}
}
