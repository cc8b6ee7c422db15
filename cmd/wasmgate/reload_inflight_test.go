package main

import (
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestReloadInFlightCallFinishes removes, then rebuilds, a plugin while
// one of its calls is running: the call finishes with its normal result on
// the snapshot it started on, and that snapshot's instances close after.
func TestReloadInFlightCallFinishes(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	hostile := e.Module("hostile", "testdata/plugins/hostile")
	calcItem := harness.Item("name: calculator", "path: "+harness.Q(calc))
	hostileItem := func(concurrency string) string {
		return harness.Item("name: hostile", "path: "+harness.Q(hostile), "limits: {timeout: 40s, concurrency: "+concurrency+"}")
	}
	harness.WriteFile(t, e.Config, []byte(e.YAML("", calcItem, hostileItem("2"))))
	g := bins.Start(t, harness.Options{Config: e.Config})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, 3*time.Minute)

	type result struct {
		res *mcp.CallToolResult
		err error
	}
	sleep := func() <-chan result {
		done := make(chan result, 1)
		go func() {
			// Long enough for a reload on a loaded machine (-race,
			// parallel tests), where one took more than 6s.
			res, err := harness.CallToolErr(ctx, c, "sleep", map[string]any{"ms": 20000})
			done <- result{res, err}
		}()
		if !harness.WaitFor(10*time.Second, func() bool {
			v, _ := g.Scrape(t).Value("wasmgate_tool_calls_in_flight", map[string]string{"source": "hostile"})
			return v == 1
		}) {
			t.Fatal("the sleep call never showed in wasmgate_tool_calls_in_flight")
		}
		return done
	}
	// reloadDuring saves data and waits until it is applied, checking the
	// call is still running then (else the test proves nothing).
	reloadDuring := func(done <-chan result, data []byte) {
		t.Helper()
		n := g.ReloadCount(t)
		harness.RenameOver(t, e.Config, data)
		if _, f := g.WaitReload(t, n, "save"); f != 0 {
			t.Fatalf("the reload failed:\n%s", g.Stderr())
		}
		select {
		case r := <-done:
			t.Fatalf("the call finished (%v, %v) before the reload was applied; the test needs a longer sleep", r.res, r.err)
		default:
		}
	}
	checkSlept := func(done <-chan result) {
		t.Helper()
		select {
		case r := <-done:
			if r.err != nil {
				t.Fatalf("the call in flight during the reload failed: %v", r.err)
			}
			if text := harness.ResultText(r.res); r.res.IsError || text != "slept 20000ms" {
				t.Fatalf("the call in flight during the reload returned %q (isError %v), want \"slept 20000ms\"", text, r.res.IsError)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the call in flight during the reload never returned")
		}
	}
	instances := func() (float64, bool) {
		return g.Scrape(t).Value("wasmgate_plugin_instances", map[string]string{"plugin": "hostile"})
	}

	t.Run("plugin rebuilt (limits.concurrency)", func(t *testing.T) {
		done := sleep()
		reloadDuring(done, []byte(e.YAML("", calcItem, hostileItem("3"))))
		checkSlept(done)
		// The old pool closes once its call has returned: one instance
		// left, the new pool's.
		if !harness.WaitFor(10*time.Second, func() bool { v, _ := instances(); return v == 1 }) {
			v, _ := instances()
			t.Errorf("wasmgate_plugin_instances{plugin=\"hostile\"} = %v after the old snapshot drained, want 1", v)
		}
	})

	t.Run("plugin removed", func(t *testing.T) {
		done := sleep()
		reloadDuring(done, []byte(e.YAML("", calcItem)))
		// Already gone for everyone else while the call still runs.
		if got := harness.Tools(ctx, t, c); len(got) != 1 || got[0] != "calculate" {
			t.Errorf("tools/list after removing hostile: %v, want [calculate]", got)
		}
		if _, err := harness.CallToolErr(ctx, c, "echo", map[string]any{}); err == nil {
			t.Errorf("echo still callable after hostile was removed")
		}
		checkSlept(done)
		if !harness.WaitFor(10*time.Second, func() bool { _, ok := instances(); return !ok }) {
			v, _ := instances()
			t.Errorf("wasmgate_plugin_instances{plugin=\"hostile\"} = %v after removal and drain, want the series gone", v)
		}
		if v, _ := g.Scrape(t).Value("wasmgate_tool_calls_in_flight", map[string]string{"source": "hostile"}); v != 0 {
			t.Errorf("wasmgate_tool_calls_in_flight{source=\"hostile\"} = %v at the end", v)
		}
		harness.Calc(ctx, t, c, 1, 1)
	})
}
