// Package procs runs Go's scheduler on one P while requests come one at a
// time, and on all of them again the moment two overlap.
//
// A server that answers one request at a time gains nothing from a
// second P. It pays for it: every hand-off between goroutines on a
// request's path (the handler, net/http's connection reader and writer)
// wakes an idle thread, which spins looking for work and goes back to
// sleep. On a small machine that is CPU a call could have used, and
// latency. A Governor sets GOMAXPROCS to 1 once no two requests have
// overlapped for a while (hold), and restores Go's default (with its
// automatic updates) as soon as a request starts while another runs.
//
// It runs only when requests start, never on a timer: an idle process
// does nothing for it.
//
// On one P, a goroutine blocked in a system call holds the P until the
// runtime's monitor takes it back (microseconds to 10 ms later), so a
// process that reads a blocking file for long (a stdin pipe) must not
// use a Governor.
package procs

import (
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Governor follows how many requests run at once. Its zero value is not
// usable; a nil *Governor does nothing.
type Governor struct {
	hold  time.Duration
	clock func() time.Duration // monotonic time since the governor began
	set   func(one bool)       // GOMAXPROCS to 1, or back to Go's default

	active  atomic.Int64
	overlap atomic.Int64 // clock() when two requests last ran at once
	one     atomic.Bool  // GOMAXPROCS is 1

	mu      sync.Mutex // serializes set and Stop
	stopped bool
}

// New is a governor that sets GOMAXPROCS to 1 after hold without two
// requests at once. It is nil where Go's default is already 1 P.
// Start it only when the operator has not chosen GOMAXPROCS.
func New(hold time.Duration) *Governor {
	if runtime.GOMAXPROCS(0) < 2 {
		return nil
	}
	return newGovernor(hold, nil, func(one bool) {
		if one {
			runtime.GOMAXPROCS(1)
		} else {
			runtime.SetDefaultGOMAXPROCS()
		}
	})
}

// newGovernor is New with its clock (nil: the monotonic clock) and its
// setter, for tests.
func newGovernor(hold time.Duration, clock func() time.Duration, set func(one bool)) *Governor {
	if clock == nil {
		base := time.Now()
		clock = func() time.Duration { return time.Since(base) }
	}
	g := &Governor{hold: hold, clock: clock, set: set}
	// The process starts on its default Ps: the first hold counts from
	// now.
	g.overlap.Store(int64(g.clock()))
	return g
}

// Begin records a request that starts; End must follow when it ends.
func (g *Governor) Begin() {
	if g == nil {
		return
	}
	if g.active.Add(1) > 1 {
		g.Busy() // two at once
		return
	}
	if !g.one.Load() && int64(g.clock())-g.overlap.Load() >= int64(g.hold) {
		g.narrow()
	}
}

// End records the end of a request Begin recorded.
func (g *Governor) End() {
	if g != nil {
		g.active.Add(-1)
	}
}

// Busy gives the default Ps to what runs now (two requests, or other
// work such as a reload): they are restored now and kept for hold.
func (g *Governor) Busy() {
	if g == nil {
		return
	}
	g.overlap.Store(int64(g.clock()))
	if g.one.Load() {
		g.widen()
	}
}

// narrow sets GOMAXPROCS to 1 if one request runs and none overlapped
// for hold. one is set before GOMAXPROCS: a request that starts
// meanwhile sees it, and waits to widen again.
func (g *Governor) narrow() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped || g.one.Load() || g.active.Load() > 1 || int64(g.clock())-g.overlap.Load() < int64(g.hold) {
		return
	}
	g.one.Store(true)
	g.set(true)
}

// widen restores Go's default Ps.
func (g *Governor) widen() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.stopped {
		g.restore()
	}
}

// restore sets Go's default Ps back if they were narrowed; g.mu is held.
func (g *Governor) restore() {
	if g.one.Load() {
		g.set(false)
		g.one.Store(false)
	}
}

// Stop restores Go's default Ps for good.
func (g *Governor) Stop() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return
	}
	g.stopped = true
	g.restore()
}

// Handler counts the requests next serves, except GET: a GET holds a
// session's stream open for as long as the session lives and does no
// work while it waits.
func (g *Governor) Handler(next http.Handler) http.Handler {
	if g == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		g.Begin()
		defer g.End()
		next.ServeHTTP(w, r)
	})
}
