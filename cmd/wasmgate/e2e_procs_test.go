package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// gomaxprocs is the gateway's GOMAXPROCS as /metrics shows it.
func gomaxprocs(t *testing.T, g *harness.Gateway) float64 {
	t.Helper()
	v, ok := g.Scrape(t).Value("go_sched_gomaxprocs_threads", nil)
	if !ok {
		t.Fatal("go_sched_gomaxprocs_threads is missing from /metrics")
	}
	return v
}

// TestProcsGovernor: without GOMAXPROCS, serve runs on one P once HTTP
// requests have come one at a time for a second (internal/procs), and on
// all of them again as soon as two overlap; the overlapping calls
// answer as usual. An operator's GOMAXPROCS is kept as given.
func TestProcsGovernor(t *testing.T) {
	t.Parallel()
	if v, ok := os.LookupEnv("GOMAXPROCS"); ok {
		t.Skipf("GOMAXPROCS=%s is set for the tests, and the gateways inherit it", v)
	}
	cfg := sleeperConfig(t)
	g := bins.Start(t, harness.Options{Config: cfg})
	def := gomaxprocs(t, g)
	if def < 2 {
		t.Skipf("the gateway's default GOMAXPROCS is %v here: nothing to govern", def)
	}
	ctx := harness.Ctx(t, 60*time.Second)
	c := g.SessionClient(t)
	solo := func() {
		if text, isErr := harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": "add", "a": 5, "b": 3}); isErr || text != "8" {
			t.Fatalf("calculate: %q (isError %v), want 8", text, isErr)
		}
	}
	if !harness.WaitFor(20*time.Second, func() bool { solo(); return gomaxprocs(t, g) == 1 }) {
		t.Fatalf("GOMAXPROCS %v after calls one at a time for 20 s, want 1", gomaxprocs(t, g))
	}

	// A call while another runs: the default Ps again.
	done := sleepCall(t, g, g.SessionClient(t))
	solo()
	if p := gomaxprocs(t, g); p != def {
		t.Errorf("GOMAXPROCS %v after a call that overlapped another, want %v", p, def)
	}
	select {
	case r := <-done:
		if r.err != nil || r.isErr || r.text != "slept 1500ms" {
			t.Errorf("the sleep call the other overlapped ended with %q (isError %v, err %v), want %q", r.text, r.isErr, r.err, "slept 1500ms")
		}
	case <-ctx.Done():
		t.Fatal("the sleep call the other overlapped never returned")
	}

	// A plugin that loops forever, alone on one P, neither keeps a call
	// from another session from being served (it gets every P again) nor
	// escapes its timeout.
	g3 := bins.Start(t, harness.Options{Config: hostileConfig(t, "2s")})
	c = g3.SessionClient(t)
	if !harness.WaitFor(20*time.Second, func() bool { solo(); return gomaxprocs(t, g3) == 1 }) {
		t.Fatalf("GOMAXPROCS %v after calls one at a time for 20 s, want 1", gomaxprocs(t, g3))
	}
	spun := hostileCall(t, g3, c, "spin", map[string]any{})
	c = g3.SessionClient(t)
	solo()
	if p := gomaxprocs(t, g3); p != def {
		t.Errorf("GOMAXPROCS %v after a call beside a spinning plugin, want %v", p, def)
	}
	select {
	case r := <-spun:
		if r.err != nil || !r.isErr || !strings.Contains(r.text, "timed out after 2s") {
			t.Errorf("the spin call ended with %q (isError %v, err %v), want its timeout", r.text, r.isErr, r.err)
		}
	case <-ctx.Done():
		t.Fatal("the spin call never returned")
	}

	// With GOMAXPROCS set, calls one at a time leave it alone (for three
	// times the governor's hold).
	g2 := bins.Start(t, harness.Options{Config: cfg, Env: []string{"GOMAXPROCS=2"}})
	c2 := g2.SessionClient(t)
	for end := time.Now().Add(3 * procsHold); time.Now().Before(end); {
		if text, isErr := harness.CallTool(ctx, t, c2, "calculate", map[string]any{"operation": "add", "a": 5, "b": 3}); isErr || text != "8" {
			t.Fatalf("calculate with GOMAXPROCS=2: %q (isError %v), want 8", text, isErr)
		}
	}
	if p := gomaxprocs(t, g2); p != 2 {
		t.Errorf("with GOMAXPROCS=2: go_sched_gomaxprocs_threads %v, want 2", p)
	}
}

// TestProcsGovernorNotWithStdio: with the stdio transport on, calls one
// at a time (over HTTP and stdio) leave GOMAXPROCS at Go's default: a
// read of a blocking stdin would hold the one P.
func TestProcsGovernorNotWithStdio(t *testing.T) {
	t.Parallel()
	if v, ok := os.LookupEnv("GOMAXPROCS"); ok {
		t.Skipf("GOMAXPROCS=%s is set for the tests, and the gateways inherit it", v)
	}
	g := bins.Start(t, harness.Options{Config: sleeperConfig(t), Stdio: true})
	def := gomaxprocs(t, g)
	if def < 2 {
		t.Skipf("the gateway's default GOMAXPROCS is %v here: nothing to govern", def)
	}
	ctx := harness.Ctx(t, 60*time.Second)
	overHTTP, overStdio := g.SessionClient(t), g.StdioClient(t)
	for end := time.Now().Add(3 * procsHold); time.Now().Before(end); {
		for _, c := range []*client.Client{overHTTP, overStdio} {
			if text, isErr := harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": "add", "a": 5, "b": 3}); isErr || text != "8" {
				t.Fatalf("calculate: %q (isError %v), want 8", text, isErr)
			}
		}
	}
	if p := gomaxprocs(t, g); p != def {
		t.Errorf("with the stdio transport: go_sched_gomaxprocs_threads %v after calls one at a time, want %v", p, def)
	}
}
