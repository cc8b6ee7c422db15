package envelope

import (
	"context"
	"encoding/json"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wasmgate/wasmgate/flow"
	"github.com/wasmgate/wasmgate/gateway/roundtrip"
	"github.com/wasmgate/wasmgate/metrics"
)

// Call is one finished call as observers see it.
type Call struct {
	Caller Caller
	Kind   string // "tool", "resource", "prompt", "completion"
	Name   string // what the client named: a tool, a URI, a prompt
	Key    string // what the call resolved to: Name, or a resource template
	Source string // the source's name
	// Endpoint is the endpoint the call came through (loader.Endpoint):
	// Options.Endpoint, loader.DefaultEndpoint when that is empty.
	Endpoint string
	Outcome  string // a metrics.Outcome*
	Start    time.Time
	Took     time.Duration
	Err      string         // what failed, for a call whose outcome is not ok
	Args     map[string]any // the arguments, when the kind has them
	TraceID  string         // the call's trace, when it is recorded
	// UpstreamMode and UpstreamSubject: whom a source reached as the
	// caller saw (source.PerUser), for the audit line.
	UpstreamMode, UpstreamSubject string
	// FlowRule, FlowAction and FlowChain: the flow rule that fired on the
	// call (flows:), what it did (deny, elicit, audit; approved or
	// refused once asked; unscoped) and the calls that tainted the
	// session, for the audit line.
	FlowRule, FlowAction, FlowChain string
	// Interceptor and Decision: the interceptors that ran on the call and
	// what each decided (continue, deny, modify, error), comma-separated
	// in the order they ran, for the audit line.
	Interceptor, Decision string
	// App is the MCP App (its ui:// URI as the endpoint publishes it)
	// a tool call came from, as its host said (source.AppRef): the
	// audit line's origin=app and app.
	App string

	labels   []string          // its flow labels
	flowKey  string            // its taint's key, once flow control looked it up
	flowSeen *flow.Taint       // the taint flow control read before the call
	rp       *roundtrip.Replay // a 2026-07-28 tool call's rounds, for a flow elicitation
	// raw are the call's arguments as interceptors see them (canonical
	// JSON); checkArgs judges an interceptor's new arguments, setArgs
	// makes them the call's.
	raw       json.RawMessage
	checkArgs func(json.RawMessage) error
	setArgs   func(json.RawMessage) *refusal
	maxOutput int64         // the source's bound on a result (source.OutputLimited); 0: none
	noun      string        // names the call in messages when Kind does not
	timeout   time.Duration // bounds the call instead of the source's Timeout (a task)
	malformed *refusal      // a request refused before it is authorized
}

// Observer hears of every finished call: metrics, the audit log, the
// status page. Observe must not block.
type Observer interface {
	Observe(ctx context.Context, c *Call)
}

// Observers fans a call out to each of its observers in order.
type Observers []Observer

func (os Observers) Observe(ctx context.Context, c *Call) {
	for _, o := range os {
		o.Observe(ctx, c)
	}
}

// Metrics is the Observer that counts calls in Prometheus metrics.
type Metrics struct {
	M  *metrics.Metrics
	ex *exemplars
}

// NewMetrics is the Observer that counts calls in m.
func NewMetrics(m *metrics.Metrics) Metrics {
	return Metrics{M: m, ex: &exemplars{last: map[exemplarKey]time.Time{}, bounds: metrics.ToolDurationBuckets()}}
}

func (m Metrics) Observe(_ context.Context, c *Call) {
	switch c.Kind {
	case kindTool:
		m.M.ToolCalls.WithLabelValues(c.Name, c.Source, c.Endpoint, c.Outcome).Inc()
		h := m.M.ToolDuration.WithLabelValues(c.Name, c.Source, c.Endpoint)
		secs := c.Took.Seconds()
		if eo, ok := h.(prometheus.ExemplarObserver); ok && c.TraceID != "" && m.ex.take(c.Name, c.Source, c.Endpoint, secs) {
			// The latency panel links to the trace (OpenMetrics exemplars).
			eo.ObserveWithExemplar(secs, prometheus.Labels{"trace_id": c.TraceID})
		} else {
			h.Observe(secs)
		}
	case kindResource:
		m.M.ResourceReads.WithLabelValues(c.Source, c.Endpoint, c.Outcome).Inc()
	case kindPrompt:
		m.M.PromptGets.WithLabelValues(c.Source, c.Endpoint, c.Outcome).Inc()
	}
}

// exemplarEvery is how often a bucket of a tool's latency histogram takes
// a new exemplar. A histogram keeps only the last exemplar of each bucket
// and a scrape reads that one, so giving every traced call's latency one
// would only cost the calls: the first traced call in a bucket gets one,
// and then one a second, a slow call as surely as a fast one (it lands in
// a bucket of its own).
const exemplarEvery = time.Second

type exemplarKey struct {
	tool, source, endpoint string
	bucket                 int
}

type exemplars struct {
	mu     sync.Mutex
	last   map[exemplarKey]time.Time
	bounds []float64
}

// take reports whether a traced call of tool from source through endpoint
// that took secs gives its bucket an exemplar now.
func (e *exemplars) take(tool, source, endpoint string, secs float64) bool {
	if e == nil {
		return true
	}
	k := exemplarKey{tool, source, endpoint, sort.SearchFloat64s(e.bounds, secs)}
	now := time.Now()
	e.mu.Lock()
	defer e.mu.Unlock()
	if t, ok := e.last[k]; ok && now.Sub(t) < exemplarEvery {
		return false
	}
	if len(e.last) >= maxExemplarKeys {
		clear(e.last) // tools come and go across reloads; the bound keeps it small
	}
	e.last[k] = now
	return true
}

// maxExemplarKeys bounds the buckets exemplars remembers.
const maxExemplarKeys = 4096
