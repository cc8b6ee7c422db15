package flow

import (
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

func trifecta(action string) Rule {
	return Rule{Name: "lethal-trifecta", After: []string{Private, Untrusted}, Block: []string{Egress}, Action: action}
}

func TestNewWithoutRules(t *testing.T) {
	r := New(Config{Scope: ScopeSession, Window: time.Hour, Unscoped: "deny"})
	if r != nil {
		t.Fatalf("New without rules: %+v", r)
	}
	// A nil *Rules blocks nothing.
	if r.Blockable([]string{Egress}) || r.List() != nil || r.Armed(&Taint{Labels: map[string]Call{Private: {}}}) != nil {
		t.Error("a nil *Rules blocks something")
	}
	if _, ok := r.Blocking([]string{Egress}, &Taint{}); ok {
		t.Error("a nil *Rules has a blocking rule")
	}
}

func TestRules(t *testing.T) {
	cfg := Config{Scope: ScopePrincipal, Window: time.Hour, Unscoped: "allow", Rules: []Rule{
		trifecta(ActionDeny),
		{Name: "no-mail-after-web", After: []string{Untrusted}, Block: []string{"mail", Egress}, Action: ActionAudit},
	}}
	r := New(cfg)
	cfg.Rules[0].Name = "changed" // New keeps its own copy
	if r.Scope != ScopePrincipal || r.Window != time.Hour || r.Unscoped != "allow" {
		t.Errorf("settings: %+v", r)
	}
	if names := []string{r.List()[0].Name, r.List()[1].Name}; names[0] != "lethal-trifecta" || names[1] != "no-mail-after-web" {
		t.Errorf("List: %v", names)
	}

	for _, c := range []struct {
		labels []string
		want   bool
	}{
		{nil, false},
		{[]string{Private}, false},
		{[]string{Private, Untrusted}, false},
		{[]string{Egress}, true},
		{[]string{Untrusted, "mail"}, true},
		{[]string{"custom"}, false},
	} {
		if got := r.Blockable(c.labels); got != c.want {
			t.Errorf("Blockable(%v) = %v", c.labels, got)
		}
	}

	taint := func(labels ...string) *Taint {
		tt := &Taint{Labels: map[string]Call{}}
		for _, l := range labels {
			tt.Labels[l] = Call{Kind: "tool", Name: "t-" + l, Source: "s", At: t0}
		}
		return tt
	}
	for _, c := range []struct {
		labels []string
		taint  *Taint
		want   string // the rule, "" for none
	}{
		{[]string{Egress}, nil, ""},
		{[]string{Egress}, taint(), ""},
		{[]string{Egress}, taint(Private), ""},
		{[]string{Egress}, taint(Untrusted), "no-mail-after-web"},
		{[]string{Egress}, taint(Private, Untrusted), "lethal-trifecta"}, // the first that blocks
		{[]string{"mail"}, taint(Private, Untrusted), "no-mail-after-web"},
		{[]string{Private}, taint(Private, Untrusted, Egress), ""},
		{nil, taint(Private, Untrusted), ""},
	} {
		rule, ok := r.Blocking(c.labels, c.taint)
		if got := rule.Name; ok != (c.want != "") || got != c.want {
			t.Errorf("Blocking(%v, %v) = %q %v, want %q", c.labels, c.taint.Names(), got, ok, c.want)
		}
	}

	if got := r.Armed(nil); got != nil {
		t.Errorf("Armed(nil) = %v", got)
	}
	if got := r.Armed(taint(Private)); got != nil {
		t.Errorf("Armed(private) = %v", got)
	}
	if got := r.Armed(taint(Private, Untrusted)); !slices.Equal(got, []string{"lethal-trifecta", "no-mail-after-web"}) {
		t.Errorf("Armed(private, untrusted) = %v", got)
	}
}

func TestTaint(t *testing.T) {
	var none *Taint
	if !none.Has() || none.Has(Private) || none.IsApproved("r", "post") || len(none.Names()) != 0 || none.Names() == nil {
		t.Error("a nil taint")
	}
	if none.Chain(trifecta(ActionDeny)) != nil || none.ChainText(trifecta(ActionDeny)) != "" {
		t.Error("the chain of a nil taint")
	}

	notes := Call{Kind: "tool", Name: "read_notes", Source: "notes", At: t0}
	page := Call{Kind: "resource", Name: "https://example.com/a", Source: "web", At: t0.Add(-time.Minute)}
	tt := &Taint{
		Labels:   map[string]Call{Private: notes, Untrusted: page, Egress: page},
		Approved: map[string]time.Time{ApprovalKey("lethal-trifecta", "post"): t0},
	}
	if !tt.Has() || !tt.Has(Private, Untrusted) || tt.Has(Private, "custom") {
		t.Error("Has")
	}
	if got := tt.Names(); !slices.Equal(got, []string{Egress, Private, Untrusted}) {
		t.Errorf("Names: %v", got)
	}
	// In the order of the calls, each once.
	if got := tt.Chain(trifecta(ActionDeny)); !slices.Equal(got, []Call{page, notes}) {
		t.Errorf("Chain: %v", got)
	}
	want := `resource "https://example.com/a" (web) (untrusted), then tool "read_notes" (notes) (private)`
	if got := tt.ChainText(trifecta(ActionDeny)); got != want {
		t.Errorf("ChainText:\n got %s\nwant %s", got, want)
	}
	both := Rule{Name: "r", After: []string{Untrusted, Egress}}
	if got := tt.ChainText(both); got != `resource "https://example.com/a" (web) (untrusted, egress)` {
		t.Errorf("ChainText of one call that added both labels: %s", got)
	}
	if got := tt.ChainText(Rule{Name: "r", After: []string{"custom"}}); got != "" {
		t.Errorf("ChainText of labels the taint does not hold: %q", got)
	}
	if !tt.IsApproved("lethal-trifecta", "post") || tt.IsApproved("lethal-trifecta", "fetch") || tt.IsApproved("other", "post") {
		t.Error("IsApproved")
	}
	// The rule and tool of an approval cannot run into each other.
	if ApprovalKey("a", "bc") == ApprovalKey("ab", "c") {
		t.Error("ApprovalKey is ambiguous")
	}
}

// One call read back in another location (as from Redis written by a
// replica in another time zone) is still one call of the chain.
func TestChainSameCallElsewhere(t *testing.T) {
	c := Call{Kind: "tool", Name: "fetch", Source: "web", At: t0}
	d := c
	d.At = t0.In(time.FixedZone("CEST", 2*3600))
	tt := &Taint{Labels: map[string]Call{Untrusted: c, Egress: d}}
	rule := Rule{Name: "r", After: []string{Untrusted, Egress}}
	if got := tt.Chain(rule); len(got) != 1 {
		t.Errorf("Chain: %v", got)
	}
	if got := tt.ChainText(rule); got != `tool "fetch" (web) (untrusted, egress)` {
		t.Errorf("ChainText: %s", got)
	}
}

func TestKey(t *testing.T) {
	for _, c := range []struct{ scope, session, principal, want string }{
		{ScopeSession, "s1", "alice", "session:s1"},
		{ScopeSession, "", "alice", "principal:alice"}, // a stateless request
		{ScopeSession, "", "", ""},
		{ScopePrincipal, "s1", "alice", "principal:alice"},
		{ScopePrincipal, "s1", "", ""},
	} {
		if got := Key(c.scope, c.session, c.principal); got != c.want {
			t.Errorf("Key(%q, %q, %q) = %q, want %q", c.scope, c.session, c.principal, got, c.want)
		}
	}
}
