// Package gcfloor keeps Go's garbage collector from running every few
// megabytes while the live heap is small.
//
// With GOGC=100 the collector runs whenever the heap has grown by as much
// as survived the last collection. A gateway whose live heap is 3 MiB and
// which allocates a few kilobytes per call collects tens of times a
// second under load, and every collection costs CPU that a call could
// have used. A floor raises GOGC, after each collection, just enough that
// the heap may grow to the floor before the next one; once the live heap
// is half the floor or more (where GOGC=100 reaches the floor anyway),
// GOGC is 100 again, so a large gateway uses no more memory than Go's
// default would give it.
//
// It runs only on collections (a cleanup of an object that each cycle
// frees), never on a timer: an idle gateway does nothing for it.
package gcfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// maxPercent bounds GOGC on a nearly empty heap.
const maxPercent = 5000

// floor holds GOGC at what lets the heap reach bytes between collections.
type floor struct {
	bytes uint64

	mu      sync.Mutex // held by adjust and stop
	stopped bool
	percent int // GOGC as last set
	sample  []metrics.Sample
}

// sentinel is the object each cycle frees; a pointer field keeps it out
// of the tiny allocator, whose blocks may outlive it.
type sentinel struct{ _ *byte }

// Start holds the collector's heap goal at bytes or more, for as long as
// the process runs or until stop is called, which sets GOGC back to 100.
// Start it only when the operator has not chosen GOGC.
func Start(bytes uint64) (stop func()) {
	f := &floor{bytes: bytes, percent: 100, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	f.adjust()
	f.arm()
	return f.stop
}

// arm asks for f.collected after the next collection.
func (f *floor) arm() {
	runtime.AddCleanup(&sentinel{}, (*floor).collected, f)
}

func (f *floor) collected() {
	if f.adjust() {
		f.arm()
	}
}

// adjust sets GOGC from the live heap the last collection left; it
// reports false once stopped.
func (f *floor) adjust() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return false
	}
	metrics.Read(f.sample)
	live := uint64(0)
	if f.sample[0].Value.Kind() == metrics.KindUint64 {
		live = f.sample[0].Value.Uint64()
	}
	if p := Percent(f.bytes, live); p != f.percent {
		debug.SetGCPercent(p)
		f.percent = p
	}
	return true
}

func (f *floor) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.stopped {
		f.stopped = true
		debug.SetGCPercent(100)
	}
}

// Percent is the GOGC that lets a heap of live bytes grow to floor bytes
// before the next collection: at least 100 (Go's default), at most
// 5000.
func Percent(floor, live uint64) int {
	if live >= floor/2 {
		return 100
	}
	if live == 0 {
		return maxPercent
	}
	p := floor*100/live - 100
	if p > maxPercent {
		return maxPercent
	}
	return int(p)
}
