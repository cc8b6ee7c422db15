package lograte

import (
	"bytes"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestLimiter: 600 refusals in a burst write the burst's lines; the rest
// are counted, and the next line let through says how many it follows.
func TestLimiter(t *testing.T) {
	var buf harness.SyncBuffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	var drops atomic.Int64
	l := New(5, 50*time.Millisecond, func() { drops.Add(1) })
	var wg sync.WaitGroup
	var written atomic.Int64
	for range 600 {
		wg.Go(func() {
			if l.Warn(log, "refused", "remote", "192.0.2.1:1") {
				written.Add(1)
			}
		})
	}
	wg.Wait()
	if w := written.Load(); w < 5 || w > 7 || w+drops.Load() != 600 {
		t.Fatalf("written %d, dropped %d: want 5 (or a refill more) written, the rest dropped", w, drops.Load())
	}
	time.Sleep(60 * time.Millisecond)
	if !l.Warn(log, "refused again") {
		t.Fatal("no line after the interval")
	}
	out := buf.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "suppressed=") {
		t.Errorf("last line %q does not say how many it follows", last)
	}
	// Every line left out is counted once, by the next line written: a
	// burst that outlasts the interval (a loaded machine) lets a line
	// through in the middle, which counts the ones before it.
	var counted int64
	for _, line := range lines {
		if _, n, ok := strings.Cut(line, "suppressed="); ok {
			v, err := strconv.ParseInt(strings.Fields(n)[0], 10, 64)
			if err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			counted += v
		}
	}
	if counted != drops.Load() {
		t.Errorf("the lines count %d suppressed, %d were dropped:\n%s", counted, drops.Load(), out)
	}
	if strings.Contains(lines[0], "suppressed") {
		t.Errorf("first line %q claims suppressed lines", lines[0])
	}
	var nilL *Limiter
	if !nilL.Warn(log, "unlimited") {
		t.Error("a nil Limiter dropped a line")
	}
	quiet := slog.New(slog.NewTextHandler(&bytes.Buffer{}, &slog.HandlerOptions{Level: slog.LevelError}))
	if l.Warn(quiet, "below the level") {
		t.Error("a line below the logger's level counts as written")
	}
}

// TestOnePerInterval: New(1, every) is what the once-a-minute warnings
// use: the first line, none within every, then one that counts the
// lines left out.
func TestOnePerInterval(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	var drops int
	l := New(1, 100*time.Millisecond, func() { drops++ })
	if !l.Warn(log, "cap reached") {
		t.Fatal("the first line was dropped")
	}
	for range 3 {
		if l.Warn(log, "cap reached") {
			t.Fatal("a second line within the interval was written")
		}
	}
	time.Sleep(110 * time.Millisecond)
	if !l.Warn(log, "cap reached") {
		t.Fatal("no line after the interval")
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || drops != 3 || !strings.HasSuffix(lines[1], "suppressed=3") {
		t.Fatalf("drops %d, lines %q: want 2 lines, the second with suppressed=3", drops, lines)
	}
}
