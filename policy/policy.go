// Package policy decides who may call which tool, read which resource
// and get which prompt, and how often: the policy section of
// gateway.yaml, compiled at load time into an immutable Policy of pure
// functions (Decide, Visible, VisibleTemplate), and the rate limiters
// (Limiters) the gateway keeps across reloads.
//
// Semantics, in short (docs/policy.md has the reference):
//
//   - a rule applies to a request when one of its principals names the
//     caller: its name, group:NAME for one of its groups, or "*";
//   - deny wins: if an applying rule's deny matches the name and its
//     `when` holds (or fails to evaluate), the request is denied;
//   - else it is allowed if an applying rule's allow matches and its
//     `when` holds (a failure counts as false);
//   - else the default decides (deny unless `default: allow`).
//
// A nil *Policy is "no policy section": everything is allowed, nothing is
// limited.
package policy

import (
	"golang.org/x/time/rate"

	"github.com/wasmgate/wasmgate/internal/glob"
)

// Kind is what a request names: a tool, a resource or a prompt.
type Kind int

const (
	Tool Kind = iota
	Resource
	Prompt
	numKinds
)

func (k Kind) String() string {
	switch k {
	case Tool:
		return "tool"
	case Resource:
		return "resource"
	case Prompt:
		return "prompt"
	}
	return "unknown"
}

func (k Kind) valid() bool { return k >= 0 && k < numKinds }

// Principal is an authenticated caller: its name, its groups and, for a
// JWT, its claims (JSON values: string, float64, bool, []any,
// map[string]any).
type Principal struct {
	Name   string
	Groups []string
	Claims map[string]any
}

// Request is one call to decide.
type Request struct {
	Principal Principal
	Kind      Kind
	// Name is the tool name, the concrete resource URI (never a
	// template) or the prompt name, as the client sees it.
	Name string
	// Args are the tool's arguments, the prompt's arguments, or the
	// variables a resource template matched (nil is an empty map), as
	// encoding/json decodes them into any (numbers are float64).
	Args map[string]any
	// Transport is "http" or "stdio".
	Transport string
	// Connected lists the upstreams with auth.user_oauth the caller has
	// connected, for conditions on `connected`; called only by those
	// (nil: none).
	Connected func() []string
	// SessionLabels are the flow labels the caller's session (or
	// principal's window) has touched, for conditions on
	// `session.labels`; called only by those (nil func: none; a nil
	// result: they could not be read, and the condition fails).
	SessionLabels func() []string
}

// Decision is what Decide concluded.
type Decision struct {
	Allowed bool
	// Rule is the index in policy.rules of the rule that decided: the
	// first denying rule, else the first allowing rule; -1 when the
	// default decided (or there is no policy).
	Rule int
	// Limits are the rate limits of every rule that allowed the call, in
	// rule order; Limiters.Allow applies them all, with the gateway-wide
	// limit. Empty when denied. Read-only: it may be shared with other
	// Decisions.
	Limits []*RuleLimit

	kind Kind
}

// RuleLimit is a compiled rate limit.
type RuleLimit struct {
	// Rule is the index of its rule in policy.rules, or -1 for the
	// gateway-wide policy.rate_limit.
	Rule  int
	Limit rate.Limit // calls per second
	Burst int

	id string // fingerprint of the rule's content; keys the limiters
}

// Policy is a compiled policy section. It is immutable and safe for
// concurrent use.
type Policy struct {
	allowByDefault bool
	revealHidden   bool
	rules          []rule
	global         *RuleLimit
}

// UsesConnected reports whether a condition reads `connected` (the
// caller's connected upstreams), which costs a lookup per call.
func (p *Policy) UsesConnected() bool {
	if p == nil {
		return false
	}
	for _, r := range p.rules {
		if r.when != nil && r.when.uses[varConnected] {
			return true
		}
	}
	return false
}

// UsesSession reports whether a condition reads `session` (the flow
// labels of the caller's session), which costs a lookup per call.
func (p *Policy) UsesSession() bool {
	if p == nil {
		return false
	}
	for _, r := range p.rules {
		if r.when != nil && r.when.uses[varSession] {
			return true
		}
	}
	return false
}

// RevealHidden reports whether a call of what the caller may not see is
// answered "denied by policy" (policy.reveal_hidden) rather than as an
// unknown name.
func (p *Policy) RevealHidden() bool { return p != nil && p.revealHidden }

type rule struct {
	index       int
	who         principals
	allow, deny matcher
	when        *condition // nil: always
	limit       *RuleLimit
	limits      []*RuleLimit // limit alone: a Decision's Limits when only this rule's limit applies
}

// principals is who a rule applies to.
type principals struct {
	everyone bool
	names    []string
	groups   []string
}

func (w *principals) has(p *Principal) bool {
	if w.everyone {
		return true
	}
	for _, n := range w.names {
		if n == p.Name {
			return true
		}
	}
	for _, g := range w.groups {
		for _, pg := range p.Groups {
			if g == pg {
				return true
			}
		}
	}
	return false
}

// matcher holds a rule's globs by Kind.
type matcher [numKinds]glob.Set

func (m *matcher) match(k Kind, name string) bool { return m[k].Match(name) }

// Default reports whether what no rule allows is allowed (default: allow).
func (p *Policy) Default() bool { return p == nil || p.allowByDefault }

// GatewayLimit is the gateway-wide per-principal limit (policy.rate_limit),
// or nil.
func (p *Policy) GatewayLimit() *RuleLimit {
	if p == nil {
		return nil
	}
	return p.global
}

// Decide decides one request. A `when` that fails to evaluate (a missing
// key, a wrong type, over MaxCost) counts as true in a deny and false in
// an allow, so an error never grants anything. A Kind out of range is
// denied.
func (p *Policy) Decide(req Request) Decision {
	d := Decision{Rule: -1, kind: req.Kind}
	if p == nil {
		d.Allowed = true
		return d
	}
	if !req.Kind.valid() {
		return d
	}
	// The activation is built only if a condition is evaluated, so that
	// rules without one cost no allocation.
	var act *activation
	eval := func(c *condition) truth {
		if c.fast != nil { // no activation, no allocation
			if t, ok := c.fast.truth(&req); ok {
				return t
			}
		}
		if act == nil {
			act = &activation{req: req}
		}
		return c.prgEval(act)
	}
	for i := range p.rules {
		r := &p.rules[i]
		if !r.deny.match(req.Kind, req.Name) || !r.who.has(&req.Principal) {
			continue
		}
		if r.when == nil || eval(r.when) != isFalse {
			d.Rule = r.index
			return d
		}
	}
	for i := range p.rules {
		r := &p.rules[i]
		if !r.allow.match(req.Kind, req.Name) || !r.who.has(&req.Principal) {
			continue
		}
		if r.when != nil && eval(r.when) != isTrue {
			continue
		}
		if d.Rule < 0 {
			d.Rule = r.index
		}
		switch {
		case r.limit == nil:
		case d.Limits == nil:
			d.Limits = r.limits // shared, of capacity 1: an append copies it
		default:
			d.Limits = append(d.Limits, r.limit)
		}
	}
	d.Allowed = d.Rule >= 0 || p.allowByDefault
	return d
}

// Visible reports whether a list (tools/list, resources/list,
// prompts/list) shows name to principal pr: whether some call could be
// allowed. A `when` is evaluated with what a list knows (principal, tool,
// name, kind); args and transport are unknown, and a condition that
// depends on them counts as possibly true in an allow and as not denying.
// So Visible is true whenever Decide could allow the name for some
// arguments and transport, and false when every call would be denied.
func (p *Policy) Visible(pr Principal, kind Kind, name string) bool {
	if p == nil {
		return true
	}
	if !kind.valid() {
		return false
	}
	req := Request{Principal: pr, Kind: kind, Name: name}
	return p.visible(req, probe{name: name}, modeList)
}

// VisibleTemplate reports whether resources/templates/list shows the
// URI template tmpl (RFC 6570, e.g. storage://{key}) to pr. Each
// {expression} is taken as '*': the template is shown when an applying
// allow glob could match some expansion (the two patterns overlap), and
// hidden when an applying deny glob surely matches every expansion. The
// approximation errs towards showing (a {var} expansion holds no '/', a
// '*' does; a deny that covers all expansions in a way the check cannot
// see leaves the template shown), never towards allowing: each read is
// decided by Decide on its concrete URI. tool and name are unknown to a
// `when` here.
func (p *Policy) VisibleTemplate(pr Principal, tmpl string) bool {
	if p == nil {
		return true
	}
	req := Request{Principal: pr, Kind: Resource, Name: tmpl}
	return p.visible(req, probe{template: true, tmpl: glob.Template(tmpl)}, modeTemplate)
}

// probe is what a list entry is matched as: a name, or the pattern of a
// template's expansions.
type probe struct {
	name     string
	template bool
	tmpl     glob.Pattern
}

// denied reports whether g surely matches every request for the entry.
func (e *probe) denied(g *glob.Pattern) bool {
	if e.template {
		return glob.Covers(g, &e.tmpl)
	}
	return g.Match(e.name)
}

// allowed reports whether g could match some request for the entry.
func (e *probe) allowed(g *glob.Pattern) bool {
	if e.template {
		return glob.Overlaps(g, &e.tmpl)
	}
	return g.Match(e.name)
}

// visible is Visible for an entry, with what a list in mode m knows.
func (p *Policy) visible(req Request, e probe, m mode) bool {
	var act *activation
	atList := func(c *condition) truth {
		if c.isFix[m] {
			return c.fixed[m]
		}
		if act == nil {
			act = &activation{req: req}
		}
		return c.atList(act, m)
	}
	for i := range p.rules {
		r := &p.rules[i]
		if !r.who.has(&req.Principal) || !anyGlob(r.deny[req.Kind], e.denied) {
			continue
		}
		if r.when == nil {
			return false
		}
		if t := atList(r.when); t == isTrue || t == isError {
			return false
		}
	}
	if p.allowByDefault {
		return true
	}
	for i := range p.rules {
		r := &p.rules[i]
		if !r.who.has(&req.Principal) || !anyGlob(r.allow[req.Kind], e.allowed) {
			continue
		}
		if r.when == nil {
			return true
		}
		if t := atList(r.when); t == isTrue || t == isUnknown {
			return true
		}
	}
	return false
}

func anyGlob(gs glob.Set, f func(*glob.Pattern) bool) bool {
	for i := range gs {
		if f(&gs[i]) {
			return true
		}
	}
	return false
}
