package envelope

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wasmgate/wasmgate/metrics"
)

// Call is one finished call as observers see it.
type Call struct {
	Caller  Caller
	Kind    string // "tool", "resource", "prompt", "completion"
	Name    string // what the client named: a tool, a URI, a prompt
	Key     string // what the call resolved to: Name, or a resource template
	Source  string // the source's name
	Outcome string // a metrics.Outcome*
	Start   time.Time
	Took    time.Duration
	Err     string         // what failed, for a call whose outcome is not ok
	Args    map[string]any // the arguments, when the kind has them
	TraceID string         // the call's trace, when it is recorded

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
type Metrics struct{ M *metrics.Metrics }

func (m Metrics) Observe(_ context.Context, c *Call) {
	switch c.Kind {
	case kindTool:
		m.M.ToolCalls.WithLabelValues(c.Name, c.Source, c.Outcome).Inc()
		h := m.M.ToolDuration.WithLabelValues(c.Name, c.Source)
		if eo, ok := h.(prometheus.ExemplarObserver); ok && c.TraceID != "" {
			// The latency panel links to the trace (OpenMetrics exemplars).
			eo.ObserveWithExemplar(c.Took.Seconds(), prometheus.Labels{"trace_id": c.TraceID})
		} else {
			h.Observe(c.Took.Seconds())
		}
	case kindResource:
		m.M.ResourceReads.WithLabelValues(c.Source, c.Outcome).Inc()
	case kindPrompt:
		m.M.PromptGets.WithLabelValues(c.Source, c.Outcome).Inc()
	}
}
