// Package envelope is the call path, written once for tools, resources,
// prompts and completions whatever their source: begin (hold the serving
// state) -> authorize (policy, rate limits) -> validate -> invoke (under
// the source's timeout) -> observe (metrics, audit, status page). The MCP
// handlers it gives mcp-go are thin shells around run.
package envelope

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/wasmgate/wasmgate/flow"
	"github.com/wasmgate/wasmgate/gateway/roundtrip"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/gateway/tracing"
	"github.com/wasmgate/wasmgate/internal/deadline"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/metrics"
	"github.com/wasmgate/wasmgate/policy"
)

// The kinds of call, as metrics, audit lines and the status page name them.
const (
	kindTool       = "tool"
	kindResource   = "resource"
	kindPrompt     = "prompt"
	kindCompletion = "completion"
)

// State is the serving state a call runs on, held from begin to the end
// of the call (a snapshot).
type State interface {
	Index() *source.Index
	Policy() *policy.Policy  // nil: no policy section, everything allowed
	Stdio() policy.Principal // the caller of stdio and in-process calls
}

// SessionState is a State whose lists can differ per MCP session (a
// plugin with instances: session that relisted for one session): a
// tool, prompt or resource is looked up in the index of the call's
// session.
type SessionState interface {
	SessionIndex(ctx context.Context) *source.Index
}

// indexOf is where a tool, prompt or resource asked for with ctx is
// looked up.
func indexOf(ctx context.Context, st State) *source.Index {
	if ss, ok := st.(SessionState); ok {
		return ss.SessionIndex(ctx)
	}
	return st.Index()
}

// Options are what an Envelope is made of.
type Options struct {
	// Endpoint names the endpoint whose calls this envelope runs: the
	// endpoint label of metrics, audit lines and spans. Empty is
	// loader.DefaultEndpoint, the one endpoint of a config without an
	// endpoints section.
	Endpoint string
	// Begin holds the serving state for one call; done releases it.
	Begin    func() (st State, done func(), err error)
	Limiters *policy.Limiters // rate-limit state, kept across reloads
	Metrics  *metrics.Metrics
	Observer Observer // every finished call
	Logger   *slog.Logger
	// Tracer is the tracer a call made with ctx starts its span from
	// (tracing reloads); nil traces nothing.
	Tracer func(ctx context.Context) trace.Tracer
	// Signer seals the requestState of input_required results for
	// 2026-07-28 clients; nil sends such clients no input requests (the
	// source's request fails as today).
	Signer *roundtrip.Signer
	// Connected lists the upstreams with auth.user_oauth principal has
	// connected (policy's `connected`); nil: none.
	Connected func(ctx context.Context, principal string) []string
	// Taint is the store of flow taints serving now (memory, or Redis);
	// nil: flow control is off whatever the config says.
	Taint func() flow.Store
	// Elicit asks the client of ctx (a 2025-11-25 session) to fill a
	// form: how a flow rule with action elicit asks its person.
	Elicit func(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error)
}

// Envelope runs calls. Safe for concurrent use.
type Envelope struct {
	o Options
	// timeouts ends calls at their source's limits.timeout without a
	// runtime timer per call (see internal/deadline).
	timeouts deadline.Watch
	// interceptors are the interceptor metrics' series decisions count
	// in (interceptorMetrics); interceptorsMu orders their additions.
	interceptors   atomic.Pointer[interceptorSeries]
	interceptorsMu sync.Mutex
}

// New returns an Envelope.
func New(o Options) *Envelope {
	if o.Endpoint == "" {
		o.Endpoint = loader.DefaultEndpoint
	}
	if o.Tracer == nil {
		nt := noop.NewTracerProvider().Tracer(tracing.Name)
		o.Tracer = func(context.Context) trace.Tracer { return nt }
	}
	return &Envelope{o: o}
}

// Close stops the timer of the calls' timeouts; call it when no call is
// running.
func (e *Envelope) Close() { e.timeouts.Stop() }

// methods are the MCP methods of the kinds of call, as spans name them.
var methods = map[string]string{
	kindTool:       "tools/call",
	kindResource:   "resources/read",
	kindPrompt:     "prompts/get",
	kindCompletion: "completion/complete",
}

// CallerOf is the caller of ctx: the HTTP request's, else st's stdio
// principal.
func CallerOf(ctx context.Context, st State) Caller {
	if c, ok := CallerFrom(ctx); ok {
		return c
	}
	return Stdio(st.Stdio())
}

// refusal is a call that ended without a result: its outcome, the message
// a person reads, and whether it is a JSON-RPC invalid-params error.
type refusal struct {
	outcome string
	msg     string
	params  bool
	hidden  error // the caller may not see the name: answer as if unknown
	// connect: the call needs the caller to connect their account
	// first (auth.user_oauth).
	connect *source.ConnectFailure
	// input: a flow rule asks a 2026-07-28 client to approve the call
	// (the Replay's pending request): the answer is input_required.
	input bool
}

func (r *refusal) err() error {
	switch {
	case r.hidden != nil:
		return r.hidden
	case r.params:
		return InvalidParams(r.msg)
	}
	return errors.New(r.msg)
}

// run is the envelope of one call c on st by src: authorize, validate,
// invoke fn under src's timeout, observe. after, when not nil, reads the
// outcome and error text of a result (a tool's isError).
func run[T any](ctx context.Context, e *Envelope, st State, c *Call, pk policy.Kind, src source.Source,
	validate func() *refusal, fn func(context.Context) (T, error), after func(T) (outcome, errMsg string)) (v T, r *refusal) {
	c.Start = time.Now()
	c.Source = src.Name()
	if ol, ok := src.(source.OutputLimited); ok {
		c.maxOutput = ol.MaxOutput()
	}
	c.Endpoint = e.o.Endpoint
	noun := c.Kind
	if c.noun != "" {
		noun = c.noun
	}
	// The call's span: a child of the caller's traceparent (HTTP header
	// or _meta), when it sent one.
	tr := e.o.Tracer(ctx)
	span := tracing.Off() // tracing off, or not sampled: no span, and no context for one
	if _, off := tr.(noop.Tracer); !off {
		ctx, span = tr.Start(ctx, methods[c.Kind]+" "+c.Name, trace.WithSpanKind(trace.SpanKindServer))
	}
	defer span.End()
	if sc := span.SpanContext(); sc.IsSampled() {
		c.TraceID = sc.TraceID().String()
	}
	if c.malformed != nil { // the request itself is refused, before policy looks at it
		c.Caller, r = CallerOf(ctx, st), c.malformed
	} else {
		// A policy span only where a policy runs: without one, authorize
		// decides nothing and a span would only cost the call.
		ps := tracing.Off()
		if span.IsRecording() && st.Policy() != nil {
			_, ps = tr.Start(ctx, "policy")
		}
		c.Caller, r = e.authorize(ctx, st, pk, noun, c.Name, c.Args)
		if r != nil {
			tracing.Fail(ps, r.outcome)
		}
		ps.End()
	}
	var rules *flow.Rules
	if e.o.Taint != nil && len(c.labels) > 0 {
		rules = flowsOf(st)
	}
	defer func() {
		c.Took = time.Since(c.Start)
		c.Outcome = metrics.OutcomeOK
		if r != nil {
			c.Outcome, c.Err = r.outcome, r.msg
			if r.connect != nil {
				// Observers (the status page) get what happened, not the
				// link: it connects an account to the caller's principal.
				c.Err = fmt.Sprintf("upstream %q: not connected: the caller was sent a connect link", r.connect.Upstream)
			}
		} else if after != nil {
			if o, msg := after(v); o != "" {
				c.Outcome, c.Err = o, msg
			}
		}
		if rules != nil && c.Outcome == metrics.OutcomeOK {
			e.taint(ctx, rules, c)
		}
		if span.IsRecording() {
			name := attribute.String("wasmgate.name", c.Name) // a resource's URI, a prompt's name
			if c.Kind == kindTool {
				name = attribute.String("gen_ai.tool.name", c.Name)
			}
			span.SetAttributes( // one SetAttributes: the span's list grows once
				attribute.String("mcp.method.name", methods[c.Kind]),
				name,
				attribute.String("wasmgate.principal", c.Caller.Label()),
				attribute.String("wasmgate.source", c.Source),
				attribute.String("wasmgate.source.kind", source.KindOf(src)),
				attribute.String("wasmgate.endpoint", c.Endpoint),
				attribute.String("wasmgate.outcome", c.Outcome))
			if c.Outcome != metrics.OutcomeOK {
				tracing.Fail(span, c.Err)
			}
		}
		e.o.Observer.Observe(ctx, c)
	}()
	if r != nil {
		return v, r
	}
	if r = e.interceptRequest(ctx, st, c, span); r != nil {
		return v, r
	}
	if validate != nil {
		if r = validate(); r != nil {
			return v, r
		}
	}
	if rules != nil {
		if r = e.flowGate(ctx, rules, c, span); r != nil {
			return v, r
		}
	}
	timeout := src.Timeout()
	if c.timeout > 0 {
		timeout = c.timeout
	}
	tctx, cancel := e.timeouts.WithTimeout(ctx, timeout)
	defer cancel()
	// The source's own span: a relay round trip, an upstream request (a
	// plugin call's wait for an instance and WASM call are the plugin's
	// own spans, right under the call's).
	ss := tracing.Off()
	if _, self := src.(source.SelfTraced); !self && span.IsRecording() {
		tctx, ss = tr.Start(tctx, source.KindOf(src)+" "+c.Source, trace.WithSpanKind(trace.SpanKindInternal))
	}
	var who *source.CallIdentity
	if source.IsPerUser(src) {
		who = &source.CallIdentity{Principal: c.Caller.Principal.Name, Token: c.Caller.Token}
		tctx = source.WithCallIdentity(tctx, who)
	}
	v, err := fn(tctx)
	if who != nil {
		c.UpstreamMode, c.UpstreamSubject = who.Mode, who.Subject
	}
	if err != nil {
		tracing.Fail(ss, err.Error())
	}
	ss.End()
	if err == nil {
		return v, nil
	}
	if d, ok := err.(*interceptDenied); ok {
		return v, &refusal{outcome: metrics.OutcomeDenied, msg: d.msg}
	}
	var f *source.Failure
	if !errors.As(err, &f) {
		f = &source.Failure{Kind: source.FailError, Msg: err.Error()}
	}
	if f.Kind == source.FailCrash || f.Kind == source.FailTimeout {
		e.o.Logger.Warn(c.Kind+" call failed", c.Kind, c.Name, "source", c.Source, "endpoint", c.Endpoint, "outcome", f.Kind.Outcome(), "error", f.Msg, "trace_id", c.TraceID)
	}
	r = &refusal{outcome: f.Kind.Outcome(), msg: source.Message(noun, c.Name, f)}
	r.connect, _ = err.(*source.ConnectFailure)
	return v, r
}

// authorize asks st's policy whether the caller of ctx may make the call,
// then takes from its rate limits. It returns the caller and, when the
// call may not run, the refusal.
// noun names the call in messages ("tool", "completion for prompt").
func (e *Envelope) authorize(ctx context.Context, st State, kind policy.Kind, noun, name string, args map[string]any) (Caller, *refusal) {
	c := CallerOf(ctx, st)
	pol := st.Policy()
	if pol == nil {
		return c, nil
	}
	what := kind.String()
	req := policy.Request{Principal: c.Principal, Kind: kind, Name: name, Args: args, Transport: c.Transport}
	if e.o.Connected != nil && pol.UsesConnected() {
		req.Connected = func() []string { return e.o.Connected(ctx, c.Principal.Name) }
	}
	if e.o.Taint != nil && pol.UsesSession() {
		req.SessionLabels = func() []string { return e.sessionLabels(ctx, st, c) }
	}
	d := pol.Decide(req)
	if !d.Allowed {
		e.o.Metrics.PolicyDenials.WithLabelValues(c.Label(), what).Inc()
		r := &refusal{outcome: metrics.OutcomeDenied, msg: fmt.Sprintf("%s %q is denied by policy", noun, name)}
		if !pol.RevealHidden() && !pol.Visible(c.Principal, kind, name) {
			r.hidden = unknown(kind, name) // counted and audited as denied; told as unknown
		}
		return c, r
	}
	ok, retry, err := e.o.Limiters.AllowContext(ctx, pol, d, c.Principal.Name, name)
	if err != nil { // state.backend redis, unavailable, on_unavailable fail_closed
		e.o.Metrics.RateLimited.WithLabelValues(c.Label(), what).Inc()
		return c, &refusal{outcome: metrics.OutcomeRateLimited, msg: fmt.Sprintf("%s %q is refused: %v", noun, name, err)}
	}
	if !ok {
		e.o.Metrics.RateLimited.WithLabelValues(c.Label(), what).Inc()
		// Rounded up: a hint of "0s" would have the client retry at once.
		retry = (retry + time.Millisecond - 1).Truncate(time.Millisecond)
		return c, &refusal{outcome: metrics.OutcomeRateLimited, msg: fmt.Sprintf("%s %q is rate limited: retry in %s", noun, name, retry)}
	}
	return c, nil
}

// unknown is the error mcp-go gives a name nobody provides, word for word
// and with the same code (third_party/mcp-go: handlerError).
func unknown(kind policy.Kind, name string) error {
	switch kind {
	case policy.Tool:
		return fmt.Errorf("tool '%s' not found: %w", name, server.ErrToolNotFound)
	case policy.Resource:
		return fmt.Errorf("handler not found for resource URI '%s': %w", name, server.ErrResourceNotFound)
	}
	return fmt.Errorf("prompt '%s' not found: %w", name, server.ErrPromptNotFound)
}

// Authorize is the authorize step alone, for benchmarks: the caller of
// ctx and, when policy or a rate limit refuses the call, why.
func (e *Envelope) Authorize(ctx context.Context, st State, kind policy.Kind, name string, args map[string]any) (Caller, string) {
	c, r := e.authorize(ctx, st, kind, kind.String(), name, args)
	if r != nil {
		return c, r.msg
	}
	return c, ""
}

// InvalidParams is an error a handler returns for params the method does
// not accept; mcp-go answers it with -32602 (see third_party/mcp-go).
type InvalidParams string

func (e InvalidParams) Error() string        { return string(e) }
func (e InvalidParams) Is(target error) bool { return target == mcp.ErrInvalidParams }

// withRequest gives a call's context what ABIs pass on to plugins of the
// client request: its JSON-RPC id and the _meta of its params.
func withRequest(ctx context.Context, meta *mcp.Meta) context.Context {
	var r abi.Request
	if id, ok := server.RequestIDFromContext(ctx); ok {
		r.ID = idJSON(id)
	}
	if meta != nil {
		r.Meta, _ = json.Marshal(meta)
		if tp, ok := meta.AdditionalFields["traceparent"].(string); ok {
			ts, _ := meta.AdditionalFields["tracestate"].(string)
			ctx = tracing.FromMeta(ctx, tp, ts)
		}
	}
	return abi.WithRequest(ctx, r)
}

// idJSON is a JSON-RPC id, as mcp-go decoded it (a float64 or a string),
// as JSON. Most are whole numbers, which encoding/json writes as
// strconv's 'f' format does below 1e21.
func idJSON(id any) json.RawMessage {
	if n, ok := id.(float64); ok && n == math.Trunc(n) && math.Abs(n) < 1e21 {
		return strconv.AppendFloat(nil, n, 'f', -1, 64)
	}
	b, _ := json.Marshal(id)
	return b
}

// ArgsOf is a call's arguments as policy and the audit log see them.
func ArgsOf(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return m
	case nil:
		return nil
	}
	var m map[string]any
	if b, err := json.Marshal(v); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	if m == nil {
		return map[string]any{"arguments": fmt.Sprint(v)}
	}
	return m
}
