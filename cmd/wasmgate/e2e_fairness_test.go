package main

// Fair sharing: a plugin spinning until its timeout at its full
// concurrency does not starve the other plugins. The gateway bounds
// WebAssembly calls gateway-wide (server.max_concurrent_calls, default
// CPUs) and a plugin's own limit defaults to half of that.

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// phase is one -json summary line of cmd/mcpbench.
type phase struct {
	Clients   int     `json:"clients"`
	Calls     int64   `json:"calls"`
	CallsPerS float64 `json:"calls_per_s"`
	P99Ms     float64 `json:"p99_ms"`
	Failures  int64   `json:"failures"`
}

// calcLoad drives calculate with cmd/mcpbench (built without the race
// detector, so the load driver measures the gateway rather than itself)
// from clients sessions for d.
func calcLoad(t *testing.T, bench string, g *harness.Gateway, clients int, d time.Duration) phase {
	t.Helper()
	out, err := exec.Command(bench, "-url", g.MCPURL, "-clients", fmt.Sprint(clients), "-duration", d.String(),
		"-warmup", "500ms", "-expect", "8", "-json").CombinedOutput()
	if err != nil {
		t.Fatalf("mcpbench: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		var p phase
		if json.Unmarshal([]byte(line), &p) == nil && p.Clients == clients {
			if p.Failures > 0 {
				t.Errorf("%d calculate calls failed:\n%s", p.Failures, out)
			}
			return p
		}
	}
	t.Fatalf("no summary in mcpbench's output:\n%s", out)
	return phase{}
}

func TestSpinningPluginDoesNotStarveOthers(t *testing.T) {
	// Not parallel: ALONE_TESTS (Makefile).
	cfg := hostileConfig(t, "1s")
	// The plain builds: this measures the gateway, not the race detector.
	g := bins.Start(t, harness.Options{Config: cfg, Plain: true})
	bench := filepath.Join(t.TempDir(), "mcpbench")
	if out, err := exec.Command("go", "build", "-o", bench, "../mcpbench").CombinedOutput(); err != nil {
		t.Fatalf("build mcpbench: %v\n%s", err, out)
	}
	alone := calcLoad(t, bench, g, 8, 3*time.Second)

	// Keep the hostile plugin spinning at (more than) its concurrency.
	spinCtx, stopSpin := context.WithCancel(context.Background())
	var spins sync.WaitGroup
	spinner := g.SessionClient(t)
	for range 4 {
		spins.Go(func() {
			for spinCtx.Err() == nil {
				_, _ = harness.CallToolErr(spinCtx, spinner, "spin", map[string]any{})
			}
		})
	}
	if !harness.WaitFor(10*time.Second, func() bool { return inFlight(t, g, "hostile") >= 1 }) {
		t.Fatal("the spin calls never started")
	}
	loaded := calcLoad(t, bench, g, 8, 3*time.Second)
	stillSpinning := inFlight(t, g, "hostile") >= 1
	stopSpin()
	spins.Wait()

	t.Logf("calculate, 8 clients: alone %.0f calls/s (p99 %.1f ms); with a plugin spinning at its limit %.0f calls/s (p99 %.1f ms)",
		alone.CallsPerS, alone.P99Ms, loaded.CallsPerS, loaded.P99Ms)
	if !stillSpinning {
		t.Errorf("the hostile plugin was no longer spinning at the end of the loaded phase")
	}
	if loaded.CallsPerS < alone.CallsPerS/2 {
		t.Errorf("with a spinning plugin calculate fell to %.0f calls/s, less than half of %.0f", loaded.CallsPerS, alone.CallsPerS)
	}
	if loaded.P99Ms > 50 {
		t.Errorf("with a spinning plugin calculate's p99 latency is %.1f ms, want under 50 ms", loaded.P99Ms)
	}
}
