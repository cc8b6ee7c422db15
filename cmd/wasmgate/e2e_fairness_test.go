package main

// Fair sharing: a plugin spinning until its timeout at its full
// concurrency does not starve the other plugins. The gateway bounds
// WebAssembly calls gateway-wide (server.max_concurrent_calls, default
// CPUs) and a plugin's own limit defaults to half of that.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// calcLoad runs clients sessions calling calculate for d and returns the
// calls per second and the 99th percentile latency.
func calcLoad(t *testing.T, g *Gateway, clients int, d time.Duration) (float64, time.Duration) {
	t.Helper()
	var mu sync.Mutex
	var lat []time.Duration
	var failed atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var wg sync.WaitGroup
	for range clients {
		c := sessionClient(t, g)
		wg.Go(func() {
			var mine []time.Duration
			for ctx.Err() == nil {
				start := time.Now()
				res, err := callToolErr(context.Background(), c, "calculate", map[string]any{"operation": "add", "a": 1, "b": 2})
				if err != nil || res.IsError {
					failed.Add(1)
					continue
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		t.Errorf("%d calculate calls failed", n)
	}
	if len(lat) == 0 {
		t.Fatal("no calculate call finished")
	}
	slices.Sort(lat)
	return float64(len(lat)) / d.Seconds(), lat[len(lat)*99/100]
}

func TestSpinningPluginDoesNotStarveOthers(t *testing.T) {
	cfg := writeConfig(t, gatewayYAML(t, cfgParts{Plugins: fmt.Sprintf(`  - name: calculator
    path: %s
  - name: hostile
    path: %s
    limits: {timeout: 1s}
`, wasm(t, "examples/plugins/calculator"), wasm(t, "testdata/plugins/hostile"))}))
	// The plain build: this measures the gateway, not the race detector.
	g := startGatewayBin(t, plainBinPath, cfg, nil)

	_, _ = calcLoad(t, g, 8, 500*time.Millisecond) // warm the pools
	alone, p99Alone := calcLoad(t, g, 8, 3*time.Second)

	// Keep the hostile plugin spinning at (more than) its concurrency.
	spinCtx, stopSpin := context.WithCancel(context.Background())
	var spins sync.WaitGroup
	spinner := sessionClient(t, g)
	for range 4 {
		spins.Go(func() {
			for spinCtx.Err() == nil {
				_, _ = callToolErr(spinCtx, spinner, "spin", map[string]any{})
			}
		})
	}
	if !waitFor(10*time.Second, func() bool { return inFlight(t, g, "hostile") >= 1 }) {
		t.Fatal("the spin calls never started")
	}
	loaded, p99Loaded := calcLoad(t, g, 8, 3*time.Second)
	stopSpin()
	spins.Wait()

	t.Logf("calculate, 8 clients: alone %.0f calls/s (p99 %v); with a plugin spinning at its limit %.0f calls/s (p99 %v)",
		alone, p99Alone.Round(time.Microsecond), loaded, p99Loaded.Round(time.Microsecond))
	if loaded < alone/2 {
		t.Errorf("with a spinning plugin calculate fell to %.0f calls/s, less than half of %.0f", loaded, alone)
	}
	if p99Loaded > 50*time.Millisecond {
		t.Errorf("with a spinning plugin calculate's p99 latency is %v, want under 50ms", p99Loaded)
	}
}
