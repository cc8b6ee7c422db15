package policy

import (
	"testing"
)

// TestConnected: a condition on `connected` (the upstreams with
// auth.user_oauth the caller has connected) reads the caller's list only
// when it is evaluated, and a list (which knows no caller's connections)
// keeps the tool visible.
func TestConnected(t *testing.T) {
	p := mustNew(t, Config{Default: "deny", Rules: []Rule{
		{Principals: all("*"), Allow: Match{Tools: all("gh_*")}, When: `"github" in connected`},
		{Principals: all("*"), Allow: Match{Tools: all("echo")}},
	}})
	if !p.UsesConnected() {
		t.Fatal("UsesConnected is false for a condition on connected")
	}
	if mustNew(t, mainConfig).UsesConnected() {
		t.Error("UsesConnected is true for a policy without a condition on connected")
	}
	asked := 0
	with := func(up ...string) func() []string {
		return func() []string { asked++; return up }
	}
	for _, tc := range []struct {
		name      string
		tool      string
		connected func() []string
		allowed   bool
		asks      int
	}{
		{"connected", "gh_issues", with("github", "tickets"), true, 1},
		{"another upstream connected", "gh_issues", with("tickets"), false, 1},
		{"nothing connected", "gh_issues", with(), false, 1},
		{"no lookup", "gh_issues", nil, false, 0},
		{"a rule without the condition", "echo", with("github"), true, 0},
	} {
		asked = 0
		d := p.Decide(Request{Principal: who("alice"), Kind: Tool, Name: tc.tool, Connected: tc.connected})
		if d.Allowed != tc.allowed || asked != tc.asks {
			t.Errorf("%s: allowed %v after %d lookups, want %v after %d", tc.name, d.Allowed, asked, tc.allowed, tc.asks)
		}
	}
	if !p.Visible(who("alice"), Tool, "gh_issues") {
		t.Error("a tool allowed when connected is hidden from the list; want it listed (a list knows no connections)")
	}
}
