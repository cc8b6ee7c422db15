package main

import (
	"os"
	"testing"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestGCHeapFloor: without GOGC, serve raises the collector's GOGC while
// the heap is small (internal/gcfloor), as /metrics shows; an operator's
// GOGC is kept as given.
func TestGCHeapFloor(t *testing.T) {
	t.Parallel()
	if v, ok := os.LookupEnv("GOGC"); ok {
		t.Skipf("GOGC=%s is set for the tests, and the gateways inherit it", v)
	}
	// No plugins: their linear memories alone are a heap of tens of MiB,
	// on which GOGC stays 100.
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{}))
	gogc := func(g *harness.Gateway) float64 {
		v, ok := g.Scrape(t).Value("go_gc_gogc_percent", nil)
		if !ok {
			t.Fatal("go_gc_gogc_percent is missing from /metrics")
		}
		return v
	}
	if p := gogc(bins.Start(t, harness.Options{Config: cfg})); p <= 100 {
		t.Errorf("without GOGC: go_gc_gogc_percent %v, want above 100 on a small heap", p)
	}
	if p := gogc(bins.Start(t, harness.Options{Config: cfg, Env: []string{"GOGC=150"}})); p != 150 {
		t.Errorf("with GOGC=150: go_gc_gogc_percent %v, want 150", p)
	}
}
