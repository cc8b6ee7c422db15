package main

// instances: single keeps a plugin's state (testdata/plugins/hyperv2's
// call counter, a global) across calls and sessions; instances: session
// gives each MCP session its own, closed with the session. Both with 16
// concurrent clients, under the race detector when the tests run with it.

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func TestInstanceScopes(t *testing.T) {
	t.Parallel()
	const clients, calls = 16, 5
	v2 := harness.Q(harness.Wasm(t, "testdata/plugins/hyperv2"))
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server: "  max_concurrent_calls: 8\n",
		// limits.timeout (5s by default) covers the wait for an instance:
		// 16 sessions queue on one, and each session's first call waits
		// for its instance to start; on a loaded machine (-race, parallel
		// tests) that can take longer than 5s, and no timeout is tested.
		Plugins: harness.Item("name: one", "path: "+v2, "prefix: one", "instances: single", "limits: {timeout: 60s}") +
			harness.Item("name: per", "path: "+v2, "prefix: per", "instances: session", "limits: {concurrency: 4, timeout: 60s}"),
	}))
	g := bins.Start(t, harness.Options{Config: cfg, Stdio: true})
	ctx := harness.Ctx(t, 3*time.Minute)

	sessions := make([]*client.Client, clients)
	for i := range sessions {
		sessions[i] = g.SessionClient(t)
	}
	count := func(c *client.Client, tool string) (int, error) {
		res, err := harness.CallToolErr(ctx, c, tool, nil)
		if err != nil {
			return 0, err
		}
		if res.IsError {
			return 0, fmt.Errorf("%s: %s", tool, harness.ResultText(res))
		}
		return strconv.Atoi(harness.ResultText(res))
	}

	var mu sync.Mutex
	var single []int               // every count one_v2_counter returned
	perSession := [clients][]int{} // what per_v2_counter returned to each session
	var wg sync.WaitGroup
	errs := make(chan error, clients*calls*2)
	for i, c := range sessions {
		wg.Go(func() {
			for range calls {
				n, err := count(c, "one_v2_counter")
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				single = append(single, n)
				mu.Unlock()
				m, err := count(c, "per_v2_counter")
				if err != nil {
					errs <- err
					return
				}
				perSession[i] = append(perSession[i], m)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	// single: one instance ran every call, one at a time: the counts are
	// 1..80, each once.
	slices.Sort(single)
	for i, n := range single {
		if n != i+1 {
			t.Fatalf("instances: single returned counts %v, want 1..%d each once", single, clients*calls)
		}
	}
	// The stdio client is one more session on the same instance.
	if n, err := count(g.StdioClient(t), "one_v2_counter"); err != nil || n != clients*calls+1 {
		t.Errorf("one_v2_counter over stdio = %d, %v; want %d", n, err, clients*calls+1)
	}

	// session: each session counts its own calls.
	for i, got := range perSession {
		if !slices.Equal(got, []int{1, 2, 3, 4, 5}) {
			t.Errorf("session %d: per_v2_counter returned %v, want 1..5", i, got)
		}
	}
	m := g.Scrape(t)
	if n, _ := m.Value("wasmgate_plugin_instances", map[string]string{"plugin": "one"}); n != 1 {
		t.Errorf("plugin one has %v instances, want 1", n)
	}
	if n, _ := m.Value("wasmgate_plugin_instances", map[string]string{"plugin": "per"}); n != clients {
		t.Errorf("plugin per has %v instances, want one per session (%d)", n, clients)
	}

	// A session's instance closes with the session; a new session starts
	// afresh.
	for _, c := range sessions[:8] {
		c.Close()
	}
	if !harness.WaitFor(30*time.Second, func() bool {
		n, _ := g.Scrape(t).Value("wasmgate_plugin_instances", map[string]string{"plugin": "per"})
		return n == clients-8
	}) {
		n, _ := g.Scrape(t).Value("wasmgate_plugin_instances", map[string]string{"plugin": "per"})
		t.Errorf("after 8 sessions ended, plugin per has %v instances, want %d", n, clients-8)
	}
	if n, err := count(g.SessionClient(t), "per_v2_counter"); err != nil || n != 1 {
		t.Errorf("per_v2_counter in a new session = %d, %v; want 1", n, err)
	}
	if n, err := count(sessions[8], "per_v2_counter"); err != nil || n != calls+1 {
		t.Errorf("per_v2_counter in a session still open = %d, %v; want %d", n, err, calls+1)
	}
}

// A call outside any session (the stateless 2026-07-28 revision) gets a
// fresh instance of a session-scoped plugin each time.
func TestSessionScopeWithoutSession(t *testing.T) {
	t.Parallel()
	v2 := harness.Q(harness.Wasm(t, "testdata/plugins/hyperv2"))
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins: harness.Item("name: per", "path: "+v2, "instances: session")}))})
	ctx := harness.Ctx(t, time.Minute)
	c := g.Client(t) // stateless
	for range 3 {
		if got, isErr := harness.CallTool(ctx, t, c, "v2_counter", nil); isErr || got != "1" {
			t.Errorf("v2_counter without a session = %q (isError %v), want 1", got, isErr)
		}
	}
	if n, _ := g.Scrape(t).Value("wasmgate_plugin_instances", map[string]string{"plugin": "per"}); n != 0 {
		t.Errorf("%v instances left after calls outside sessions, want 0", n)
	}
}
