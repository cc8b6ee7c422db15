// Package tracing exports OpenTelemetry traces of the gateway's calls
// (the tracing section): a Holder the call path asks for the current
// tracer, and the snapshot component that builds the exporter from
// config, so that a reload turns tracing on, off or to another endpoint
// without touching calls in flight.
//
// Spans below the call's own (policy, waiting for an instance, the WASM
// call, a host function's HTTP request, a relay round trip, an upstream
// request) are started from the tracer of the span in their context
// (trace.SpanFromContext(ctx).TracerProvider()), so no package needs a
// global provider: with tracing off that span is a no-op and so is
// everything started from it.
package tracing

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/wasmgate/wasmgate/gateway/component"
	"github.com/wasmgate/wasmgate/internal/lograte"
	"github.com/wasmgate/wasmgate/internal/refcount"
	"github.com/wasmgate/wasmgate/loader"
)

// Name is the instrumentation scope of every span the gateway starts.
const Name = "github.com/wasmgate/wasmgate"

// Holder is the gateway's current tracer, across reloads.
type Holder struct {
	cur      atomic.Pointer[provider]
	noop     trace.Tracer
	exported *prometheus.CounterVec
	version  string
}

// NewHolder returns a Holder that traces nothing until a component with a
// tracing section applies. Its span counter is registered on reg.
func NewHolder(reg prometheus.Registerer, version string) *Holder {
	h := &Holder{
		noop:    noop.NewTracerProvider().Tracer(Name),
		version: version,
		exported: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wasmgate_trace_spans_total",
			Help: "Spans recorded for export, by outcome: exported, or dropped (the collector refused them or could not be reached, or the export queue was full).",
		}, []string{"outcome"}),
	}
	for _, o := range []string{"exported", "dropped"} {
		h.exported.WithLabelValues(o)
	}
	if reg != nil {
		reg.MustRegister(h.exported)
	}
	return h
}

// TracerFor is the tracer a call made with ctx starts its spans with
// now: a no-op tracer when tracing is off, and also with sample_ratio 0,
// which records nothing whatever the caller's traceparent says (the
// operator's ratio wins over a client's sampled flag; see sampler).
// Nothing of such a call could be recorded, so nothing is built; the
// caller's trace context still goes on to upstreams unchanged.
func (h *Holder) TracerFor(context.Context) trace.Tracer {
	p := h.cur.Load()
	if p == nil || p.cfg.Ratio() == 0 {
		return h.noop
	}
	return p.tracer
}

// sampler is parent-based on ratio: a new trace is sampled at ratio, a
// caller's unsampled traceparent is followed, and so is a sampled one,
// except with ratio 0: then nothing is sampled, so that a client cannot
// make a gateway whose operator asked for no traces record and export
// spans by sending a sampled traceparent (issue 39).
func sampler(ratio float64) sdktrace.Sampler {
	root := sdktrace.TraceIDRatioBased(ratio)
	if ratio == 0 {
		return sdktrace.ParentBased(root, sdktrace.WithRemoteParentSampled(sdktrace.NeverSample()),
			sdktrace.WithLocalParentSampled(sdktrace.NeverSample()))
	}
	return sdktrace.ParentBased(root)
}

// On reports whether tracing is on.
func (h *Holder) On() bool { return h.cur.Load() != nil }

// provider is one exporter and its tracer provider, shared by the
// snapshots whose tracing section is the same.
type provider struct {
	cfg    loader.Tracing
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
	refs   refcount.Count
}

func (p *provider) release(ctx context.Context, log *slog.Logger) {
	if p == nil || !p.refs.Release() {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := p.tp.Shutdown(ctx); err != nil && log != nil {
		log.Warn("tracing: flushing spans at shutdown", "endpoint", redacted(p.cfg.Endpoint), "error", err)
	}
}

// Component is the tracing section of one snapshot.
type Component struct {
	h    *Holder
	log  *slog.Logger
	prev *provider // the serving snapshot's, for Reuse
	p    *provider // nil: tracing off
	cfg  loader.Tracing
}

// Component is a new tracing component of a snapshot being built.
func (h *Holder) Component(log *slog.Logger) *Component { return &Component{h: h, log: log} }

func (c *Component) Name() string { return "tracing" }

var (
	_ component.Component          = (*Component)(nil)
	_ component.Reuser[*Component] = (*Component)(nil)
	_ component.Differ[*Component] = (*Component)(nil)
	_ component.Applier            = (*Component)(nil)
)

// Reuse keeps the serving exporter when the section is unchanged.
func (c *Component) Reuse(p *Component) { c.prev = p.p }

// Provision builds the exporter of cfg's tracing section (none when it
// has no endpoint); nothing is sent until spans end.
func (c *Component) Provision(_ context.Context, cfg *loader.Config) error {
	t := cfg.Tracing
	c.cfg = t
	if !t.On() {
		return nil
	}
	if c.prev != nil && same(c.prev.cfg, t) && c.prev.refs.Retain() {
		c.p = c.prev
		return nil
	}
	names, refs := t.Headers("tracing")
	headers := make(map[string]string, len(names))
	for i, ref := range refs {
		s, err := ref.Read(cfg.File, nil)
		if err != nil {
			return err
		}
		headers[names[i]] = s.Value()
	}
	exp, err := newExporter(t, headers)
	if err != nil {
		return fmt.Errorf("%s: tracing.endpoint: %w", cfg.File, err)
	}
	res := resource.NewSchemaless(
		attribute.String("service.name", t.ServiceName),
		attribute.String("service.version", c.h.version),
	)
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sampler(t.Ratio())),
		// A bounded queue that drops rather than blocks: an unreachable
		// collector never slows a call.
		sdktrace.WithSpanProcessor(newBounded(exp, c.h.exported, maxQueued)),
	)
	c.p = &provider{cfg: t, tp: tp, tracer: tp.Tracer(Name)}
	c.p.refs.Init()
	return nil
}

// Apply makes this snapshot's tracer the one calls use.
func (c *Component) Apply(context.Context) {
	c.h.cur.Store(c.p)
	if c.p != nil && c.p != c.prev {
		if c.p.cfg.Ratio() == 0 {
			c.log.Info("tracing on with sample_ratio 0: no call is recorded, not even one whose client sends a sampled traceparent", "endpoint", redacted(c.p.cfg.Endpoint))
		} else {
			c.log.Info("tracing on", "endpoint", redacted(c.p.cfg.Endpoint), "sample_ratio", c.p.cfg.Ratio())
		}
	} else if c.p == nil && c.prev != nil {
		c.log.Info("tracing off")
	}
}

// Cleanup flushes and stops the exporter once no snapshot uses it.
func (c *Component) Cleanup(ctx context.Context) {
	c.p.release(ctx, c.log)
	c.p = nil
}

// Changes says what a reload changed of tracing, for the status page.
func (c *Component) Changes(p *Component) []string {
	var was loader.Tracing
	if p != nil {
		was = p.cfg
	}
	now := c.cfg
	switch {
	case same(was, now):
		return nil
	case !now.On():
		return []string{"tracing off"}
	case !was.On():
		return []string{"tracing on: " + redacted(now.Endpoint)}
	}
	return []string{"tracing changed: " + redacted(now.Endpoint)}
}

func same(a, b loader.Tracing) bool {
	if a.Endpoint != b.Endpoint || a.Ratio() != b.Ratio() || a.ServiceName != b.ServiceName || len(a.HeadersEnv) != len(b.HeadersEnv) {
		return false
	}
	for k, v := range a.HeadersEnv {
		if b.HeadersEnv[k] != v {
			return false
		}
	}
	return true
}

// A batch is retried this long before it is dropped (and counted):
// briefly, so that a collector that is down costs a bounded queue, not a
// minute of batches held.
const (
	retryFirst = 500 * time.Millisecond
	retryMax   = 2 * time.Second
	retryFor   = 5 * time.Second
)

func newExporter(t loader.Tracing, headers map[string]string) (sdktrace.SpanExporter, error) {
	u, err := url.Parse(t.Endpoint)
	if err != nil {
		return nil, err
	}
	ctx := context.Background() // neither constructor dials
	switch u.Scheme {
	case "grpc", "grpcs":
		opts := []otlptracegrpc.Option{otlptracegrpc.WithEndpoint(u.Host), otlptracegrpc.WithHeaders(headers),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: true, InitialInterval: retryFirst, MaxInterval: retryMax, MaxElapsedTime: retryFor})}
		if u.Scheme == "grpc" {
			opts = append(opts, otlptracegrpc.WithInsecure())
		}
		return otlptracegrpc.New(ctx, opts...)
	case "http", "https":
		endpoint := t.Endpoint
		if strings.Trim(u.Path, "/") == "" {
			endpoint = strings.TrimRight(endpoint, "/") + "/v1/traces"
		}
		return otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint), otlptracehttp.WithHeaders(headers),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true, InitialInterval: retryFirst, MaxInterval: retryMax, MaxElapsedTime: retryFor}))
	}
	return nil, fmt.Errorf("%q: unknown scheme", t.Endpoint)
}

// maxQueued bounds the spans ended and not yet exported (or dropped).
const maxQueued = 8192

// bounded is the batch span processor behind a queue bound of its own, so
// that every span is counted: the batcher drops a span silently when its
// queue is full, so bounded drops it first, and counts it, when max spans
// wait or are being exported. The batcher's queue (of the same size) then
// never fills.
type bounded struct {
	sdktrace.SpanProcessor // the batcher
	queued                 *atomic.Int64
	max                    int64
	dropped                prometheus.Counter
}

func newBounded(exp sdktrace.SpanExporter, n *prometheus.CounterVec, max int64) *bounded {
	queued := new(atomic.Int64)
	return &bounded{
		// A bounded queue that drops rather than blocks: an unreachable
		// collector never slows a call.
		SpanProcessor: sdktrace.NewBatchSpanProcessor(&counting{SpanExporter: exp, n: n, queued: queued},
			sdktrace.WithMaxQueueSize(int(max)),
			sdktrace.WithMaxExportBatchSize(2048), // fewer, larger exports: less CPU per span
			sdktrace.WithBatchTimeout(time.Second),
			sdktrace.WithExportTimeout(10*time.Second)),
		queued:  queued,
		max:     max,
		dropped: n.WithLabelValues("dropped"),
	}
}

func (b *bounded) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return // the batcher exports sampled spans only
	}
	if b.queued.Add(1) > b.max {
		b.queued.Add(-1)
		b.dropped.Inc()
		return
	}
	b.SpanProcessor.OnEnd(s)
}

// counting counts what the exporter delivered and what it dropped, and
// takes both off bounded's queue.
type counting struct {
	sdktrace.SpanExporter
	n      *prometheus.CounterVec
	queued *atomic.Int64
}

func (c *counting) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := c.SpanExporter.ExportSpans(ctx, spans)
	c.queued.Add(-int64(len(spans)))
	outcome := "exported"
	if err != nil {
		outcome = "dropped"
	}
	c.n.WithLabelValues(outcome).Add(float64(len(spans)))
	return err
}

// redacted is an endpoint as logs show it (no credentials, no query).
func redacted(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "(unparsable endpoint)"
	}
	u.User, u.RawQuery = nil, ""
	return u.String()
}

// FromMeta is ctx continuing the trace of a request's _meta.traceparent
// (and tracestate), the 2026-07-28 revision's place for it; ctx as it is
// when meta has none, or when ctx already carries a remote parent from
// the HTTP headers.
func FromMeta(ctx context.Context, traceparent, tracestate string) context.Context {
	if traceparent == "" || trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	carrier := propagation.MapCarrier{"traceparent": traceparent}
	if tracestate != "" {
		carrier["tracestate"] = tracestate
	}
	return propagation.TraceContext{}.Extract(ctx, carrier)
}

// Off is the span of what is not traced: it records nothing, and ending
// it ends nothing (unlike the span in a context, which is the caller's).
func Off() trace.Span { return trace.SpanFromContext(context.Background()) }

// Fail records err on span as its error status.
func Fail(span trace.Span, msg string) {
	if span.IsRecording() {
		span.SetStatus(codes.Error, msg)
	}
}

// FromHeaders is ctx continuing the trace of an HTTP request's W3C
// traceparent header (and tracestate); ctx as it is without one.
func FromHeaders(ctx context.Context, h http.Header) context.Context {
	if h.Get("Traceparent") == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.HeaderCarrier(h))
}

// ErrorHandler routes OpenTelemetry's own errors (a failed export, say),
// which it would print with the standard log package, to log, at most a
// few a minute. The process's main installs it (otel.SetErrorHandler):
// OpenTelemetry keeps its error handler process-wide.
func ErrorHandler(log *slog.Logger) otel.ErrorHandler {
	lim := lograte.New(3, time.Minute, nil)
	return otel.ErrorHandlerFunc(func(err error) {
		lim.Warn(log, "tracing: exporting spans failed; they are dropped and counted in wasmgate_trace_spans_total", "error", err)
	})
}
