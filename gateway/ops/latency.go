package ops

import (
	"math"
	"time"
)

// Latency quantiles for the status page. The tracker keeps, per call
// name and per minute of the recent window, a histogram of durations in
// log-spaced buckets, four per doubling (each bucket's upper bound is
// 2^(1/4), about 19%, above its lower one): a fixed 96 counters a minute
// however many calls there are. p50, p95 and p99 over the window
// interpolate linearly inside the bucket the rank falls in, as
// Prometheus's histogram_quantile does with the buckets of
// wasmgate_tool_call_duration_seconds; these buckets are finer than the
// metric's (a factor 2 to 2.5 apart), so the page is within about 10%,
// and windowed (the metric is cumulative since the start).
const (
	latMin       = 10 * time.Microsecond // bucket 0 is [0, latMin]
	latPerOctave = 4
	latBuckets   = 96 // up to latMin * 2^(95/4), about 140 s; the last one also holds what is slower
)

// latencyHist counts durations by bucket.
type latencyHist [latBuckets]uint32

// latBucket is the bucket of d: the first whose upper bound is >= d.
func latBucket(d time.Duration) int {
	if d <= latMin {
		return 0
	}
	i := int(math.Ceil(math.Log2(float64(d)/float64(latMin)) * latPerOctave))
	return min(max(i, 1), latBuckets-1)
}

// latUpper is bucket i's upper bound in milliseconds.
func latUpper(i int) float64 {
	return float64(latMin) / float64(time.Millisecond) * math.Exp2(float64(i)/latPerOctave)
}

// add counts h2 into h.
func (h *latencyHist) add(h2 *latencyHist) {
	for i, n := range h2 {
		h[i] += n
	}
}

// quantile is the q-quantile (0 < q <= 1) of h in milliseconds, 0 when
// h is empty.
func (h *latencyHist) quantile(q float64) float64 {
	var total uint64
	for _, n := range h {
		total += uint64(n)
	}
	if total == 0 {
		return 0
	}
	rank := q * float64(total)
	var seen uint64
	for i, n := range h {
		if n == 0 {
			continue
		}
		if float64(seen+uint64(n)) >= rank {
			lo := 0.0
			if i > 0 {
				lo = latUpper(i - 1)
			}
			hi := latUpper(i)
			return lo + (hi-lo)*(rank-float64(seen))/float64(n)
		}
		seen += uint64(n)
	}
	return latUpper(latBuckets - 1)
}
