package procs

import (
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"
)

// fake is a governor's clock and setter under a test's control.
type fake struct {
	now  time.Duration
	sets []bool // every set call, in order
}

func (f *fake) governor(hold time.Duration) *Governor {
	return newGovernor(hold, func() time.Duration { return f.now }, func(one bool) { f.sets = append(f.sets, one) })
}

func (f *fake) last(t *testing.T, want []bool) {
	t.Helper()
	if len(f.sets) != len(want) {
		t.Fatalf("set calls %v, want %v", f.sets, want)
	}
	for i := range want {
		if f.sets[i] != want[i] {
			t.Fatalf("set calls %v, want %v", f.sets, want)
		}
	}
}

func TestGovernor(t *testing.T) {
	f := &fake{}
	g := f.governor(time.Second)

	// Within hold of the start, one request at a time changes nothing.
	f.now = 500 * time.Millisecond
	g.Begin()
	g.End()
	f.last(t, nil)

	// A request alone after hold: one P.
	f.now = time.Second
	g.Begin()
	f.last(t, []bool{true})
	// A second while it runs: the default Ps at once.
	g.Begin()
	f.last(t, []bool{true, false})
	g.End()
	g.End()

	// Alone again, but within hold of the overlap: still the default.
	f.now = 1500 * time.Millisecond
	g.Begin()
	g.End()
	f.last(t, []bool{true, false})

	// Alone after hold: one P, set once however many follow.
	f.now = 2 * time.Second
	for range 3 {
		g.Begin()
		g.End()
	}
	f.last(t, []bool{true, false, true})

	// Busy restores the default and holds it.
	g.Busy()
	f.last(t, []bool{true, false, true, false})
	f.now = 2500 * time.Millisecond
	g.Begin()
	g.End()
	f.last(t, []bool{true, false, true, false})
	f.now = 3 * time.Second
	g.Begin()
	g.End()
	f.last(t, []bool{true, false, true, false, true})

	// Stop restores the default for good.
	g.Stop()
	f.last(t, []bool{true, false, true, false, true, false})
	f.now = time.Hour
	g.Begin()
	g.Begin()
	g.End()
	g.End()
	g.Stop()
	f.last(t, []bool{true, false, true, false, true, false})
}

// TestGovernorNarrowRecheck: a second request that starts between the
// first one's decision and its change keeps the default Ps.
func TestGovernorNarrowRecheck(t *testing.T) {
	f := &fake{}
	g := f.governor(time.Second)
	f.now = 2 * time.Second
	g.active.Add(2) // two running, as if the second began after the first decided
	g.narrow()
	f.last(t, nil)
}

func TestNilGovernor(t *testing.T) {
	var g *Governor
	g.Begin()
	g.End()
	g.Busy()
	g.Stop()
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	if got := g.Handler(h); got == nil {
		t.Fatal("a nil governor's Handler is nil")
	}
}

// TestHandler: requests other than GET are counted while they run; GET
// streams are not.
func TestHandler(t *testing.T) {
	f := &fake{}
	g := f.governor(0)
	var seen []int64
	h := g.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		seen = append(seen, g.active.Load())
	}))
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(m, "/mcp", nil))
	}
	if want := []int64{1, 0, 1}; len(seen) != 3 || seen[0] != want[0] || seen[1] != want[1] || seen[2] != want[2] {
		t.Fatalf("active while serving POST, GET, DELETE: %v, want %v", seen, want)
	}
	if g.active.Load() != 0 {
		t.Fatalf("active after the requests: %d", g.active.Load())
	}
	f.last(t, []bool{true}) // the first POST, alone with hold 0
}

// TestRuntime drives the real scheduler: GOMAXPROCS is 1 while requests
// come one at a time, Go's default when two overlap, and after Stop.
func TestRuntime(t *testing.T) {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		t.Skip("GOMAXPROCS is set: the governor is not used then")
	}
	def := runtime.GOMAXPROCS(0)
	g := New(0)
	if def < 2 {
		if g != nil {
			t.Fatal("New on one P is not nil")
		}
		t.Skip("one P here: nothing to govern")
	}
	defer runtime.SetDefaultGOMAXPROCS()
	defer g.Stop()
	g.Begin()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS %d with one request, want 1", got)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		g.Begin()
		defer g.End()
		if got := runtime.GOMAXPROCS(0); got != def {
			t.Errorf("GOMAXPROCS %d with two requests, want %d", got, def)
		}
	})
	wg.Wait()
	g.End()
	g.Begin()
	g.End()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS %d after a request alone again, want 1", got)
	}
	g.Stop()
	if got := runtime.GOMAXPROCS(0); got != def {
		t.Fatalf("GOMAXPROCS %d after Stop, want %d", got, def)
	}
}
