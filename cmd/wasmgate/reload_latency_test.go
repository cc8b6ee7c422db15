package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestSaveToVisibleLatency measures, without asserting, how long a saved
// edit takes to show in tools/list (the watcher's 50 ms debounce
// included), median over 20 edits each:
//
//   - an edit that changes no module (toggling calculator's prefix),
//     saved by rename and in place;
//   - a changed 3 MB module never seen before (first compile);
//   - a changed 3 MB module whose bytes were compiled before (warm
//     compilation cache);
//
// and, for the record, restart-to-ready with a warm cache and the three
// examples. It runs only with WASMGATE_RELOAD_BENCH=1; run it without
// -race for meaningful numbers:
//
//	WASMGATE_RELOAD_BENCH=1 go test -count=1 -run SaveToVisible ./cmd/wasmgate/ -v
func TestSaveToVisibleLatency(t *testing.T) {
	// Not parallel: a measurement (WASMGATE_RELOAD_BENCH), meaningful only alone.
	if os.Getenv("WASMGATE_RELOAD_BENCH") != "1" {
		t.Skip("a measurement, not a test: set WASMGATE_RELOAD_BENCH=1 to run it")
	}
	const edits = 20
	build := "plain binary"
	if harness.RaceEnabled {
		build = "-race binary (numbers ~5-10x slower than production)"
	}
	var report []string
	record := func(what string, d []time.Duration) {
		line := fmt.Sprintf("%-62s %s", what+":", latencyStats(d))
		report = append(report, line)
		t.Log(line)
	}

	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	mod := e.Module("mod", "examples/plugins/greeter")
	cfg := func(prefix string) []byte {
		return []byte(e.YAML("",
			harness.Item("name: calculator", "path: "+harness.Q(calc), "prefix: "+prefix),
			harness.Item("name: mod", "path: "+harness.Q(mod))))
	}
	harness.WriteFile(t, e.Config, cfg("p0"))
	g := bins.Start(t, harness.Options{Config: e.Config})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, 10*time.Minute)
	harness.WaitTools(ctx, t, c, visible, "p0_calculate", "say_hello")

	// No module changes: toggle the prefix.
	for _, style := range []struct {
		name string
		save func(path string, data []byte)
	}{
		{"rename", func(p string, d []byte) { harness.RenameOver(t, p, d) }},
		{"in place", func(p string, d []byte) { harness.WriteFile(t, p, d) }},
	} {
		var d []time.Duration
		for i := 1; i <= edits; i++ {
			prefix := fmt.Sprintf("%s%d", style.name[:1], i)
			d = append(d, timeVisible(ctx, t, c, prefix+"_calculate", func() { style.save(e.Config, cfg(prefix)) }))
		}
		record("no module changed (prefix toggled), saved "+style.name, d)
	}

	// A changed module: mod.wasm alternates between calculator and
	// greeter, each time with a custom section holding a fresh nonce, so
	// that its bytes (and SHA-256) were never seen: a first compile.
	fixtures := [2][]byte{harness.ReadFixture(t, "examples/plugins/calculator"), harness.ReadFixture(t, "examples/plugins/greeter")}
	tool := [2]string{"calculate", "say_hello"}
	var variants [][]byte
	var d []time.Duration
	for i := 0; i < edits; i++ {
		v := withNonce(t, fixtures[i%2])
		variants = append(variants, v)
		d = append(d, timeVisible(ctx, t, c, tool[i%2], func() { harness.RenameOver(t, mod, v) }))
	}
	record(fmt.Sprintf("changed %.1f MB module, first compile", float64(len(variants[0]))/1e6), d)

	// The same bytes again: compiled before, so the cache serves them.
	d = d[:0]
	for i, v := range variants {
		d = append(d, timeVisible(ctx, t, c, tool[i%2], func() { harness.RenameOver(t, mod, v) }))
	}
	record(fmt.Sprintf("changed %.1f MB module, warm compilation cache", float64(len(variants[0]))/1e6), d)

	// Restart to ready with a warm cache, the three examples.
	ex := bins.NewDir(t)
	harness.WriteFile(t, ex.Config, []byte(ex.YAML(harness.NoWatch,
		harness.Item("name: calculator", "path: "+harness.Q(ex.Module("calculator", "examples/plugins/calculator"))),
		harness.Item("name: storage", "path: "+harness.Q(ex.Module("storage", "examples/plugins/storage"))),
		harness.Item("name: greeter", "path: "+harness.Q(ex.Module("greeter", "examples/plugins/greeter"))))))
	d = d[:0]
	var logged []time.Duration
	for range 7 {
		start := time.Now()
		rg := bins.Start(t, harness.Options{Config: ex.Config})
		d = append(d, time.Since(start))
		if m := readyTookRE.FindStringSubmatch(rg.Stderr()); m != nil {
			if v, err := time.ParseDuration(m[1]); err == nil {
				logged = append(logged, v)
			}
		}
		if err := rg.Stop(t); err != nil {
			t.Errorf("stop: %v", err)
		}
	}
	record("restart to ready, 3 examples, warm cache (exec to ready line)", d)
	record("restart to ready, as logged by wasmgate (\"ready took=\")", logged)

	t.Logf("save-to-visible latency, %s, %d edits each (median, min, p90, max):\n%s", build, edits, strings.Join(report, "\n"))
}

var readyTookRE = regexp.MustCompile(`msg="wasmgate ready" took=(\S+)`)

// timeVisible runs save and returns how long until tools/list on c
// contains want.
func timeVisible(ctx context.Context, t testing.TB, c *client.Client, want string, save func()) time.Duration {
	t.Helper()
	start := time.Now()
	save()
	deadline := start.Add(2 * time.Minute)
	for {
		names, err := harness.ToolsErr(ctx, c)
		if err == nil && slices.Contains(names, want) {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not in tools/list 2 minutes after the save (last: %v, %v)", want, names, err)
		}
		time.Sleep(time.Millisecond)
	}
}

// withNonce returns module with a custom section appended holding a random
// nonce: the same code, different bytes.
func withNonce(t testing.TB, module []byte) []byte {
	t.Helper()
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		t.Fatal(err)
	}
	name := "wasmgate-test-nonce"
	payload := append(uleb128(len(name)), name...)
	payload = append(payload, hex.EncodeToString(nonce)...)
	out := slices.Clip(module)
	out = append(out, 0) // custom section id
	out = append(out, uleb128(len(payload))...)
	return append(out, payload...)
}

func uleb128(n int) []byte {
	var b []byte
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

// latencyStats is "median X (min, p90, max)" of d.
func latencyStats(d []time.Duration) string {
	if len(d) == 0 {
		return "no samples"
	}
	s := slices.Clone(d)
	slices.Sort(s)
	r := func(x time.Duration) string {
		if x < 10*time.Millisecond {
			return x.Round(10 * time.Microsecond).String()
		}
		return x.Round(time.Millisecond).String()
	}
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf("median %8s   (min %s, p90 %s, max %s, n=%d)",
		r(med), r(s[0]), r(s[min(len(s)-1, len(s)*9/10)]), r(s[len(s)-1]), len(s))
}
