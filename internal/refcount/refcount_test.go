package refcount

import (
	"sync"
	"testing"
)

// TestCount: the last Release of many concurrent holders is the one and
// only that reports true, and nothing is retained after it.
func TestCount(t *testing.T) {
	var c Count
	if c.Retain() {
		t.Fatal("the zero Count was retained")
	}
	c.Init()
	const holders = 64
	for range holders - 1 {
		if !c.Retain() {
			t.Fatal("Retain failed while held")
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	last := 0
	for range holders {
		wg.Go(func() {
			if c.Release() {
				mu.Lock()
				last++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if last != 1 {
		t.Fatalf("%d releases reported the last, want 1", last)
	}
	if c.Retain() {
		t.Fatal("retained after the last Release")
	}
}
