package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestReloadNoLeak reloads 200 times between two configurations that
// differ by a plugin (so every reload builds or drops a pool and retires a
// snapshot; one in ten fails after building a pool), with a session
// listening for notifications and calls after each reload, and checks that goroutines, WebAssembly instances and open
// file descriptors do not grow: the state after 200 reloads is compared
// with the state after a warm-up of 20.
func TestReloadNoLeak(t *testing.T) {
	t.Parallel()
	const warmup, total = 20, 200
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	greeter := e.Module("greeter", "examples/plugins/greeter")
	with := []byte(e.YAML(harness.NoWatch,
		harness.Item("name: calculator", "path: "+harness.Q(calc)),
		harness.Item("name: greeter", "path: "+harness.Q(greeter))))
	without := []byte(e.YAML(harness.NoWatch, harness.Item("name: calculator", "path: "+harness.Q(calc))))
	// Fails after building greeter's pool: that pool must be released.
	broken := []byte(e.YAML(harness.NoWatch,
		harness.Item("name: calculator", "path: "+harness.Q(calc)),
		harness.Item("name: greeter", "path: "+harness.Q(greeter), "config: {greeting: Hi}"),
		harness.Item("name: badinfo", "path: "+harness.Q(e.Module("badinfo", "testdata/plugins/badinfo")))))
	harness.WriteFile(t, e.Config, with)
	g := bins.Start(t, harness.Options{Config: e.Config, Plain: true}) // see harness.Options.Plain for why not -race
	c := g.SessionClient(t, transport.WithContinuousListening())
	notes := harness.CountNotes(c)
	ctx := harness.Ctx(t, 4*time.Minute)

	type sample struct{ goroutines, instances, fds, rss float64 }
	measure := func() sample {
		// Retired snapshots close in the background once drained: let
		// them, then take the lowest of a few readings (the HTTP server
		// and the scrape itself come and go).
		var best sample
		for i := range 5 {
			time.Sleep(100 * time.Millisecond)
			m := g.Scrape(t)
			var s sample
			s.goroutines, _ = m.Value("go_goroutines", nil)
			s.fds, _ = m.Value("process_open_fds", nil)
			s.rss, _ = m.Value("process_resident_memory_bytes", nil)
			s.instances = m.Sum("wasmgate_plugin_instances", nil)
			if i == 0 || s.goroutines+s.fds+s.instances < best.goroutines+best.fds+best.instances {
				best = s
			}
		}
		return best
	}

	var warm sample
	serving, changes := true, 0 // greeter served; reloads that changed the tool list
	start := time.Now()
	for i := 1; i <= total; i++ {
		next := i%2 == 0
		data := without
		if next {
			data = with
		}
		if i%10 == 5 {
			// One reload in ten fails (badinfo's information export
			// traps), after greeter was built for it.
			harness.WriteFile(t, e.Config, broken)
			if code, body := g.PostReload(t); code != http.StatusInternalServerError {
				t.Fatalf("reload %d: POST /-/reload of a broken config: %d %s", i, code, body)
			}
			next = serving
		} else {
			harness.WriteFile(t, e.Config, data)
			if code, body := g.PostReload(t); code != http.StatusOK {
				t.Fatalf("reload %d: POST /-/reload: %d %s", i, code, body)
			}
		}
		if next != serving {
			changes++
		}
		serving = next
		harness.Calc(ctx, t, c, i, i)
		if serving {
			if text, isErr := harness.CallTool(ctx, t, c, "say_hello", map[string]any{"name": "Ada"}); isErr || text != "Hello, Ada!" {
				t.Fatalf("reload %d: say_hello = %q (isError %v)", i, text, isErr)
			}
		}
		if i == warmup {
			warm = measure()
		}
	}
	took := time.Since(start)
	end := measure()
	t.Logf("%d reloads in %v (%v each)", total, took.Round(time.Millisecond), (took / total).Round(time.Millisecond))
	for _, x := range []struct {
		n int
		s sample
	}{{warmup, warm}, {total, end}} {
		t.Logf("after %3d reloads: %.0f goroutines, %.0f instances, %.0f open fds, RSS %.0f MiB",
			x.n, x.s.goroutines, x.s.instances, x.s.fds, x.s.rss/(1<<20))
	}
	if end.goroutines > warm.goroutines+20 {
		t.Errorf("goroutines grew from %.0f to %.0f over %d reloads", warm.goroutines, end.goroutines, total-warmup)
	}
	if end.instances > warm.instances+2 {
		t.Errorf("wasmgate_plugin_instances grew from %.0f to %.0f over %d reloads", warm.instances, end.instances, total-warmup)
	}
	if end.fds > warm.fds+10 {
		t.Errorf("open file descriptors grew from %.0f to %.0f over %d reloads", warm.fds, end.fds, total-warmup)
	}
	if !harness.WaitFor(5*time.Second, func() bool { return notes.Lists()[0] == changes }) {
		t.Errorf("the listening session got %d tools/list_changed, want %d (one per reload that changed the list)", notes.Lists()[0], changes)
	}
}
