package policy

import (
	"testing"
)

// TestSessionLabels: a condition on `session.labels` (the flow labels the
// caller's session has touched) reads them only when it is evaluated; a
// store that could not be read (nil) fails the condition, which denies;
// a list keeps the tool visible.
func TestSessionLabels(t *testing.T) {
	p := mustNew(t, Config{Default: "allow", Rules: []Rule{
		{Principals: all("*"), Deny: Match{Tools: all("send_*")}, When: `"private" in session.labels`},
		{Principals: all("*"), Allow: Match{Tools: all("upload")}, When: `!("untrusted" in session.labels)`},
	}})
	if !p.UsesSession() {
		t.Fatal("UsesSession is false for a condition on session")
	}
	if mustNew(t, mainConfig).UsesSession() {
		t.Error("UsesSession is true for a policy without a condition on session")
	}
	asked := 0
	with := func(labels ...string) func() []string {
		return func() []string {
			asked++
			if labels == nil {
				return nil
			}
			return labels
		}
	}
	for _, tc := range []struct {
		name    string
		tool    string
		labels  func() []string
		allowed bool
		asks    int
	}{
		{"private touched", "send_mail", with("private", "egress"), false, 1},
		{"nothing private", "send_mail", with("untrusted"), true, 1},
		{"no session labels", "send_mail", nil, true, 0},
		{"state unavailable", "send_mail", with(), false, 1}, // the deny rule's condition fails: denied
		{"untrusted touched", "upload", with("untrusted"), true, 1},
		{"state unavailable, allow rule", "upload", with(), true, 1}, // its allow does not apply; the default allows
		{"a tool without conditions", "echo", with("private"), true, 0},
	} {
		asked = 0
		d := p.Decide(Request{Principal: who("alice"), Kind: Tool, Name: tc.tool, SessionLabels: tc.labels})
		if d.Allowed != tc.allowed || asked != tc.asks {
			t.Errorf("%s: allowed %v after %d lookups, want %v after %d", tc.name, d.Allowed, asked, tc.allowed, tc.asks)
		}
	}
	if !p.Visible(who("alice"), Tool, "send_mail") {
		t.Error("a tool denied only for tainted sessions is hidden from the list; want it listed")
	}
}
