package envelope

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmgate/wasmgate/gateway/intercept"
	"github.com/wasmgate/wasmgate/metrics"
)

// TestObserveInterceptCounts: what interceptors decide is counted in the
// series of their own labels, from many calls at once, whatever order the
// series are first used in, and the audit fields list each decision in
// the order it ran.
func TestObserveInterceptCounts(t *testing.T) {
	m := metrics.New("test", "test")
	e := New(Options{Metrics: m, Logger: slog.New(slog.DiscardHandler)})
	decisions := []string{intercept.Continue, intercept.Deny, intercept.Modify, "error"}
	const callers, calls = 8, 50
	var wg sync.WaitGroup
	for w := range callers {
		wg.Go(func() {
			for i := range calls {
				var v intercept.Verdict
				for k := range 3 {
					v.Decisions = append(v.Decisions, intercept.Decided{Interceptor: fmt.Sprintf("ic%d", k),
						Decision: decisions[(w+i+k)%len(decisions)], Took: time.Millisecond})
				}
				c := &Call{}
				e.observeIntercept(context.Background(), c, v, trace.SpanFromContext(context.Background()))
				want := fmt.Sprintf("%s,%s,%s", v.Decisions[0].Decision, v.Decisions[1].Decision, v.Decisions[2].Decision)
				if c.Interceptor != "ic0,ic1,ic2" || c.Decision != want {
					t.Errorf("audit fields %q %q, want ic0,ic1,ic2 and %q", c.Interceptor, c.Decision, want)
				}
			}
		})
	}
	wg.Wait()
	total := 0.0
	for k := range 3 {
		for _, d := range decisions {
			n := testutil.ToFloat64(m.InterceptorDecisions.WithLabelValues(fmt.Sprintf("ic%d", k), d))
			if n != float64(callers*calls/len(decisions)) {
				t.Errorf("ic%d %s: counted %v, want %d", k, d, n, callers*calls/len(decisions))
			}
			total += n
		}
	}
	if total != 3*callers*calls {
		t.Errorf("%v decisions counted, want %d", total, 3*callers*calls)
	}
	if n := testutil.CollectAndCount(m.InterceptorDuration); n != 3 {
		t.Errorf("%d duration series, want one per interceptor (3)", n)
	}
}
