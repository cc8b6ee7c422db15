package main

// Plugins that misbehave on purpose (testdata/plugins/hostile): each fault
// becomes an isError result, the next call succeeds, the gateway keeps
// serving, and /metrics counts each outcome.

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/wasmgate/wasmgate/internal/harness"
)

// The hostile module is loaded three times (with prefixes, as its tool names
// would otherwise clash):
//
//   - hostile: limits {timeout: 500ms, memory: 32MiB, max_output: 64KiB,
//     concurrency: 2}, for spin, crash, trap and echo;
//   - heavy_*: the same limits but a 10s timeout, for bomb and flood. Under
//     the race detector the host side of filling 32MiB of guest memory or
//     copying 8MiB of output takes 0.6-1.2s here (0.25s without -race), so
//     with 500ms they would time out before the limit under test is reached;
//     with 10s, finishing early proves the memory and max_output limits
//     stopped them, not the timeout;
//   - slow_*: timeout 2s, concurrency 2, for the concurrency limit.
func TestHostilePlugins(t *testing.T) {
	// Not parallel: its memory and output limits must stop calls well before their 10s timeout under -race.
	hostile := harness.Wasm(t, "testdata/plugins/hostile")
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: fmt.Sprintf(`  - name: calculator
    path: %s
  - name: hostile
    path: %s
    limits: {timeout: 500ms, memory: 32MiB, max_output: 64KiB, concurrency: 2}
  - name: heavy
    path: %s
    prefix: heavy
    limits: {timeout: 10s, memory: 32MiB, max_output: 64KiB, concurrency: 2}
  - name: slow
    path: %s
    prefix: slow
    limits: {timeout: 2s, concurrency: 2}
`, harness.Wasm(t, "examples/plugins/calculator"), hostile, hostile, hostile)}))
	g := bins.Start(t, harness.Options{Config: cfg})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, 120*time.Second)

	// echoWorks checks the plugin still serves a normal call after a fault.
	echoWorks := func(t *testing.T, echo, after string) {
		t.Helper()
		in := map[string]any{"after": after, "n": float64(len(after))}
		text, isErr := harness.CallTool(ctx, t, c, echo, in)
		var got map[string]any
		if isErr || json.Unmarshal([]byte(text), &got) != nil || !reflect.DeepEqual(got, in) {
			t.Errorf("echo after %s = %q (isError %v), want its input back", after, text, isErr)
		}
	}
	// hostileCall calls tool, which must fail with isError within its
	// plugin's timeout plus a generous slack.
	hostileCall := func(t *testing.T, tool string, timeout time.Duration) string {
		t.Helper()
		start := time.Now()
		text, isErr := harness.CallTool(ctx, t, c, tool, map[string]any{})
		if !isErr {
			t.Errorf("%s: no isError; text %.200q", tool, text)
		}
		if d := time.Since(start); d > timeout+4500*time.Millisecond {
			t.Errorf("%s took %v; the plugin's timeout is %v", tool, d, timeout)
		}
		return text
	}

	before := g.Scrape(t)

	t.Run("spin", func(t *testing.T) {
		text := hostileCall(t, "spin", 500*time.Millisecond)
		if !strings.Contains(text, "timed out") || !strings.Contains(text, "500ms") {
			t.Errorf("spin: %q does not say it timed out after the plugin's 500ms", text)
		}
		echoWorks(t, "echo", "spin")
	})
	t.Run("bomb", func(t *testing.T) {
		text := hostileCall(t, "heavy_bomb", 10*time.Second)
		if !strings.Contains(text, "memory") && !strings.Contains(text, "crash") {
			t.Errorf("bomb: %q mentions neither memory nor a crash", text)
		}
		if strings.Contains(text, "timed out") {
			t.Errorf("bomb: %q: stopped by the 10s timeout, not by limits.memory (32MiB)", text)
		}
		echoWorks(t, "heavy_echo", "bomb")
	})
	t.Run("crash", func(t *testing.T) {
		text := hostileCall(t, "crash", 500*time.Millisecond)
		if !strings.Contains(text, "crash") {
			t.Errorf("crash: %q does not say the plugin crashed", text)
		}
		echoWorks(t, "echo", "crash")
	})
	t.Run("trap", func(t *testing.T) {
		text := hostileCall(t, "trap", 500*time.Millisecond)
		if !strings.Contains(text, "crash") && !strings.Contains(text, "trap") {
			t.Errorf("trap: %q says neither crash nor trap", text)
		}
		// An out-of-bounds access is a bug in the module, not the memory
		// limit at work: raising limits.memory would not help.
		if strings.Contains(text, "limits.memory") {
			t.Errorf("trap: %q blames limits.memory for an out-of-bounds memory access", text)
		}
		echoWorks(t, "echo", "trap")
	})
	t.Run("flood", func(t *testing.T) {
		text := hostileCall(t, "heavy_flood", 10*time.Second)
		if !strings.Contains(text, "max_output") {
			t.Errorf("flood: %q does not name limits.max_output", text)
		}
		echoWorks(t, "heavy_echo", "flood")
	})
	mid := g.Scrape(t) // the sequential faults are counted exactly; the concurrent ones below may time out waiting for an instance instead

	t.Run("all at once", func(t *testing.T) {
		// Every fault at the same time, twice over the concurrency limit,
		// each from its own session.
		var wg sync.WaitGroup
		for _, tool := range []string{"spin", "crash", "trap", "heavy_bomb", "heavy_flood", "spin"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cc, _ := harness.HTTPClient(t, g.MCPURL, harness.ProtoSessions)
				res, err := harness.CallToolErr(ctx, cc, tool, nil)
				if err != nil || !res.IsError {
					t.Errorf("%s (concurrent): %v %+v, want an isError result", tool, err, res)
				}
			}()
		}
		wg.Wait()
		echoWorks(t, "echo", "all at once")
		echoWorks(t, "heavy_echo", "all at once")
	})

	t.Run("concurrency limit", func(t *testing.T) {
		// limits.concurrency 2 with a 2s timeout: four 1200ms sleeps at once.
		// Two run; the other two cannot get an instance before 1200ms and
		// so cannot finish within 2s: they time out. Were the limit not
		// enforced, all four would succeed.
		const n = 4
		results := make([]string, n)
		errs := make([]bool, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cc, _ := harness.HTTPClient(t, g.MCPURL, harness.ProtoSessions)
				res, err := harness.CallToolErr(ctx, cc, "slow_sleep", map[string]any{"ms": 1200})
				if err != nil {
					t.Errorf("slow_sleep: %v", err)
					return
				}
				results[i], errs[i] = harness.ResultText(res), res.IsError
			}()
		}
		wg.Wait()
		var ok, timedOut int
		for i := range n {
			switch {
			case !errs[i] && results[i] == "slept 1200ms":
				ok++
			case errs[i] && strings.Contains(results[i], "timed out"):
				timedOut++
			default:
				t.Errorf("slow_sleep: unexpected result %q (isError %v)", results[i], errs[i])
			}
		}
		if ok != 2 || timedOut != 2 {
			t.Errorf("4 concurrent 1200ms sleeps with concurrency 2, timeout 2s: %d ok, %d timed out; want 2 and 2", ok, timedOut)
		}
	})

	// The gateway still serves everything else, and is still running.
	text, isErr := harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": "multiply", "a": 6, "b": 7})
	if isErr || text != "42" {
		t.Errorf("calculate after the hostile calls = %q (isError %v), want 42", text, isErr)
	}
	divText, divErr := harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": "divide", "a": 1, "b": 0})
	if !divErr || divText != "Division by zero" {
		t.Errorf("divide by zero = %q (isError %v)", divText, divErr)
	}
	if !g.Alive() {
		t.Fatalf("wasmgate exited")
	}
	if code, _ := harness.HTTPGet(t, g.AdminURL+"/healthz"); code != 200 {
		t.Errorf("/healthz = %d after the hostile calls", code)
	}

	after := g.Scrape(t)
	delta := func(from, to harness.Metrics, tool, outcome string) float64 {
		return to.ToolCalls(tool, outcome) - from.ToolCalls(tool, outcome)
	}
	for _, w := range []struct {
		tool, outcome string
		n             float64
	}{
		{"spin", "timeout", 1},
		{"heavy_bomb", "crash", 1},
		{"crash", "crash", 1},
		{"trap", "crash", 1},
		{"heavy_flood", "rejected", 1},
		{"echo", "ok", 3},
		{"heavy_echo", "ok", 2},
	} {
		if d := delta(before, mid, w.tool, w.outcome); d != w.n {
			t.Errorf("wasmgate_tool_calls_total{tool=%q,outcome=%q} grew by %v, want %v", w.tool, w.outcome, d, w.n)
		}
	}
	for _, w := range []struct {
		tool, outcome string
		n             float64
	}{
		{"calculate", "error", 1}, // Division by zero: isError counts as an error
		{"calculate", "ok", 1},
		{"slow_sleep", "ok", 2},
		{"slow_sleep", "timeout", 2},
	} {
		if d := delta(mid, after, w.tool, w.outcome); d != w.n {
			t.Errorf("wasmgate_tool_calls_total{tool=%q,outcome=%q} grew by %v, want %v", w.tool, w.outcome, d, w.n)
		}
	}
	for _, tool := range []string{"spin", "heavy_bomb", "crash", "trap", "heavy_flood"} {
		if d := delta(before, after, tool, "ok"); d != 0 {
			t.Errorf("wasmgate_tool_calls_total{tool=%q,outcome=ok} grew by %v: a failed call counted as ok", tool, d)
		}
	}
	// Dead instances were replaced, not leaked: never more than the limit.
	for _, p := range []string{"hostile", "heavy", "slow"} {
		if v, ok := after.Value("wasmgate_plugin_instances", map[string]string{"plugin": p}); !ok || v < 0 || v > 2 {
			t.Errorf("wasmgate_plugin_instances{plugin=%s} = %v (present %v), want 0..2 (limits.concurrency)", p, v, ok)
		}
		if v, ok := after.Value("wasmgate_tool_calls_in_flight", map[string]string{"source": p}); !ok || v != 0 {
			t.Errorf("wasmgate_tool_calls_in_flight{source=%s} = %v (present %v), want 0", p, v, ok)
		}
	}
}

// TestKVQuota: a plugin that fills its key-value store is refused past
// limits.kv_quota, with a message it can report, and the store keeps
// serving the other plugins.
func TestKVQuota(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: harness.ExamplePlugins(t) + fmt.Sprintf(`  - name: kvquota
    path: %s
    limits: {kv_quota: 4MiB, timeout: 20s}
`, harness.Wasm(t, "testdata/plugins/kvquota"))}))
	g := bins.Start(t, harness.Options{Config: cfg})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, 60*time.Second)
	text, isErr := harness.CallTool(ctx, t, c, "fill", map[string]any{})
	if isErr || !strings.Contains(text, "quota") {
		t.Errorf("fill with a 4MiB quota = %q (isError %v), want the store's quota error", text, isErr)
	}
	// The storage plugin has its own store, unaffected.
	checkStorageRoundTrip(ctx, t, c)
}

func checkStorageRoundTrip(ctx context.Context, t *testing.T, c *client.Client) {
	t.Helper()
	key := fmt.Sprintf("rt-%d", time.Now().UnixNano())
	harness.CallTool(ctx, t, c, "set-storage", map[string]any{"key": key, "value": "v"})
	if got := harness.ReadText(ctx, t, c, "storage://"+key); got != "v" {
		t.Errorf("storage round trip = %q, want v", got)
	}
}
