package envelope

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmgate/wasmgate/flow"
	"github.com/wasmgate/wasmgate/gateway/roundtrip"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/metrics"
)

// FlowState is a State with flow rules (flows:); a State that is not one
// has none.
type FlowState interface {
	Flows() *flow.Rules
}

func flowsOf(st State) *flow.Rules {
	if fs, ok := st.(FlowState); ok {
		return fs.Flows()
	}
	return nil
}

// flowKey is the taint key of the call of ctx by caller c: its session,
// or its principal (package flow's Key); "" when it has neither.
func flowKey(ctx context.Context, rules *flow.Rules, c Caller) string {
	session := ""
	if rules.Scope == flow.ScopeSession && !mcp.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
		if cs := server.ClientSessionFromContext(ctx); cs != nil {
			session = cs.SessionID()
		}
	}
	principal := c.Principal.Name
	if c.Transport == TransportHTTP && !c.JWT && principal == Anonymous.Name {
		principal = ""
	}
	return flow.Key(rules.Scope, session, principal)
}

// window is how long a label of key lasts: rules' window for a
// principal's taint, the session for a session's.
func window(rules *flow.Rules, key string) (w, ttl time.Duration) {
	if strings.HasPrefix(key, "principal:") {
		return rules.Window, rules.Window
	}
	return 0, rules.SessionTTL
}

// flowGate is flow control before c's source runs: nil when the call may
// run, else why not. A call whose labels no rule blocks reads nothing.
func (e *Envelope) flowGate(ctx context.Context, rules *flow.Rules, c *Call, span trace.Span) *refusal {
	if !rules.Blockable(c.labels) {
		return nil
	}
	noun := c.Kind
	if c.noun != "" {
		noun = c.noun
	}
	key := flowKey(ctx, rules, c.Caller)
	if key == "" {
		if rules.Unscoped == "allow" {
			return nil
		}
		e.o.Metrics.FlowBlocks.WithLabelValues("unscoped", flow.ActionDeny, c.Endpoint).Inc()
		c.FlowRule, c.FlowAction = "unscoped", flow.ActionDeny
		return &refusal{outcome: metrics.OutcomeBlocked, msg: fmt.Sprintf(
			"%s %q is refused: a flow rule could block it, and the request has neither a session nor an authenticated principal whose earlier calls the gateway could check (flows.unscoped: deny)", noun, c.Name)}
	}
	c.flowKey = key
	w, _ := window(rules, key)
	t, err := e.o.Taint().Get(ctx, key, w)
	if err != nil {
		e.o.Metrics.FlowStateErrors.Inc()
		e.o.Logger.Warn("flow state unavailable: call refused", c.Kind, c.Name, "endpoint", c.Endpoint, "error", err)
		return &refusal{outcome: metrics.OutcomeBlocked, msg: fmt.Sprintf("%s %q is refused: the flow state is unavailable (%v)", noun, c.Name, err)}
	}
	c.flowSeen = t
	rule, ok := rules.Blocking(c.labels, t)
	if !ok {
		return nil
	}
	chain := chainText(t, rule)
	c.FlowRule, c.FlowAction, c.FlowChain = rule.Name, rule.Action, chain
	blocked := intersection(rule.Block, c.labels)
	approved := rule.Action == flow.ActionElicit && t.IsApproved(rule.Name, c.Name)
	if approved {
		c.FlowAction = "approved"
		if c.rp != nil {
			// The run of a 2026-07-28 client that answered the question
			// earlier in this call: the answer is the first of the
			// replay's, whatever the source asks after it.
			c.rp.Skip(mcp.NewElicitationInputRequest(elicitRequest(noun, c, rule, chain).Params))
		}
		return nil
	}
	e.o.Metrics.FlowBlocks.WithLabelValues(rule.Name, rule.Action, c.Endpoint).Inc()
	if span.IsRecording() {
		span.AddEvent("flow rule", trace.WithAttributes(
			attribute.String("wasmgate.flow.rule", rule.Name),
			attribute.String("wasmgate.flow.action", rule.Action),
			attribute.String("wasmgate.flow.chain", chain)))
	}
	e.o.Logger.Warn("flow rule fired", "rule", rule.Name, "action", rule.Action, c.Kind, c.Name, "source", c.Source,
		"endpoint", c.Endpoint, "scope", key, "principal", c.Caller.Principal.Name, "chain", chain)
	msg := fmt.Sprintf("%s %q is blocked by flow rule %q: earlier in this %s, %s; calls labelled %s are stopped after that",
		noun, c.Name, rule.Name, scopeWord(key), chain, strings.Join(blocked, ", "))
	switch rule.Action {
	case flow.ActionAudit:
		return nil
	case flow.ActionDeny:
		return &refusal{outcome: metrics.OutcomeBlocked, msg: msg}
	}
	ok, why := e.ask(ctx, noun, c, rule, chain)
	if c.rp != nil && c.rp.Pending() != nil {
		return &refusal{outcome: metrics.OutcomeInputRequired, msg: msg, input: true}
	}
	if !ok {
		c.FlowAction = "refused"
		return &refusal{outcome: metrics.OutcomeBlocked, msg: fmt.Sprintf("%s (the call was not approved: %s)", msg, why)}
	}
	if err := e.o.Taint().Approve(ctx, key, rule.Name, c.Name, w); err != nil {
		e.o.Metrics.FlowStateErrors.Inc()
		e.o.Logger.Warn("flow state unavailable: approval not remembered", c.Kind, c.Name, "rule", rule.Name, "error", err)
	}
	c.FlowAction = "approved"
	return nil
}

// ask asks the person behind the client of ctx whether c may run despite
// rule: an elicitation form (input_required for a 2026-07-28 client).
// It reports whether they approved, and why not.
func (e *Envelope) ask(ctx context.Context, noun string, c *Call, rule flow.Rule, chain string) (bool, string) {
	req := elicitRequest(noun, c, rule, chain)
	var answer mcp.ElicitationResponse
	switch {
	case c.rp != nil:
		raw, err := c.rp.Ask(mcp.NewElicitationInputRequest(req.Params))
		if err != nil {
			if errors.Is(err, roundtrip.ErrNeedInput) {
				return false, "waiting for the client's answer"
			}
			return false, err.Error()
		}
		if err := json.Unmarshal(raw, &answer); err != nil {
			return false, fmt.Sprintf("the client's answer is not an elicitation result: %v", err)
		}
	default:
		cs := server.ClientSessionFromContext(ctx)
		if cs == nil {
			return false, "the client cannot be asked (no session)"
		}
		if _, has := source.ClientDeclares(cs, "elicitation"); !has {
			return false, "the client cannot be asked: it did not declare the elicitation capability"
		}
		if ci, ok := cs.(server.SessionWithClientInfo); ok {
			if el := ci.GetClientCapabilities().Elicitation; el != nil && el.Form == nil && el.URL != nil {
				return false, "the client cannot be asked: it declared URL elicitation only"
			}
		}
		if e.o.Elicit == nil {
			return false, "the client cannot be asked"
		}
		res, err := e.o.Elicit(ctx, req)
		if err != nil {
			return false, fmt.Sprintf("asking the client failed: %v", err)
		}
		answer = res.ElicitationResponse
	}
	if answer.Action != mcp.ElicitationResponseActionAccept {
		return false, fmt.Sprintf("the user answered %s", answer.Action)
	}
	if m, ok := answer.Content.(map[string]any); ok && m["approve"] == true {
		return true, ""
	}
	return false, "the user did not approve it"
}

// elicitRequest is the form that asks to approve c despite rule.
func elicitRequest(noun string, c *Call, rule flow.Rule, chain string) mcp.ElicitationRequest {
	msg := fmt.Sprintf("Flow rule %q: %s. Allow %s %q (%s) with arguments %s?",
		rule.Name, chain, noun, c.Name, c.Source, summarize(c.Args, 400))
	return mcp.ElicitationRequest{
		Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
		Params: mcp.ElicitationParams{Mode: mcp.ElicitationModeForm, Message: msg, RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{"approve": map[string]any{
				"type": "boolean", "title": "Allow this call",
				"description": fmt.Sprintf("Approve %s %q for the rest of this session despite flow rule %q", noun, c.Name, rule.Name),
			}},
			"required": []string{"approve"},
		}},
	}
}

// summarize is args as JSON, cut to about max bytes.
func summarize(args map[string]any, max int) string {
	b, err := json.Marshal(args)
	if err != nil || args == nil {
		return "{}"
	}
	if len(b) <= max {
		return string(b)
	}
	s := string(b[:max])
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return fmt.Sprintf("%s… (%d bytes)", s, len(b))
}

// taint adds c's labels to its scope's taint after it succeeded.
func (e *Envelope) taint(ctx context.Context, rules *flow.Rules, c *Call) {
	key := c.flowKey
	if key == "" {
		if key = flowKey(ctx, rules, c.Caller); key == "" {
			return
		}
	}
	_, ttl := window(rules, key)
	if t := c.flowSeen; t != nil {
		// The taint, read before the call, has each of its labels
		// already, added recently enough: nothing to write, no round
		// trip. A session's entry must outlive half its ttl; a
		// principal's labels are renewed to the hundredth of the window
		// (a label lasts the window after the latest call that added it,
		// give or take that).
		fresh, within := true, ttl/2
		if strings.HasPrefix(key, "principal:") {
			within = rules.Window / 100
		}
		for _, l := range c.labels {
			if added, ok := t.Labels[l]; !ok || c.Start.Sub(added.At) > within {
				fresh = false
				break
			}
		}
		if fresh {
			return
		}
	}
	call := flow.Call{Kind: c.Kind, Name: c.Name, Source: c.Source, At: c.Start}
	if err := e.o.Taint().Add(context.WithoutCancel(ctx), key, c.labels, call, ttl); err != nil {
		e.o.Metrics.FlowStateErrors.Inc()
		e.o.Logger.Warn("flow state unavailable: a call's labels were not recorded", c.Kind, c.Name, "labels", c.labels, "error", err)
	}
}

// chainText names the calls that gave t the labels of rule's after, in
// order: `tool "read_notes" (notes) added private, then tool "fetch"
// (web) added untrusted`.
func chainText(t *flow.Taint, rule flow.Rule) string {
	var parts []string
	for _, call := range t.Chain(rule) {
		var added []string
		for _, l := range rule.After {
			if c, ok := t.Labels[l]; ok && sameCall(c, call) {
				added = append(added, l)
			}
		}
		parts = append(parts, fmt.Sprintf("%s %q (%s) added %s", call.Kind, call.Name, call.Source, strings.Join(added, " and ")))
	}
	return strings.Join(parts, ", then ")
}

func scopeWord(key string) string {
	if strings.HasPrefix(key, "principal:") {
		return "principal's window"
	}
	return "session"
}

func intersection(a, b []string) []string {
	var out []string
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// sessionLabels are the flow labels the scope of the call of ctx by c
// has touched (policy's session.labels); none when flows are off or the
// request is unscoped. A store that cannot be read gives nil (logged):
// the condition fails, which denies.
func (e *Envelope) sessionLabels(ctx context.Context, st State, c Caller) []string {
	rules := flowsOf(st)
	if rules == nil {
		rules = flow.New(flow.Config{Scope: flow.ScopeSession, Rules: []flow.Rule{{}}})
	}
	key := flowKey(ctx, rules, c)
	if key == "" {
		return []string{}
	}
	w, _ := window(rules, key)
	t, err := e.o.Taint().Get(ctx, key, w)
	if err != nil {
		e.o.Metrics.FlowStateErrors.Inc()
		e.o.Logger.Warn("flow state unavailable: a policy condition on session.labels fails", "error", err)
		return nil
	}
	return t.Names()
}

// sameCall reports whether a and b are one call (times compared as
// instants: one read back from Redis has another location).
func sameCall(a, b flow.Call) bool {
	return a.Kind == b.Kind && a.Name == b.Name && a.Source == b.Source && a.At.Equal(b.At)
}
