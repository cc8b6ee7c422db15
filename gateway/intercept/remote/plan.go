package remote

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/intercept"
)

// planInput is a call as the draft's payload contract has it: in the
// request phase the request's method and params, in the response phase
// its result.
type planInput struct {
	in      *intercept.Input
	payload json.RawMessage
	// params is the request's params (request phase), to check what a
	// mutator changed.
	params map[string]any
}

// argumentsMethods are the methods whose arguments a mutator may change.
var argumentsMethods = []string{"tools/call", "prompts/get"}

func newPlanInput(in *intercept.Input) (*planInput, error) {
	p := &planInput{in: in}
	if in.Phase == intercept.PhaseResponse {
		p.payload = in.Result
		if len(bytes.TrimSpace(p.payload)) == 0 {
			p.payload = json.RawMessage("{}")
		}
		return p, nil
	}
	params := map[string]any{}
	switch in.Method {
	case "tools/call", "prompts/get":
		params["name"] = in.Name
		args := json.RawMessage("{}")
		if len(bytes.TrimSpace(in.Arguments)) > 0 {
			args = in.Arguments
		}
		params["arguments"] = args
	case "resources/read":
		params["uri"] = in.Name
	}
	b, err := json.Marshal(map[string]any{"method": in.Method, "params": params})
	if err != nil {
		return nil, fmt.Errorf("encoding the %s request: %w", in.Method, err)
	}
	p.payload = b
	var back struct {
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		return nil, fmt.Errorf("decoding the %s request: %w", in.Method, err)
	}
	p.params = back.Params
	return p, nil
}

// run derives the plan for p from cn's list and runs it.
func (c *Client) run(ctx context.Context, cn *conn, p *planInput) (*intercept.Output, error) {
	event, phase := p.in.Method, p.in.Phase
	var muts, vals []*entry
	for _, e := range cn.listing.Load().list {
		if !e.hooksOn(event, phase) {
			continue
		}
		if e.Type == TypeMutation {
			muts = append(muts, e)
		} else {
			vals = append(vals, e)
		}
	}
	slices.SortStableFunc(muts, func(a, b *entry) int {
		return cmp.Or(cmp.Compare(a.priority(phase), b.priority(phase)), cmp.Compare(a.Name, b.Name))
	})
	payload := p.payload
	var err error
	if phase == intercept.PhaseRequest {
		// Sending: mutate, then validate what will be sent.
		if payload, err = c.mutate(ctx, cn, p, muts, payload); err != nil {
			return nil, err
		}
		if out, err := c.validate(ctx, cn, p, vals, payload); out != nil || err != nil {
			return out, err
		}
	} else {
		// Receiving: validate what came, then mutate it.
		if out, err := c.validate(ctx, cn, p, vals, payload); out != nil || err != nil {
			return out, err
		}
		if payload, err = c.mutate(ctx, cn, p, muts, payload); err != nil {
			return nil, err
		}
	}
	if jsonEqual(payload, p.payload) {
		return &intercept.Output{Decision: intercept.Continue}, nil
	}
	out := &intercept.Output{Decision: intercept.Modify}
	if phase == intercept.PhaseResponse {
		out.Result = payload
		return out, nil
	}
	var req struct {
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(payload, &req); err != nil {
		return nil, fmt.Errorf("%s: decoding the modified request: %w", c.where, err)
	}
	out.Arguments = req.Params.Arguments
	return out, nil
}

// mutate is the mutation pass: each mutator in turn gets the payload the
// last one left. A failure of an active mutator without failOpen stops
// it, and nothing it changed is used.
func (c *Client) mutate(ctx context.Context, cn *conn, p *planInput, muts []*entry, payload json.RawMessage) (json.RawMessage, error) {
	for _, e := range muts {
		res, err := c.invoke(ctx, cn, e, p, payload)
		if err == nil {
			err = p.check(res)
			if err != nil {
				err = fmt.Errorf("%s: %s %q: %w", c.where, MethodInvoke, e.Name, err)
			}
		}
		switch {
		case err != nil && e.audit:
			c.log.Warn("audit mutator failed", "mutator", e.Name, "err", err)
		case err != nil && e.FailOpen:
			c.log.Warn("mutator failed; going on without it (failOpen)", "mutator", e.Name, "err", err)
		case err != nil:
			return nil, err
		case e.audit:
			c.log.Info("audit mutator", "mutator", e.Name, "modified", *res.Modified)
		case *res.Modified:
			payload = res.Payload
		}
	}
	return payload, nil
}

// validate is the validation pass: every validator sees payload,
// concurrently. A verdict of valid false at severity error from an
// active validator is a deny; otherwise a failure of an active
// validator without failOpen is an error.
func (c *Client) validate(ctx context.Context, cn *conn, p *planInput, vals []*entry, payload json.RawMessage) (*intercept.Output, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	results := make([]*Result, len(vals))
	errs := make([]error, len(vals))
	var wg sync.WaitGroup
	for i, e := range vals[1:] {
		wg.Go(func() { results[i+1], errs[i+1] = c.invoke(ctx, cn, e, p, payload) })
	}
	results[0], errs[0] = c.invoke(ctx, cn, vals[0], p, payload)
	wg.Wait()

	var denied []string
	var failed error
	for i, e := range vals {
		res, err := results[i], errs[i]
		switch {
		case err != nil && e.audit:
			c.log.Warn("audit validator failed", "validator", e.Name, "err", err)
		case err != nil && e.FailOpen:
			c.log.Warn("validator failed; going on without it (failOpen)", "validator", e.Name, "err", err)
		case err != nil:
			var gone *goneError
			if errors.As(err, &gone) || failed == nil {
				failed = err
			}
		case e.audit:
			c.log.Info("audit validator", "validator", e.Name, "valid", *res.Valid, "severity", res.Severity, "messages", joinMessages(res.Messages))
		case *res.Valid:
		case res.Severity == SeverityWarn || res.Severity == SeverityInfo:
			c.log.Info("validator finding that does not block", "validator", e.Name, "severity", res.Severity, "messages", joinMessages(res.Messages))
		default: // error, absent or unknown: blocks
			msg := joinMessages(res.Messages)
			if msg == "" {
				msg = fmt.Sprintf("denied by interceptor %q", e.Name)
			}
			denied = append(denied, msg)
		}
	}
	if len(denied) > 0 {
		return &intercept.Output{Decision: intercept.Deny, Message: joinMessages(messages(denied))}, nil
	}
	return nil, failed
}

func messages(ss []string) []Message {
	ms := make([]Message, len(ss))
	for i, s := range ss {
		ms[i] = Message{Message: s}
	}
	return ms
}

// invoke calls interceptor/invoke for e and checks that the result is
// one of e's type for this invocation.
func (c *Client) invoke(ctx context.Context, cn *conn, e *entry, p *planInput, payload json.RawMessage) (*Result, error) {
	params := InvokeParams{
		Name:    e.Name,
		Event:   p.in.Method,
		Phase:   p.in.Phase,
		Payload: payload,
		Config:  c.o.Config,
		Context: invokeContext(p.in),
	}
	if d, ok := ctx.Deadline(); ok {
		params.TimeoutMs = max(time.Until(d).Milliseconds(), 1)
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s %q: %w", c.where, MethodInvoke, e.Name, fmt.Errorf(format, args...))
	}
	raw, err := c.rpc(ctx, cn, MethodInvoke, params)
	if err != nil {
		var re *RPCError
		if errors.As(err, &re) && re.Code == mcp.INVALID_PARAMS && gone(re, e.Name) {
			cn.stale.Store(true)
			return nil, &goneError{fail("%w", err)}
		}
		return nil, fail("%w", err)
	}
	var res Result
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fail("answered garbage: %w", err)
	}
	switch {
	case res.Type != e.Type:
		return nil, fail("answered a result of type %q for an interceptor of type %q", res.Type, e.Type)
	case res.Phase != p.in.Phase:
		return nil, fail("answered a result for phase %q in phase %q", res.Phase, p.in.Phase)
	case res.Interceptor != "" && res.Interceptor != e.Name:
		return nil, fail("answered a result of interceptor %q", res.Interceptor)
	case e.Type == TypeValidation && res.Valid == nil:
		return nil, fail(`answered a validation result without "valid"`)
	case e.Type == TypeMutation && res.Modified == nil:
		return nil, fail(`answered a mutation result without "modified"`)
	case e.Type == TypeMutation && *res.Modified && (len(res.Payload) == 0 || string(res.Payload) == "null"):
		return nil, fail("answered modified without a payload")
	case e.Type == TypeMutation && !*res.Modified && len(res.Payload) > 0 && !jsonEqual(res.Payload, payload):
		return nil, fail("answered not modified with a payload that differs")
	}
	return &res, nil
}

// gone tells whether an invalid-params answer says the interceptor
// named is unknown or does not hook the event (the draft puts the name
// in error.data, or the hooks it advertises).
func gone(re *RPCError, name string) bool {
	var data struct {
		Name            string            `json:"name"`
		AdvertisedHooks []json.RawMessage `json:"advertisedHooks"`
	}
	if json.Unmarshal(re.Data, &data) == nil && data.Name == name {
		return true
	}
	return bytes.Contains([]byte(re.Message), []byte("not found"))
}

// check refuses a mutator's payload that is not a payload of the same
// call: a response that is not an object; a request whose method or
// params other than the arguments of a tools/call or prompts/get
// changed (a mutator may not change the tool, the prompt or the URI).
func (p *planInput) check(res *Result) error {
	if !*res.Modified {
		return nil
	}
	if p.in.Phase == intercept.PhaseResponse {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(res.Payload, &obj); err != nil || obj == nil {
			return errors.New("answered a modified result that is not a JSON object")
		}
		return nil
	}
	var req struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal(res.Payload, &req); err != nil {
		return fmt.Errorf("answered a modified request that is not {method, params}: %w", err)
	}
	if req.Method != p.in.Method {
		return fmt.Errorf("changed the method to %q", req.Method)
	}
	got, want := maps.Clone(req.Params), maps.Clone(p.params)
	if slices.Contains(argumentsMethods, p.in.Method) {
		if a, ok := got["arguments"]; ok {
			if _, isObj := a.(map[string]any); !isObj {
				return errors.New("answered arguments that are not a JSON object")
			}
		}
		delete(got, "arguments")
		delete(want, "arguments")
	}
	if !reflect.DeepEqual(got, want) {
		return errors.New("changed the request beyond its arguments (the name or URI of what is called)")
	}
	return nil
}

// invokeContext is the draft's invocation context of in.
func invokeContext(in *intercept.Input) *InvokeContext {
	ic := &InvokeContext{TraceID: in.TraceID, Timestamp: time.Now().UTC().Format(time.RFC3339Nano)}
	groups := in.Principal.Groups
	if groups == nil {
		groups = []string{}
	}
	ic.Principal = &InvokePrincipal{Type: "anonymous", Claims: map[string]any{"groups": groups}}
	if in.Principal.Name != "" {
		ic.Principal.Type, ic.Principal.ID = "user", in.Principal.Name
	}
	if s := in.Session; s != nil {
		ic.SessionID, ic.Labels = s.ID, s.Labels
	}
	return ic
}

// jsonEqual tells whether a and b are the same JSON value.
func jsonEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
