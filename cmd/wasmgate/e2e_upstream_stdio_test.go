package main

// Issue 39: a stdio upstream whose pipes misbehave. One that stops
// reading its stdin while calls with large arguments fill the pipe
// (finding 7); one that writes a stderr line longer than 64 KiB (LOW).

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// stallingGateway serves testdata/upstreams/stalling as the upstream
// "stalls" with limits, and a session client of it.
func stallingGateway(t *testing.T, limits string) *harness.Gateway {
	t.Helper()
	bin := bins.GoFixture(t, "testdata/upstreams/stalling")
	cfg := harness.WriteConfig(t, upstreamYAML(t, fmt.Sprintf(`  - name: stalls
    command: [%q]
    limits: {%s}
`, bin, limits)))
	return bins.Start(t, harness.Options{Config: cfg})
}

// TestUpstreamStalledStdin performs finding 7: the server stops reading
// its stdin, then calls with 100 KiB arguments fill the pipe. Each call
// returns within its limits.timeout (plus slack) saying that the server
// is not reading its stdin (or stopped reading it: restarting it), the
// server is restarted (counted with reason
// stdin_stalled) and later calls succeed.
func TestUpstreamStalledStdin(t *testing.T) {
	// Not parallel: it bounds how long each call takes (its limits.timeout + 2s).
	const timeout = 2 * time.Second
	g := stallingGateway(t, "timeout: 2s, concurrency: 8")
	ctx := harness.Ctx(t, 90*time.Second)
	c := g.SessionClient(t)
	if text, isErr := harness.CallTool(ctx, t, c, "stop_reading", nil); isErr || text != "not reading any more" {
		t.Fatalf("stop_reading = %q (isError %v)", text, isErr)
	}
	big := strings.Repeat("a", 100<<10)
	const n = 4
	type answer struct {
		text  string
		isErr bool
		err   error
		took  time.Duration
	}
	answers := make([]answer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			callCtx, cancel := context.WithTimeout(ctx, 20*time.Second) // unfixed, they took much longer
			defer cancel()
			res, err := harness.CallToolErr(callCtx, c, "echo", map[string]any{"text": big})
			a := answer{err: err, took: time.Since(start)}
			if err == nil {
				a.text, a.isErr = harness.ResultText(res), res.IsError
			}
			answers[i] = a
		}()
		time.Sleep(50 * time.Millisecond) // one after the other: later ones queue behind the first
	}
	wg.Wait()
	for i, a := range answers {
		t.Logf("call %d: %v, %q (isError %v, err %v)", i, a.took, a.text, a.isErr, a.err)
		if a.err != nil || !a.isErr {
			t.Errorf("call %d with 100 KiB to a server not reading its stdin: err %v, isError %v, want an isError result", i, a.err, a.isErr)
			continue
		}
		if a.took > timeout+2*time.Second {
			t.Errorf("call %d took %v, past its limits.timeout %v (+2s)", i, a.took, timeout)
		}
		// The first call's own deadline comes as the server is found
		// stalled (it read nothing for limits.timeout): either says so.
		if !strings.Contains(a.text, `upstream "stalls"`) || !strings.Contains(a.text, "reading its stdin") {
			t.Errorf("call %d = %q, want it to name the upstream and say it is not reading its stdin", i, a.text)
		}
	}
	if !harness.WaitFor(20*time.Second, func() bool {
		return g.Scrape(t).Sum("wasmgate_upstream_restarts_total", map[string]string{"upstream": "stalls", "reason": "stdin_stalled"}) >= 1
	}) {
		t.Fatalf("wasmgate_upstream_restarts_total{upstream=stalls,reason=stdin_stalled} never counted the restart:\n%s", g.Stderr())
	}
	if _, ok := g.WaitLog(0, "stopped reading its stdin", 5*time.Second); !ok {
		t.Errorf("the log does not say the server stopped reading its stdin:\n%s", g.Stderr())
	}
	if !harness.WaitFor(20*time.Second, func() bool {
		res, err := harness.CallToolErr(ctx, c, "echo", map[string]any{"text": big})
		return err == nil && !res.IsError && harness.ResultText(res) == fmt.Sprintf("got %d bytes", len(big))
	}) {
		t.Fatalf("calls after the restart do not succeed:\n%s", g.Stderr())
	}
}

// TestUpstreamLongStderrLine: a stderr line of 200 KiB is logged
// truncated, saying how many bytes were dropped, and the server's next
// stderr line is still logged.
func TestUpstreamLongStderrLine(t *testing.T) {
	t.Parallel()
	g := stallingGateway(t, "timeout: 10s")
	ctx := harness.Ctx(t, 60*time.Second)
	c := g.SessionClient(t)
	if text, isErr := harness.CallTool(ctx, t, c, "stderr", map[string]any{"bytes": 200 << 10}); isErr || text != "written" {
		t.Fatalf("stderr = %q (isError %v)", text, isErr)
	}
	if _, ok := g.WaitLog(0, "stalling: the line after the long one", 10*time.Second); !ok {
		t.Fatalf("the stderr line after a 200 KiB one was not logged:\n%.2000s", g.Stderr())
	}
	line, ok := g.WaitLog(0, "xxxxxxxx", time.Second)
	if !ok || !strings.Contains(line, "dropped") || len(line) > 100<<10 {
		t.Fatalf("the 200 KiB line was not logged truncated with the bytes dropped (%d bytes logged): %.300s", len(line), line)
	}
}
