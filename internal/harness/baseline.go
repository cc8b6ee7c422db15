package harness

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Runtime is what /metrics says of a gateway's Go runtime.
type Runtime struct {
	Heap       float64 // go_memstats_heap_alloc_bytes
	Goroutines float64 // go_goroutines
	GCs        float64 // go_gc_duration_seconds_count
}

func (s Runtime) String() string {
	return fmt.Sprintf("heap %.1f MiB, %v goroutines", s.Heap/(1<<20), s.Goroutines)
}

// Runtime scrapes the gateway's runtime figures.
func (g *Gateway) Runtime(t testing.TB) Runtime {
	t.Helper()
	m := g.Scrape(t)
	get := func(name string) float64 {
		v, ok := m.Value(name, nil)
		if !ok {
			t.Fatalf("%s is missing from /metrics", name)
		}
		return v
	}
	return Runtime{get("go_memstats_heap_alloc_bytes"), get("go_goroutines"), get("go_gc_duration_seconds_count")}
}

// SettleRuntime waits (up to 30 s) until the gateway's goroutines are
// back within 3 of base's (when base is given), then makes the gateway
// allocate (POSTs of 256 KiB with a forged session id, which it reads and
// refuses) until two garbage collections have run, and returns the
// figures read just after the second: the heap is then close to the live
// heap, not to wherever the collector's cycle happened to be. (The admin
// endpoint has no way to force a collection.)
func (g *Gateway) SettleRuntime(t testing.TB, base *Runtime) Runtime {
	t.Helper()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	if base != nil {
		var s Runtime
		if !WaitFor(30*time.Second, func() bool { s = g.Runtime(t); return s.Goroutines <= base.Goroutines+3 }) {
			t.Errorf("goroutines did not come back: %v now, %v before", s.Goroutines, base.Goroutines)
		}
	}
	// A reader per request: the gateway may answer before it has read a
	// body, while the transport is still sending it.
	body := strings.Repeat(" ", 256<<10)
	start := g.Runtime(t)
	for range 2000 {
		req, _ := http.NewRequest(http.MethodPost, g.MCPURL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Session-Id", "mcp-session-churn")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("churn POST: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if s := g.Runtime(t); s.GCs >= start.GCs+2 {
			return s
		}
	}
	t.Fatalf("no garbage collection after 2000 POSTs of 256 KiB")
	return Runtime{}
}

// Baseline is SettleRuntime three times, keeping the smallest heap (a
// single reading can land on garbage the churn itself left, on a machine
// busy with other work): the figures to compare with after an attack
// (BackNearBaseline), or after it when base is given.
func (g *Gateway) Baseline(t testing.TB, base *Runtime) Runtime {
	t.Helper()
	best := g.SettleRuntime(t, base)
	for range 2 {
		if s := g.SettleRuntime(t, base); s.Heap < best.Heap {
			best = s
		}
	}
	// The churn's own keep-alive connections hold a goroutine each in the
	// gateway until they close: count goroutines once they have, taking
	// the lowest reading within a few seconds.
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	WaitFor(10*time.Second, func() bool {
		if n := g.Runtime(t).Goroutines; n < best.Goroutines {
			best.Goroutines = n
		}
		return base == nil || best.Goroutines <= base.Goroutines+3
	})
	return best
}

// BackNearBaseline fails t unless, once what (an attack) is over, the
// gateway's heap comes back within slack bytes of base's and its
// goroutines within 3 (waiting for both, with a deadline). Close the
// attack's clients and sessions first: what they hold is not a leak.
func (g *Gateway) BackNearBaseline(t testing.TB, what string, base Runtime, slack float64) Runtime {
	t.Helper()
	after := g.Baseline(t, &base)
	CheckNear(t, what, base, after, slack)
	return after
}

// CheckNear logs base and after, and fails t (going on) unless after's
// heap is within slack bytes of base's and its goroutines within 3;
// what names the attack in the messages.
func CheckNear(t testing.TB, what string, base, after Runtime, slack float64) {
	t.Helper()
	t.Logf("%s: before %v; after %v", what, base, after)
	if after.Heap > base.Heap+slack {
		t.Errorf("%s: heap %.1f MiB, %.1f MiB above the %.1f MiB before (allowed %.0f MiB)", what,
			after.Heap/(1<<20), (after.Heap-base.Heap)/(1<<20), base.Heap/(1<<20), slack/(1<<20))
	}
	if after.Goroutines > base.Goroutines+3 {
		t.Errorf("%s: %v goroutines, %v before", what, after.Goroutines, base.Goroutines)
	}
}
