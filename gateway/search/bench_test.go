package search

import (
	"runtime"
	"slices"
	"testing"
	"time"
)

// BenchmarkSearch10k times a search of the synthetic 10,000-tool catalog
// (limit 8, no filter) over varied queries, and reports the median of
// 2,000 individually timed searches as p50-ns.
func BenchmarkSearch10k(b *testing.B) {
	x := Build(Synthetic(10_000, 1))
	qs := SyntheticQueries(2_000, 2)

	lat := make([]time.Duration, len(qs))
	for i, q := range qs {
		start := time.Now()
		x.Search(q, 8, nil)
		lat[i] = time.Since(start)
	}
	slices.Sort(lat)

	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		x.Search(qs[i%len(qs)], 8, nil)
		i++
	}
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkSearch10kFiltered is BenchmarkSearch10k with an allow function
// that refuses two docs in three, as a narrow policy would.
func BenchmarkSearch10kFiltered(b *testing.B) {
	x := Build(Synthetic(10_000, 1))
	qs := SyntheticQueries(2_000, 2)
	allow := func(d int) bool { return d%3 == 0 }
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		x.Search(qs[i%len(qs)], 8, allow)
		i++
	}
}

// BenchmarkBuild10k times indexing the synthetic 10,000-tool catalog and
// reports the index's heap (live bytes after a GC, less the docs
// themselves) as index-MiB and its own estimate, Size, as size-MiB.
func BenchmarkBuild10k(b *testing.B) {
	docs := Synthetic(10_000, 1)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	x := Build(docs)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heap := float64(ms.HeapAlloc) - float64(before)
	size := x.Size()
	runtime.KeepAlive(x)

	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Build(docs)
	}
	b.ReportMetric(heap/(1<<20), "index-MiB")
	b.ReportMetric(float64(size)/(1<<20), "size-MiB")
}
