package gateway

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/flow"
	"github.com/wasmgate/wasmgate/internal/plural"
)

// flowStore is where flow taints are kept now: in this process, or in
// Redis while state.backend redis serves, so every replica enforces
// what another saw.
func (g *Gateway) flowStore() flow.Store {
	if st := g.state.Load(); st != nil {
		return st.Flows()
	}
	return g.flowMem
}

// flowsAdmin is POST /api/flows/reset: an operator who cleared a session
// by hand forgets its taint (wasmgate flows reset), logged.
func (g *Gateway) flowsAdmin() http.Handler {
	return flow.ResetHandler(func(ctx context.Context, key string) (bool, error) {
		found, err := g.flowStore().Reset(ctx, key)
		if err == nil {
			g.log.Info("flow taint reset by the operator", "scope", key, "found", found)
		}
		return found, err
	})
}

// FlowReport is what `wasmgate validate` says of flow control: the
// rules, every tool's, resource's and prompt's effective labels, and
// warnings for what the rules cannot see (an upstream without labels)
// or never fire on.
func (s *Snapshot) FlowReport() []string {
	rules := s.flows
	if rules == nil {
		return nil
	}
	out := []string{fmt.Sprintf("flows: scope %s, window %s, unscoped %s, %s", rules.Scope, rules.Window, rules.Unscoped, plural.N(len(rules.List()), "rule"))}
	carried := map[string]bool{}
	item := func(kind, name string, labels []string) {
		for _, l := range labels {
			carried[l] = true
		}
		ls := strings.Join(labels, ", ")
		if ls == "" {
			ls = "(none)"
		}
		out = append(out, fmt.Sprintf("labels: %s %s: %s", kind, name, ls))
	}
	x := s.index
	for _, name := range slices.Sorted(maps.Keys(x.Tools)) {
		item("tool", name, x.Tools[name].Labels)
	}
	for _, uri := range slices.Sorted(maps.Keys(x.Resources)) {
		item("resource", uri, x.Resources[uri].Labels)
	}
	for _, uri := range slices.Sorted(maps.Keys(x.Templates)) {
		item("resource template", uri, x.Templates[uri].Labels)
	}
	for _, name := range slices.Sorted(maps.Keys(x.Prompts)) {
		item("prompt", name, x.Prompts[name].Labels)
	}
	for _, u := range s.Config.Upstreams {
		labelled := u.Labels != nil || u.FromAnnotations
		for _, o := range u.Overrides {
			labelled = labelled || o.Labels != nil
		}
		if !labelled {
			out = append(out, fmt.Sprintf("warning: %s (upstream %s) has no flow labels: flow rules cannot see what its tools do (set labels:, overrides.<tool>.labels, or flows.from_annotations: true)", u.Key, u.Name))
		}
	}
	for i, r := range rules.List() {
		for _, l := range append(slices.Clone(r.After), r.Block...) {
			if !carried[l] {
				out = append(out, fmt.Sprintf("warning: flows.rules[%d] (%s): nothing the gateway serves now is labelled %s, so the rule does not fire (relay pages, and upstreams still starting, are not listed yet)", i, r.Name, l))
				break
			}
		}
	}
	return out
}

// flowScanLimit bounds the taints the status page reads.
const flowScanLimit = 10000

// flowStatus is the status page's flows section: per rule, how many
// sessions (or principals' windows) have touched every label of its
// after, so the next call it blocks would be stopped.
type flowStatus struct {
	Scope    string           `json:"scope"`
	Rules    []flowRuleStatus `json:"rules"`
	Tracked  int              `json:"tracked"`           // taints read
	Complete bool             `json:"complete"`          // every taint was read (at most 10,000 are)
	Error    string           `json:"error,omitempty"`   // the store could not be read
	Backend  string           `json:"backend,omitempty"` // memory or redis
}

type flowRuleStatus struct {
	Name    string   `json:"name"`
	After   []string `json:"after"`
	Block   []string `json:"block"`
	Action  string   `json:"action"`
	Tainted int      `json:"tainted"`
}

// Lines are the section as the status page shows it.
func (f flowStatus) Lines() []string {
	out := []string{fmt.Sprintf("scope %s (%s): %d tracked", f.Scope, f.Backend, f.Tracked)}
	if !f.Complete {
		out[0] += fmt.Sprintf(" (the first %d read)", flowScanLimit)
	}
	if f.Error != "" {
		out = append(out, "error: "+f.Error)
	}
	for _, r := range f.Rules {
		out = append(out, fmt.Sprintf("rule %s (after %s, block %s, %s): %d tainted", r.Name,
			strings.Join(r.After, "+"), strings.Join(r.Block, ", "), r.Action, r.Tainted))
	}
	return out
}

func (g *Gateway) flowsStatus() any {
	s := g.cur.Load()
	if s == nil || s.flows == nil {
		return nil
	}
	rules := s.flows
	st := flowStatus{Scope: rules.Scope, Backend: "memory"}
	if g.state.Load() != nil {
		st.Backend = "redis"
	}
	counts := map[string]int{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var window time.Duration // a session's labels last as long as it does
	if rules.Scope == flow.ScopePrincipal {
		window = rules.Window
	}
	complete, err := g.flowStore().Scan(ctx, flowScanLimit, window, func(key string, t *flow.Taint) {
		st.Tracked++
		for _, r := range rules.Armed(t) {
			counts[r]++
		}
	})
	st.Complete = complete
	if err != nil {
		st.Error = err.Error()
	}
	for _, r := range rules.List() {
		st.Rules = append(st.Rules, flowRuleStatus{Name: r.Name, After: r.After, Block: r.Block, Action: r.Action, Tainted: counts[r.Name]})
	}
	return st
}
