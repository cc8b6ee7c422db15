package ops

import (
	"log/slog"
	"math"
	"testing"
	"time"
)

// TestLatencyQuantiles: quantiles from the buckets are within a bucket
// (19%) of the exact ones, for a spread of durations.
func TestLatencyQuantiles(t *testing.T) {
	var h latencyHist
	var ds []time.Duration
	for i := 1; i <= 1000; i++ {
		d := time.Duration(i) * 100 * time.Microsecond // 0.1 ms .. 100 ms, uniform
		ds = append(ds, d)
		h[latBucket(d)]++
	}
	for _, q := range []float64{.5, .95, .99} {
		exact := float64(ds[int(q*float64(len(ds)))-1]) / float64(time.Millisecond)
		got := h.quantile(q)
		if math.Abs(got-exact)/exact > 0.19 {
			t.Errorf("q%.2f = %.3f ms, exact %.3f ms", q, got, exact)
		}
	}
	var empty latencyHist
	if empty.quantile(.5) != 0 {
		t.Errorf("empty quantile = %v", empty.quantile(.5))
	}
	if b := latBucket(time.Hour); b != latBuckets-1 {
		t.Errorf("an hour in bucket %d, want the last", b)
	}
	if b := latBucket(0); b != 0 {
		t.Errorf("0 in bucket %d", b)
	}
	for _, d := range []time.Duration{11 * time.Microsecond, time.Millisecond, 3 * time.Second} {
		i := latBucket(d)
		if ms := float64(d) / float64(time.Millisecond); ms > latUpper(i)*1.0000001 || ms <= latUpper(i-1)*0.9999999 {
			t.Errorf("%v in bucket %d (%.4f, %.4f]", d, i, latUpper(i-1), latUpper(i))
		}
	}
}

// TestTrackerQuantiles: the tracker reports p50/p95/p99 per call name
// over the recent window only.
func TestTrackerQuantiles(t *testing.T) {
	s := NewTracker(slog.New(slog.DiscardHandler))
	now := time.Now()
	old := now.Add(-10 * time.Minute)
	for range 100 {
		s.record("default", "tool", "slow", "p", "ok", 2*time.Second, "", old) // outside the window
	}
	for i := range 100 {
		s.record("default", "tool", "slow", "p", "ok", time.Duration(i+1)*time.Millisecond, "", now)
		s.record("default", "tool", "fast", "p", "ok", 50*time.Microsecond, "", now)
	}
	byName := map[string]CallStats{}
	for _, c := range s.snapshotCalls(now) {
		byName[c.Name] = c
	}
	slow, fast := byName["slow"], byName["fast"]
	if slow.Recent != 100 || slow.Total != 200 {
		t.Fatalf("slow: recent %d total %d", slow.Recent, slow.Total)
	}
	near := func(got, want float64) bool { return math.Abs(got-want)/want < 0.19 }
	if !near(slow.P50MS, 50) || !near(slow.P95MS, 95) || !near(slow.P99MS, 99) {
		t.Errorf("slow p50/p95/p99 = %.2f/%.2f/%.2f ms, want about 50/95/99", slow.P50MS, slow.P95MS, slow.P99MS)
	}
	if fast.P99MS > 0.06 || fast.P50MS < 0.04 {
		t.Errorf("fast p50/p99 = %.3f/%.3f ms, want about 0.05", fast.P50MS, fast.P99MS)
	}
}
