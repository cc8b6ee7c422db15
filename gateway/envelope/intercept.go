package envelope

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmgate/wasmgate/gateway/intercept"
	"github.com/wasmgate/wasmgate/gateway/tracing"
	"github.com/wasmgate/wasmgate/internal/toolresult"
	"github.com/wasmgate/wasmgate/metrics"
)

// InterceptorState is a State with interceptors (the interceptors
// section); a State that is not one has none.
type InterceptorState interface {
	Interceptors() *intercept.Chain
}

func interceptorsOf(st State) *intercept.Chain {
	if is, ok := st.(InterceptorState); ok {
		return is.Interceptors()
	}
	return nil
}

// interceptInput is what the interceptors of phase see of call c on
// st: its method, endpoint, source, name, arguments (c.raw), caller,
// session and trace.
func (e *Envelope) interceptInput(ctx context.Context, st State, c *Call, phase string) *intercept.Input {
	in := &intercept.Input{Phase: phase, Method: methods[c.Kind], Endpoint: c.Endpoint, Source: c.Source, Name: c.Name,
		Arguments: c.raw, Principal: intercept.Principal{Name: c.Caller.Principal.Name, Groups: c.Caller.Principal.Groups},
		Transport: c.Caller.Transport, TraceID: c.TraceID}
	if in.Principal.Groups == nil {
		in.Principal.Groups = []string{}
	}
	in.Session = e.interceptSession(ctx, st, c.Caller)
	return in
}

// interceptSession is the caller's session and its flow labels, nil
// without either.
func (e *Envelope) interceptSession(ctx context.Context, st State, c Caller) *intercept.Session {
	var s intercept.Session
	if cs := server.ClientSessionFromContext(ctx); cs != nil && !mcp.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
		s.ID = cs.SessionID()
	}
	if rules := flowsOf(st); rules != nil && e.o.Taint != nil {
		s.Labels = e.sessionLabels(ctx, st, c)
	}
	if s.ID == "" && len(s.Labels) == 0 {
		return nil
	}
	if s.Labels == nil {
		s.Labels = []string{}
	}
	return &s
}

// interceptRequest runs the request phase of st's interceptors on c:
// a refusal when one denied (or failed closed), else nil with c.raw
// replaced by modified arguments (set, which the caller checks).
func (e *Envelope) interceptRequest(ctx context.Context, st State, c *Call, span trace.Span) *refusal {
	chain := interceptorsOf(st)
	method := methods[c.Kind]
	if !chain.Sees(method, c.Endpoint, intercept.PhaseRequest) {
		return nil
	}
	v := chain.Run(ctx, e.interceptInput(ctx, st, c, intercept.PhaseRequest), c.checkArgs)
	e.observeIntercept(ctx, c, v, span)
	if v.Denied {
		return &refusal{outcome: metrics.OutcomeDenied, msg: fmt.Sprintf("%s %q: %s", c.kindNoun(), c.Name, v.Message)}
	}
	if v.Arguments != nil {
		c.raw = v.Arguments
		if c.setArgs != nil {
			if r := c.setArgs(v.Arguments); r != nil {
				return r
			}
		}
	}
	return nil
}

// interceptResponse runs the response phase of st's interceptors on the
// result of c, as JSON (res): the result to send (res, or what they
// made of it), or the failure that replaces it.
func (e *Envelope) interceptResponse(ctx context.Context, st State, c *Call, res json.RawMessage, check intercept.Check) (json.RawMessage, bool, error) {
	in := e.interceptInput(ctx, st, c, intercept.PhaseResponse)
	in.Result = res
	v := interceptorsOf(st).Run(ctx, in, check)
	e.observeIntercept(ctx, c, v, trace.SpanFromContext(ctx))
	if v.Denied {
		return nil, false, &interceptDenied{msg: fmt.Sprintf("%s %q: %s", c.kindNoun(), c.Name, v.Message)}
	}
	if v.Result != nil {
		return v.Result, true, nil
	}
	return res, false, nil
}

// interceptDenied is a result an interceptor refused to let through.
type interceptDenied struct{ msg string }

func (d *interceptDenied) Error() string { return d.msg }

// observeIntercept counts, logs and traces what the interceptors
// decided of c, and keeps it for its audit line.
func (e *Envelope) observeIntercept(ctx context.Context, c *Call, v intercept.Verdict, span trace.Span) {
	for _, d := range v.Decisions {
		decided, took := e.interceptorMetrics(d.Interceptor, d.Decision)
		decided.Inc()
		took.Observe(d.Took.Seconds())
		if d.Err != nil {
			e.o.Logger.Warn("interceptor failed", "interceptor", d.Interceptor, "failure", d.Failure, c.Kind, c.Name,
				"endpoint", c.Endpoint, "error", d.Err)
		}
		if span.IsRecording() {
			// Its own span, under the call's, timed as it ran.
			_, is := e.o.Tracer(ctx).Start(trace.ContextWithSpan(ctx, span), "interceptor "+d.Interceptor,
				trace.WithTimestamp(d.Start), trace.WithSpanKind(trace.SpanKindInternal),
				trace.WithAttributes(attribute.String("wasmgate.interceptor", d.Interceptor), attribute.String("wasmgate.interceptor.decision", d.Decision)))
			if d.Err != nil {
				tracing.Fail(is, d.Err.Error())
			}
			is.End(trace.WithTimestamp(d.Start.Add(d.Took)))
		}
		if c.Interceptor == "" {
			c.Interceptor, c.Decision = d.Interceptor, d.Decision
		} else {
			c.Interceptor = c.Interceptor + "," + d.Interceptor
			c.Decision = c.Decision + "," + d.Decision
		}
	}
}

// interceptorMetrics are the children of the interceptor metrics for
// interceptor and decision: looked up by their labels at the first
// decision of each, then kept (interceptorSeries), since every decision
// of every call counts in them.
func (e *Envelope) interceptorMetrics(interceptor, decision string) (prometheus.Counter, prometheus.Observer) {
	if s := e.interceptors.Load(); s != nil {
		if c, ok := s.decided[[2]string{interceptor, decision}]; ok {
			return c, s.took[interceptor]
		}
	}
	e.interceptorsMu.Lock()
	defer e.interceptorsMu.Unlock()
	old := e.interceptors.Load()
	s := &interceptorSeries{decided: map[[2]string]prometheus.Counter{}, took: map[string]prometheus.Observer{}}
	if old != nil {
		maps.Copy(s.decided, old.decided)
		maps.Copy(s.took, old.took)
	}
	key := [2]string{interceptor, decision}
	if _, ok := s.decided[key]; !ok {
		s.decided[key] = e.o.Metrics.InterceptorDecisions.WithLabelValues(interceptor, decision)
	}
	if _, ok := s.took[interceptor]; !ok {
		s.took[interceptor] = e.o.Metrics.InterceptorDuration.WithLabelValues(interceptor)
	}
	e.interceptors.Store(s)
	return s.decided[key], s.took[interceptor]
}

// interceptorSeries are the interceptor metrics' children in use, by
// labels: replaced whole when one is added (copy on write), so that a
// decision looks its series up without a lock. Interceptors are named in
// the config: there are few.
type interceptorSeries struct {
	decided map[[2]string]prometheus.Counter // by interceptor and decision
	took    map[string]prometheus.Observer   // by interceptor
}

// kindNoun names c in messages: "tool", "resource", "prompt".
func (c *Call) kindNoun() string {
	if c.noun != "" {
		return c.noun
	}
	return c.Kind
}

// interceptResult runs the response phase on res, a result of c: what
// the interceptors made of it, parsed back with parse, within
// intercept.MaxOutput bytes; a modification parse refuses fails its
// interceptor (and the call or not, per its failure).
func interceptResult[T any](ctx context.Context, e *Envelope, st State, c *Call, res T, parse func(json.RawMessage) (T, error)) (T, error) {
	var zero T
	raw, err := encodeResult(res)
	if err != nil {
		return zero, fmt.Errorf("encoding the result for the interceptors: %w", err)
	}
	limit := int64(intercept.MaxOutput)
	if c.maxOutput > 0 {
		limit = min(limit, c.maxOutput)
	}
	// The last modification checked, parsed: the result sent when no
	// interceptor after it changes it again.
	var checked json.RawMessage
	var parsed T
	out, modified, err := e.interceptResponse(ctx, st, c, raw, func(mod json.RawMessage) error {
		if int64(len(mod)) > limit {
			return fmt.Errorf("the result is %d bytes, over the bound of %d (the source's limits.max_output)", len(mod), limit)
		}
		p, err := parse(mod)
		if err == nil {
			checked, parsed = mod, p
		}
		return err
	})
	if err != nil {
		return zero, err
	}
	if !modified {
		return res, nil
	}
	if len(out) > 0 && len(out) == len(checked) && &out[0] == &checked[0] {
		return parsed, nil
	}
	return parse(out)
}

// encodeResult is the JSON of res, a tool result of text in one pass.
func encodeResult(res any) ([]byte, error) {
	if r, ok := res.(*mcp.CallToolResult); ok {
		if b, ok := toolresult.Append(nil, r); ok {
			return b, nil
		}
	}
	return json.Marshal(res)
}

// ListIntercepted reports whether an interceptor of st sees the list
// method's results on e's endpoint: when none does, the list need not be
// encoded for InterceptList.
func (e *Envelope) ListIntercepted(st State, method string) bool {
	return interceptorsOf(st).Sees(method, e.o.Endpoint, intercept.PhaseResponse)
}

// InterceptList runs the response phase of st's interceptors on a list
// (method tools/list, resources/list, resources/templates/list or
// prompts/list) the caller of ctx gets: result is the list result as
// JSON ({"tools": [...]}), check judges each modification. It returns
// what to send (result when nothing changed: modified false), or, when
// an interceptor denied the list or failed closed, why (denied): the
// caller then sends an empty list.
func (e *Envelope) InterceptList(ctx context.Context, st State, method string, result json.RawMessage, check intercept.Check) (out json.RawMessage, modified bool, denied string) {
	chain := interceptorsOf(st)
	if !chain.Sees(method, e.o.Endpoint, intercept.PhaseResponse) {
		return result, false, ""
	}
	c := &Call{Kind: "list", Endpoint: e.o.Endpoint, Caller: CallerOf(ctx, st)}
	in := e.interceptInput(ctx, st, c, intercept.PhaseResponse)
	in.Method, in.Result = method, result
	v := chain.Run(ctx, in, check)
	e.observeIntercept(ctx, c, v, trace.SpanFromContext(ctx))
	switch {
	case v.Denied:
		e.o.Logger.Warn("an interceptor refused a list: the caller gets it empty", "method", method, "endpoint", c.Endpoint,
			"principal", c.Caller.Principal.Name, "interceptor", v.By, "reason", v.Message)
		return nil, false, v.Message
	case v.Result != nil:
		return v.Result, true, ""
	}
	return result, false, ""
}
