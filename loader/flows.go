package loader

import (
	"fmt"
	"slices"
	"time"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/flow"
)

// DefaultFlowWindow is flows.window when unset.
const DefaultFlowWindow = time.Hour

// Flows is the flows section: rules on what a session may do once it
// has touched data with some labels (docs/flows.md).
//
//	flows:
//	  scope: session
//	  rules:
//	    - {name: lethal-trifecta, after: [private, untrusted], block: [egress], action: elicit}
type Flows struct {
	// Scope is what a taint belongs to: an MCP session (session, the
	// default; a request without one falls back to its principal) or a
	// principal within Window (principal).
	Scope string `koanf:"scope"`
	// Window is how long a label lasts under scope principal after the
	// call that added it (default 1h).
	Window config.Duration `koanf:"window"`
	// Unscoped is what happens to a call a rule could block when the
	// request has neither a session nor an authenticated principal:
	// deny (the default) or allow.
	Unscoped string `koanf:"unscoped"`
	// FromAnnotations labels the tools of upstream servers without
	// labels from their MCP annotations.
	FromAnnotations bool       `koanf:"from_annotations"`
	Rules           []FlowRule `koanf:"rules"`
}

// FlowRule is one of flows.rules.
type FlowRule struct {
	Name   string   `koanf:"name"`
	After  []string `koanf:"after"`
	Block  []string `koanf:"block"`
	Action string   `koanf:"action"` // deny (default), elicit, audit
}

// On reports whether flow control is configured (any rule).
func (f Flows) On() bool { return len(f.Rules) > 0 }

// FlowSessionTTL is how long a session's taint is kept after its last
// change at least: sessions rarely live longer, and one that ended on
// another replica is forgotten then.
const FlowSessionTTL = 24 * time.Hour

// FlowRules is the flows section as package flow runs it (nil without
// rules).
func (c *Config) FlowRules() *flow.Rules {
	f := c.Flows
	cfg := flow.Config{Scope: f.Scope, Window: time.Duration(f.Window), Unscoped: f.Unscoped,
		SessionTTL: max(FlowSessionTTL, time.Duration(c.Transports.HTTP.SessionIdleTimeout))}
	for _, r := range f.Rules {
		cfg.Rules = append(cfg.Rules, flow.Rule{Name: r.Name, After: r.After, Block: r.Block, Action: r.Action})
	}
	return flow.New(cfg)
}

func (f *Flows) Normalize(key string, env *config.Env) {
	switch f.Scope {
	case "":
		f.Scope = flow.ScopeSession
	case flow.ScopeSession, flow.ScopePrincipal:
	default:
		env.Bad(key+".scope", "%q: use session or principal", f.Scope)
	}
	switch {
	case f.Window == 0:
		f.Window = config.Duration(DefaultFlowWindow)
	case f.Window < config.Duration(time.Second):
		env.Bad(key+".window", "%s is out of range (at least 1s)", f.Window)
	}
	switch f.Unscoped {
	case "":
		f.Unscoped = "deny"
	case "deny", "allow":
	default:
		env.Bad(key+".unscoped", "%q: use deny or allow", f.Unscoped)
	}
	names := map[string]int{}
	for i := range f.Rules {
		r := &f.Rules[i]
		k := fmt.Sprintf("%s.rules[%d]", key, i)
		switch {
		case r.Name == "":
			env.Bad(k+".name", "missing: every rule needs a name (it labels metrics, audit lines and messages)")
		case !config.ValidName(r.Name):
			env.Bad(k+".name", "%q: use letters, digits, '_', '-' or '.' (1-64 characters)", r.Name)
		default:
			if j, ok := names[r.Name]; ok {
				env.Bad(k+".name", "duplicate rule name %q (also %s.rules[%d])", r.Name, key, j)
			}
			names[r.Name] = i
		}
		switch r.Action {
		case "":
			r.Action = flow.ActionDeny
		case flow.ActionDeny, flow.ActionElicit, flow.ActionAudit:
		default:
			env.Bad(k+".action", "%q: use deny, elicit or audit", r.Action)
		}
		if len(r.After) == 0 {
			env.Bad(k+".after", "missing: the labels a session must have touched before the rule blocks anything (e.g. [private, untrusted])")
		}
		if len(r.Block) == 0 {
			env.Bad(k+".block", "missing: the labels of the calls the rule stops (e.g. [egress])")
		}
		for _, l := range [...]struct {
			k  string
			ls []string
		}{{"after", r.After}, {"block", r.Block}} {
			for j, label := range l.ls {
				if !config.ValidName(label) {
					env.Bad(fmt.Sprintf("%s.%s[%d]", k, l.k, j), "%q is not a label: use 1-64 letters, digits, '_', '-' or '.'", label)
				} else if slices.Index(l.ls, label) < j {
					env.Bad(fmt.Sprintf("%s.%s[%d]", k, l.k, j), "%q is listed twice", label)
				}
			}
		}
	}
}

// FlowKey is where the section sits, for messages.
const FlowKey = "flows"

// checkFlows checks what the flows section shares with the sources'
// labels: every label a rule names is a built-in label or one a source
// or override gives (else it is a typo, and the rule never fires).
func (c *Config) checkFlows(env *config.Env) {
	if !c.Flows.On() {
		return
	}
	// given: every label some source could carry; possible: those a
	// source carries (set, derived or mapped from annotations).
	given, possible := map[string]bool{}, map[string]bool{}
	for _, l := range flow.Builtin {
		given[l] = true
	}
	c.eachCuration(func(key string, cur *config.Curation) {
		labels := cur.Labels
		if labels == nil {
			labels = cur.DefaultLabels
			if cur.FromAnnotations {
				labels = flow.Builtin
			}
		}
		for _, o := range cur.Overrides {
			labels = append(slices.Clone(labels), o.Labels...)
		}
		for _, l := range labels {
			given[l], possible[l] = true, true
		}
	})
	for i, r := range c.Flows.Rules {
		for _, l := range [...]struct {
			k  string
			ls []string
		}{{"after", r.After}, {"block", r.Block}} {
			for j, label := range l.ls {
				if !given[label] {
					env.Bad(fmt.Sprintf("%s.rules[%d].%s[%d]", FlowKey, i, l.k, j),
						"unknown label %q: no source or override has it, so the rule never fires (built-in labels: private, untrusted, egress; a label of your own must be on a source's labels or an override's)", label)
				}
			}
		}
		for _, l := range append(slices.Clone(r.After), r.Block...) {
			if given[l] && !possible[l] {
				env.Bad(fmt.Sprintf("%s.rules[%d]", FlowKey, i),
					"no source has the label %q (none is derived, set or mapped from annotations), so the rule never fires: label the sources that carry it (labels: or overrides.<name>.labels)", l)
				break
			}
		}
	}
}

// deriveLabels sets each source's default labels from what it may do
// (docs/flows.md): a plugin with allowed_paths or a kv_quota of its own
// reads private data, one with allowed_hosts brings in untrusted content
// and can send data out; a relay site's pages are untrusted; an
// upstream's tools are labelled from their annotations with
// flows.from_annotations.
func (c *Config) deriveLabels() {
	for i := range c.Plugins {
		p := &c.Plugins[i]
		p.DefaultLabels = nil
		if len(p.AllowedPaths) > 0 || p.kvQuotaSet {
			p.DefaultLabels = append(p.DefaultLabels, flow.Private)
		}
		if len(p.AllowedHosts) > 0 {
			p.DefaultLabels = append(p.DefaultLabels, flow.Untrusted, flow.Egress)
		}
	}
	for i := range c.Relay.Sites {
		c.Relay.Sites[i].DefaultLabels = []string{flow.Untrusted}
	}
	for i := range c.Upstreams {
		c.Upstreams[i].FromAnnotations = c.Flows.FromAnnotations
	}
}

// eachCuration calls fn with every source's curation (plugins, relay
// sites, upstreams).
func (c *Config) eachCuration(fn func(key string, cur *config.Curation)) {
	for i := range c.Plugins {
		fn(c.Plugins[i].Key, &c.Plugins[i].Curation)
	}
	for i := range c.Relay.Sites {
		fn(c.Relay.Sites[i].Key, &c.Relay.Sites[i].Curation)
	}
	for i := range c.Upstreams {
		fn(c.Upstreams[i].Key, &c.Upstreams[i].Curation)
	}
}
