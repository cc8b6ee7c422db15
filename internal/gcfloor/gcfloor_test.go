package gcfloor

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		floor, live uint64
		want        int
	}{
		{32 * mib, 4 * mib, 700},
		{32 * mib, 16 * mib, 100}, // at half the floor, Go's default reaches it
		{32 * mib, 64 * mib, 100},
		{32 * mib, 0, 5000},
		{32 * mib, 1024, 5000},
	} {
		if got := Percent(c.floor, c.live); got != c.want {
			t.Errorf("Percent(%d, %d) = %d, want %d", c.floor, c.live, got, c.want)
		}
	}
}

// gogc is the collector's GOGC as the runtime reports it.
func gogc() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// waitGOGC collects until GOGC satisfies ok, for at most 5 s.
func waitGOGC(t *testing.T, what string, ok func(uint64) bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		runtime.GC()
		if ok(gogc()) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GOGC %d: %s", gogc(), what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFloor runs the real collector: a small heap gets a GOGC above 100,
// a heap past the floor gets 100 back after its next collection, and stop
// leaves 100.
func TestFloor(t *testing.T) {
	if gogc() != 100 {
		t.Skipf("GOGC is %d here, not Go's default", gogc())
	}
	const floorBytes = 256 << 20
	stop := Start(floorBytes)
	defer stop()
	waitGOGC(t, "want above 100 on a small heap", func(p uint64) bool { return p > 100 })

	big := make([]*[1 << 20]byte, 200) // 200 MiB live, past half the floor
	for i := range big {
		big[i] = new([1 << 20]byte)
	}
	waitGOGC(t, "want 100 with 200 MiB live", func(p uint64) bool { return p == 100 })
	runtime.KeepAlive(big)

	waitGOGC(t, "want above 100 once the heap is small again", func(p uint64) bool { return p > 100 })
	stop()
	if p := gogc(); p != 100 {
		t.Fatalf("GOGC %d after stop, want 100", p)
	}
	runtime.GC()
	runtime.GC()
	if p := gogc(); p != 100 {
		t.Fatalf("GOGC %d after stop and two collections, want 100", p)
	}
}
