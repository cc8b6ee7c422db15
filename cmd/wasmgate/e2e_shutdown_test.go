package main

// Graceful shutdown: SIGTERM lets a running call finish and the process
// exit 0; over stdio, closing stdin ends the process with status 0.

import (
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/wasmgate/wasmgate/internal/harness"
)

func sleeperConfig(t *testing.T) string { return hostileConfig(t, "10s") }

// hostileConfig is a config file serving the calculator example and the
// hostile plugin, whose calls time out after timeout.
func hostileConfig(t *testing.T, timeout string) string {
	return harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: fmt.Sprintf(`  - name: calculator
    path: %s
  - name: hostile
    path: %s
    limits: {timeout: %s}
`, harness.Wasm(t, "examples/plugins/calculator"), harness.Wasm(t, "testdata/plugins/hostile"), timeout)}))
}

// inFlight is wasmgate_tool_calls_in_flight{source}.
func inFlight(t *testing.T, g *harness.Gateway, source string) float64 {
	v, _ := g.Scrape(t).Value("wasmgate_tool_calls_in_flight", map[string]string{"source": source})
	return v
}

type callResult struct {
	text  string
	isErr bool
	err   error
}

// sleepCall starts a 1500ms sleep call on c and waits until the gateway
// reports it running.
func sleepCall(t *testing.T, g *harness.Gateway, c *client.Client) <-chan callResult {
	t.Helper()
	return hostileCall(t, g, c, "sleep", map[string]any{"ms": 1500})
}

// hostileCall starts a call of the hostile plugin's tool on c and waits
// until the gateway reports it running.
func hostileCall(t *testing.T, g *harness.Gateway, c *client.Client, tool string, args map[string]any) <-chan callResult {
	t.Helper()
	ctx := harness.Ctx(t, 60*time.Second)
	done := make(chan callResult, 1)
	go func() {
		res, err := harness.CallToolErr(ctx, c, tool, args)
		if err != nil {
			done <- callResult{err: err}
			return
		}
		done <- callResult{text: harness.ResultText(res), isErr: res.IsError}
	}()
	if !harness.WaitFor(10*time.Second, func() bool { return inFlight(t, g, "hostile") == 1 }) {
		t.Fatalf("the %s call never showed up in wasmgate_tool_calls_in_flight", tool)
	}
	return done
}

func checkSlept(t *testing.T, done <-chan callResult) {
	t.Helper()
	select {
	case r := <-done:
		if r.err != nil || r.isErr || r.text != "slept 1500ms" {
			t.Errorf("the call running at SIGTERM ended with %q (isError %v, err %v), want its normal result %q", r.text, r.isErr, r.err, "slept 1500ms")
		}
	case <-time.After(20 * time.Second):
		t.Errorf("the call running at SIGTERM never returned")
	}
}

func checkExit0(t *testing.T, g *harness.Gateway, within time.Duration) {
	t.Helper()
	err, exited := g.Wait(within)
	if !exited {
		t.Fatalf("wasmgate still running %v after SIGTERM", within)
	}
	if err != nil {
		t.Errorf("wasmgate exited with %v, want status 0", err)
	}
}

func TestGracefulShutdownHTTP(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: sleeperConfig(t)})
	c := g.SessionClient(t)
	admin, mcpURL := g.AdminURL, g.MCPURL
	done := sleepCall(t, g, c)
	if err := g.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// While it drains, the gateway says it is not ready and takes no new
	// connections.
	sawNotReady := harness.WaitFor(time.Second, func() bool {
		resp, err := http.Get(admin + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusServiceUnavailable
	})
	select {
	case <-done:
		t.Logf("the call finished before /readyz could be checked")
	default:
		if !sawNotReady {
			t.Errorf("/readyz did not turn 503 while draining")
		}
		if resp, err := http.Post(mcpURL, "application/json", nil); err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				t.Errorf("a new MCP request during shutdown got status %d; want the listener closed", resp.StatusCode)
			}
		}
	}
	checkSlept(t, done)
	checkExit0(t, g, 20*time.Second)
}

func TestGracefulShutdownStdio(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: sleeperConfig(t), Stdio: true})
	c := g.StdioClient(t)
	done := sleepCall(t, g, c)
	if err := g.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	checkSlept(t, done)
	checkExit0(t, g, 20*time.Second)
}

func TestStdinCloseExits(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: sleeperConfig(t), Stdio: true})
	c := g.StdioClient(t)
	ctx := harness.Ctx(t, 30*time.Second)
	if text, isErr := harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": "subtract", "a": 1, "b": 1}); isErr || text != "0" {
		t.Errorf("calculate = %q (isError %v)", text, isErr)
	}
	if err := g.Stdin.Close(); err != nil {
		t.Fatal(err)
	}
	err, exited := g.Wait(20 * time.Second)
	if !exited {
		t.Fatalf("wasmgate still running 20s after stdin closed")
	}
	if err != nil {
		t.Errorf("wasmgate exited with %v after stdin closed, want status 0", err)
	}
}

// Closing stdin is a graceful shutdown too: a call already running
// finishes and its answer is written before the process exits 0.
func TestStdinEOFDrainsRunningCalls(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: sleeperConfig(t), Env: nil, Stdio: true})
	c := g.StdioClient(t)
	done := sleepCall(t, g, c)
	if err := g.Stdin.Close(); err != nil {
		t.Fatal(err)
	}
	checkSlept(t, done)
	checkExit0(t, g, 20*time.Second)
	if !strings.Contains(g.Stderr(), "stdin closed: shutting down") {
		t.Errorf("the gateway did not log why it shut down")
	}
}

// The drain after stdin closes is bounded by server.shutdown_timeout: a
// call that outlives it is cancelled and the process still exits 0.
func TestStdinEOFDrainIsBounded(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: fmt.Sprintf(`  - name: hostile
    path: %s
    limits: {timeout: 30s}
`, harness.Wasm(t, "testdata/plugins/hostile"))}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{"WASMGATE_SERVER__SHUTDOWN_TIMEOUT=300ms"}, Stdio: true})
	c := g.StdioClient(t)
	ctx := harness.Ctx(t, 60*time.Second)
	go func() { _, _ = harness.CallToolErr(ctx, c, "sleep", map[string]any{"ms": 20000}) }()
	if !harness.WaitFor(10*time.Second, func() bool { return inFlight(t, g, "hostile") == 1 }) {
		t.Fatalf("the sleep call never showed up in wasmgate_tool_calls_in_flight")
	}
	start := time.Now()
	if err := g.Stdin.Close(); err != nil {
		t.Fatal(err)
	}
	checkExit0(t, g, 15*time.Second)
	t.Logf("exited %v after stdin closed with a 20 s call running", time.Since(start).Round(time.Millisecond))
	if !strings.Contains(g.Stderr(), "shutdown timeout reached with calls still running") {
		t.Errorf("the gateway did not say it cut the drain short")
	}
}
