// Package flow is flow control: labels say what a source's tools,
// resources and prompts do (read private data, bring in untrusted
// content, send data out), a session collects the labels of the calls it
// made (its taint), and rules stop a call whose labels a rule blocks once
// the taint holds every label the rule lists in after: the "lethal
// trifecta" of private data, untrusted content and a way out in one
// session (docs/flows.md).
//
// The taint is kept in a Store: in this process (Memory) or in Redis
// (package state), so that every replica enforces what another saw.
package flow

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The labels the gateway knows; operators may use others.
const (
	Private   = "private"   // reads data that must not leave
	Untrusted = "untrusted" // brings in content anyone may have written
	Egress    = "egress"    // can send data out
)

// Builtin are the labels the gateway derives itself.
var Builtin = []string{Private, Untrusted, Egress}

// Scopes of taint (flows.scope).
const (
	ScopeSession   = "session"
	ScopePrincipal = "principal"
)

// Actions of a rule.
const (
	ActionDeny   = "deny"
	ActionElicit = "elicit"
	ActionAudit  = "audit"
)

// Rule is one of flows.rules: once the taint holds every label of After,
// a call with any label of Block gets Action.
type Rule struct {
	Name   string
	After  []string
	Block  []string
	Action string
}

// Config is what Rules are compiled from (the loader's flows section).
type Config struct {
	Scope    string
	Window   time.Duration
	Unscoped string // "deny" or "allow"
	// SessionTTL is how long a session's taint is kept after its last
	// change, for a session that ends without the gateway hearing of it
	// (a replica that was not serving it).
	SessionTTL time.Duration
	Rules      []Rule
}

// Rules are a compiled flows section. Immutable.
type Rules struct {
	Scope      string
	Window     time.Duration
	Unscoped   string
	SessionTTL time.Duration
	rules      []Rule
	block      map[string]bool // labels some rule blocks
}

// New compiles cfg (checked by the loader); nil when it has no rules.
func New(cfg Config) *Rules {
	if len(cfg.Rules) == 0 {
		return nil
	}
	r := &Rules{Scope: cfg.Scope, Window: cfg.Window, Unscoped: cfg.Unscoped, SessionTTL: cfg.SessionTTL, rules: slices.Clone(cfg.Rules), block: map[string]bool{}}
	for _, rule := range cfg.Rules {
		for _, l := range rule.Block {
			r.block[l] = true
		}
	}
	return r
}

// List is every rule, in order.
func (r *Rules) List() []Rule {
	if r == nil {
		return nil
	}
	return r.rules
}

// Blockable reports whether some rule blocks a call with labels, given
// the right taint: only such a call needs the taint read.
func (r *Rules) Blockable(labels []string) bool {
	if r == nil {
		return false
	}
	for _, l := range labels {
		if r.block[l] {
			return true
		}
	}
	return false
}

// Blocking is the first rule that blocks a call with labels in a scope
// whose taint is t, and false when none does. Approvals are not looked
// at (Taint.Approved).
func (r *Rules) Blocking(labels []string, t *Taint) (Rule, bool) {
	if r == nil {
		return Rule{}, false
	}
	for _, rule := range r.rules {
		if !intersects(rule.Block, labels) {
			continue
		}
		if t.Has(rule.After...) {
			return rule, true
		}
	}
	return Rule{}, false
}

// Armed is the rules whose after labels t holds (the status page's
// tainted sessions per rule).
func (r *Rules) Armed(t *Taint) []string {
	var out []string
	for _, rule := range r.List() {
		if t.Has(rule.After...) {
			out = append(out, rule.Name)
		}
	}
	return out
}

func intersects(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// Call is a call that added a label to a taint: what the deny message
// and the audit line name (never its arguments or its result).
type Call struct {
	Kind   string    `json:"k"` // tool, resource, prompt
	Name   string    `json:"n"` // the tool or prompt name, the resource URI
	Source string    `json:"s"`
	At     time.Time `json:"t"`
}

func (c Call) String() string { return fmt.Sprintf("%s %q (%s)", c.Kind, c.Name, c.Source) }

// same reports whether c and d are one call: == on At would compare its
// location and monotonic reading too, which differ for the same instant
// read back from Redis (a replica in another time zone).
func (c Call) same(d Call) bool {
	return c.Kind == d.Kind && c.Name == d.Name && c.Source == d.Source && c.At.Equal(d.At)
}

// Taint is what a scope (a session, or a principal within the window)
// has touched: each label with the latest call that added it, and the
// calls a person approved.
type Taint struct {
	Labels   map[string]Call
	Approved map[string]time.Time // ApprovalKey(rule, name) -> when
}

// Has reports whether t holds every label (true for none).
func (t *Taint) Has(labels ...string) bool {
	for _, l := range labels {
		if t == nil {
			return false
		}
		if _, ok := t.Labels[l]; !ok {
			return false
		}
	}
	return true
}

// Names is t's labels, sorted.
func (t *Taint) Names() []string {
	if t == nil {
		return []string{}
	}
	out := make([]string, 0, len(t.Labels))
	for l := range t.Labels {
		out = append(out, l)
	}
	slices.Sort(out)
	return out
}

// Chain is the calls that added the labels of rule's after, in order.
func (t *Taint) Chain(rule Rule) []Call {
	if t == nil {
		return nil
	}
	var out []Call
	for _, l := range rule.After {
		if c, ok := t.Labels[l]; ok && !slices.ContainsFunc(out, c.same) {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b Call) int { return a.At.Compare(b.At) })
	return out
}

// ChainText is Chain as a person reads it: `read tool "read_notes"
// (notes) as private, ...`.
func (t *Taint) ChainText(rule Rule) string {
	var parts []string
	for _, c := range t.Chain(rule) {
		var as []string
		for _, l := range rule.After {
			if d, ok := t.Labels[l]; ok && d.same(c) {
				as = append(as, l)
			}
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", c, strings.Join(as, ", ")))
	}
	return strings.Join(parts, ", then ")
}

// IsApproved reports whether a person approved calls of name under rule
// in t's scope.
func (t *Taint) IsApproved(rule, name string) bool {
	if t == nil {
		return false
	}
	_, ok := t.Approved[ApprovalKey(rule, name)]
	return ok
}

// ApprovalKey names an approval: rule and tool.
func ApprovalKey(rule, name string) string { return rule + "\x00" + name }

// Store keeps taints by scope key (Key). Every method is safe for
// concurrent use. Window, when positive, is how long a label (or an
// approval) lasts after the call that added it; ttl how long a scope's
// entry is kept after its last change.
type Store interface {
	// Get is key's taint: nil when it has none. It is read-only (a
	// store may hand out what it keeps) and does not change after.
	Get(ctx context.Context, key string, window time.Duration) (*Taint, error)
	// Add adds labels to key's taint, as added by call.
	Add(ctx context.Context, key string, labels []string, call Call, ttl time.Duration) error
	// Approve records that a person approved calls of name under rule.
	Approve(ctx context.Context, key, rule, name string, ttl time.Duration) error
	// Reset forgets key's taint and approvals; it reports whether there
	// was one.
	Reset(ctx context.Context, key string) (bool, error)
	// Scan calls fn with each taint (at most limit of them) and reports
	// whether it saw them all.
	Scan(ctx context.Context, limit int, window time.Duration, fn func(key string, t *Taint)) (complete bool, err error)
}

// Key is the store key of a session or a principal's window; "" for a
// request with neither (unscoped).
func Key(scope, session, principal string) string {
	if scope == ScopeSession && session != "" {
		return "session:" + session
	}
	if principal != "" {
		return "principal:" + principal
	}
	return ""
}
