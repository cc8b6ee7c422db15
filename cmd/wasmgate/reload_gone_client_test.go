package main

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestListChangedOutlivesCancelledCall: a session without a GET stream
// gets its notifications ahead of its requests' responses. When its
// client cancels a call, the list_changed a reload sent the session while
// the call ran is not written on the cancelled call's closed connection:
// the session's next request gets it (mcp-go patch 0027; before it, the
// gateway drained it into the dead response and the client never learnt
// that the tools had changed).
func TestListChangedOutlivesCancelledCall(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	hostile := e.Module("hostile", "testdata/plugins/hostile")
	greeter := e.Module("greeter", "examples/plugins/greeter")
	items := []string{
		harness.Item("name: calculator", "path: "+harness.Q(calc)),
		harness.Item("name: hostile", "path: "+harness.Q(hostile), "limits: {timeout: 60s}"),
	}
	harness.WriteFile(t, e.Config, []byte(e.YAML("", items...)))
	g := bins.Start(t, harness.Options{Config: e.Config})
	c := g.SessionClient(t) // no GET stream
	notes := harness.CountNotes(c)
	ctx := harness.Ctx(t, 3*time.Minute)

	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := harness.CallToolErr(callCtx, c, "sleep", map[string]any{"ms": 50000})
		done <- err
	}()
	if !harness.WaitFor(20*time.Second, func() bool { return inFlight(t, g, "hostile") == 1 }) {
		t.Fatal("the sleep call never showed in wasmgate_tool_calls_in_flight")
	}
	// A reload that adds a plugin while the call runs: the session is sent
	// tools/list_changed, which waits for the session's next stream.
	before := g.ReloadCount(t)
	harness.RenameOver(t, e.Config, []byte(e.YAML("", append(items, harness.Item("name: greeter", "path: "+harness.Q(greeter)))...)))
	if _, f := g.WaitReload(t, before, "adding greeter"); f != 0 {
		t.Fatalf("the reload failed:\n%s", g.Stderr())
	}
	if n := notes.Count(mcp.MethodNotificationToolsListChanged); n != 0 {
		t.Fatalf("%d tools list_changed before the session's next stream: the test needs a session without a GET stream", n)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled call succeeded")
	}
	if !harness.WaitFor(20*time.Second, func() bool { return inFlight(t, g, "hostile") == 0 }) {
		t.Fatal("the cancelled call is still in flight after 20 s")
	}
	// The session's next request carries the notification ahead of its
	// response.
	if err := c.Ping(ctx); err != nil {
		t.Fatalf("ping after the cancelled call: %v", err)
	}
	if !harness.WaitFor(5*time.Second, func() bool { return notes.Count(mcp.MethodNotificationToolsListChanged) == 1 }) {
		t.Fatalf("tools list_changed after the next request: %d, want 1 (lost on the cancelled call's connection)",
			notes.Count(mcp.MethodNotificationToolsListChanged))
	}
	if got := harness.Tools(ctx, t, c); !slices.Contains(got, "say_hello") {
		t.Errorf("tools/list after the reload: %v, want greeter's say_hello in it", got)
	}
}
