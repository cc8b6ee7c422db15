package main

// Issue 39, the LOW items about what one session or principal can do to
// another's: progress injected into another session's call, task status
// sent to every session, parked calls holding every concurrency slot,
// and a client's sampled traceparent forcing tracing with sample_ratio 0.

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestTracingSampleRatioZeroHonoured: with sample_ratio 0 a client's
// sampled traceparent (a header, or the 2026-07-28 _meta.traceparent)
// records nothing; the same client is traced once the ratio is above 0.
func TestTracingSampleRatioZeroHonoured(t *testing.T) {
	t.Parallel()
	rc := newOTLPReceiver(t)
	plugins := fmt.Sprintf("  - {name: calculator, path: %s}\n", harness.Wasm(t, "examples/plugins/calculator"))
	render := func(ratio string) string {
		return bins.YAML(harness.Parts{Plugins: plugins,
			Sections: fmt.Sprintf("tracing:\n  endpoint: %s\n  sample_ratio: %s\n", rc.URL, ratio)})
	}
	cfg := harness.WriteConfig(t, render("0"))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, time.Minute)

	const traceID, parent = "3e1c9a0b7d2f4e6a8c0b1d3f5a7c9e0b", "1f2e3d4c5b6a7988"
	sampled := "00-" + traceID + "-" + parent + "-01"
	c := g.SessionClient(t, transport.WithHTTPHeaders(map[string]string{"traceparent": sampled}))
	harness.Calc(ctx, t, c, 2, 3)
	c2 := g.Client(t)
	req := mcp.CallToolRequest{}
	req.Params.Name = "calculate"
	req.Params.Arguments = map[string]any{"operation": "add", "a": 1, "b": 1}
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"traceparent": sampled}}
	if res, err := c2.CallTool(ctx, req); err != nil || res.IsError {
		t.Fatalf("calculate with _meta.traceparent: %v %+v", err, res)
	}
	// The exporter sends a batch within a second of a span's end.
	time.Sleep(2500 * time.Millisecond)
	if n := rc.count(); n != 0 {
		t.Fatalf("sample_ratio 0: the collector got %d spans of calls whose client sent a sampled traceparent, want none", n)
	}

	// Above 0 the caller's sampled traceparent is followed again.
	n := g.ReloadCount(t)
	harness.RenameOver(t, cfg, []byte(render("0.000001")))
	g.WaitReload(t, n, "sample_ratio 0.000001")
	harness.Calc(ctx, t, c, 3, 4)
	rc.trace(t, traceID, "tools/call calculate")
}

// twoPrincipals is the auth section of principals alice and bob, and
// their tokens.
func twoPrincipals(t *testing.T) (section, alice, bob string) {
	alice, bob = newToken(t), newToken(t)
	return fmt.Sprintf(`auth:
  principals:
    - {name: alice, token_sha256: %s}
    - {name: bob, token_sha256: %s}
`, sha256Hex(alice), sha256Hex(bob)), alice, bob
}

// TestUpstreamProgressNotInjected (issue 39, LOW a): alice and bob each
// have their own process of a per_client upstream. While alice's call
// runs, bob's process sends progress for the tokens it guesses alice's
// call has upstream: none of it reaches alice; bob's own progress
// reaches bob; the foreign progress is dropped and counted.
func TestUpstreamProgressNotInjected(t *testing.T) {
	t.Parallel()
	meddler := bins.GoFixture(t, "testdata/upstreams/meddler")
	auth, alice, bob := twoPrincipals(t)
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server: harness.NoWatch,
		Sections: auth + fmt.Sprintf(`upstreams:
  - name: meddle
    command: [%q, -name, meddle]
    session: per_client
    prefix: md
    limits: {timeout: 30s}
`, meddler),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, time.Minute)

	type note struct{ token, msg string }
	listen := func(c *client.Client) func() []note {
		var mu sync.Mutex
		var got []note
		c.OnNotification(func(n mcp.JSONRPCNotification) {
			if n.Method != string(mcp.MethodNotificationProgress) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			got = append(got, note{fmt.Sprint(n.Params.AdditionalFields["progressToken"]), fmt.Sprint(n.Params.AdditionalFields["message"])})
		})
		return func() []note {
			mu.Lock()
			defer mu.Unlock()
			return append([]note(nil), got...)
		}
	}
	ca := g.SessionClient(t, withToken(alice))
	aliceGot := listen(ca)
	cb := g.SessionClient(t, withToken(bob))
	bobGot := listen(cb)

	waited := make(chan error, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "md_wait"
		req.Params.Arguments = map[string]any{"ms": 3000}
		req.Params.Meta = &mcp.Meta{ProgressToken: "alice-1"}
		res, err := ca.CallTool(ctx, req)
		if err == nil && res.IsError {
			err = fmt.Errorf("md_wait: %s", harness.ResultText(res))
		}
		waited <- err
	}()
	if !harness.WaitFor(20*time.Second, func() bool { return len(aliceGot()) > 0 }) {
		t.Fatal("alice's call never reported its start")
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "md_inject"
	req.Params.Meta = &mcp.Meta{ProgressToken: "bob-1"}
	if res, err := cb.CallTool(ctx, req); err != nil || res.IsError {
		t.Fatalf("md_inject: %v %+v", err, res)
	}
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
	if !harness.WaitFor(10*time.Second, func() bool {
		for _, n := range bobGot() {
			if n.msg == "own" {
				return true
			}
		}
		return false
	}) {
		t.Errorf("bob did not get his own call's progress: %v", bobGot())
	}
	for _, n := range aliceGot() {
		if n.token != "alice-1" || n.msg != "started" {
			t.Errorf("alice got progress %+v, want only her own call's (alice-1 started)", n)
		}
	}
	for _, n := range bobGot() {
		if n.token != "bob-1" || n.msg != "own" {
			t.Errorf("bob got progress %+v, want only his own call's (bob-1 own)", n)
		}
	}
	if v, _ := g.Metric(t, "wasmgate_upstream_notifications_dropped_total", map[string]string{"upstream": "meddle", "kind": "progress_foreign"}); v == 0 {
		t.Errorf("the injected progress was not counted as dropped (kind progress_foreign)")
	}
	if _, ok := g.WaitLog(0, "upstream sent progress for a token", 5*time.Second); !ok {
		t.Errorf("no log line about the foreign progress:\n%s", g.Stderr())
	}
}

// TestTaskStatusOnlyToOwner (issue 39, LOW b): alice runs a tool as a
// task; its notifications/tasks/status reach alice's session, never
// bob's.
func TestTaskStatusOnlyToOwner(t *testing.T) {
	t.Parallel()
	auth, alice, bob := twoPrincipals(t)
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server:   harness.NoWatch,
		Plugins:  fmt.Sprintf("  - {name: hostile, path: %s, limits: {timeout: 5s, task_timeout: 1m}}\n", harness.Wasm(t, "testdata/plugins/hostile")),
		Sections: auth,
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, time.Minute)
	connect := func(token string) (*transport.StreamableHTTP, func() []string) {
		tr, err := transport.NewStreamableHTTP(g.MCPURL, transport.WithContinuousListening(), withToken(token))
		if err != nil {
			t.Fatal(err)
		}
		c := client.NewClient(tr)
		var mu sync.Mutex
		var ids []string
		c.OnNotification(func(n mcp.JSONRPCNotification) {
			if n.Method != string(mcp.MethodNotificationTasksStatus) {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			ids = append(ids, fmt.Sprint(n.Params.AdditionalFields["taskId"], " ", n.Params.AdditionalFields["status"]))
		})
		harness.Init(t, c, harness.ProtoSessions)
		t.Cleanup(func() { c.Close() })
		return tr, func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), ids...)
		}
	}
	ca, aliceGot := connect(alice)
	_, bobGot := connect(bob)

	// A task-augmented call (its answer is a task, not a CallToolResult).
	res, err := ca.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(100)), Method: "tools/call",
		Params: map[string]any{"name": "sleep", "arguments": map[string]any{"ms": 300}, "task": map[string]any{}}})
	if err != nil || res.Error != nil || !strings.Contains(string(res.Result), `"taskId"`) {
		t.Fatalf("alice's task-augmented sleep: %v %+v", err, res)
	}
	if !harness.WaitFor(20*time.Second, func() bool {
		for _, s := range aliceGot() {
			if strings.HasSuffix(s, " completed") {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("alice did not hear that her task completed: %q", aliceGot())
	}
	time.Sleep(500 * time.Millisecond) // a notification to bob would be on its way by now
	if got := bobGot(); len(got) != 0 {
		t.Errorf("bob heard of alice's task: %q", got)
	}
}

// TestParkedCallsDoNotStarveOthers (issue 39, LOW c): alice's 2026-07-28
// client parks calls on an upstream (its elicitation unanswered) up to
// limits.concurrency; bob's call of the upstream still runs, alice's
// next call that would park is refused (naming alice and the upstream,
// counted), and alice's parked calls complete once she answers.
func TestParkedCallsDoNotStarveOthers(t *testing.T) {
	t.Parallel()
	up := server.NewMCPServer("asker-http", "1.0.0", server.WithToolCapabilities(false))
	up.AddTool(mcp.NewTool("ask"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		e, err := up.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{Message: "name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}}}})
		if err != nil {
			return mcp.NewToolResultError("elicitation: " + err.Error()), nil
		}
		m, _ := e.Content.(map[string]any)
		return mcp.NewToolResultText(fmt.Sprint("answered ", m["answer"])), nil
	})
	up.AddTool(mcp.NewTool("hello"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("hello"), nil
	})
	ts := httptest.NewServer(server.NewStreamableHTTPServer(up))
	defer ts.Close()
	auth, alice, bob := twoPrincipals(t)
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server: harness.NoWatch,
		Sections: auth + fmt.Sprintf(`upstreams:
  - name: asker
    url: %s/mcp
    prefix: up
    limits: {timeout: 5s, concurrency: 2}
`, ts.URL),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)

	// Alice's client is asked, and answers only when the test says so.
	answer := make(chan struct{})
	var asked atomic.Int64
	ask := &blockingElicitor{asked: &asked, answer: answer}
	tr, err := transport.NewStreamableHTTP(g.MCPURL, withToken(alice))
	if err != nil {
		t.Fatal(err)
	}
	ca := client.NewClient(tr, client.WithElicitationHandler(ask),
		client.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}))
	harness.Init(t, ca, harness.ProtoStateless)
	t.Cleanup(func() { ca.Close() })
	results := make(chan string, 2)
	for range 2 {
		go func() {
			res, err := harness.CallToolErr(ctx, ca, "up_ask", nil)
			if err != nil {
				results <- "error: " + err.Error()
				return
			}
			results <- harness.ResultText(res)
		}()
	}
	if !harness.WaitFor(30*time.Second, func() bool { return asked.Load() == 2 }) {
		t.Fatalf("alice was asked %d times, want 2 (both calls parked)", asked.Load())
	}

	// Bob's call is not held up by alice's parked calls.
	cb := g.Client(t, withToken(bob))
	if text, isErr := harness.CallTool(ctx, t, cb, "up_hello", nil); isErr || text != "hello" {
		t.Fatalf("bob's up_hello while alice has 2 calls parked = %q (isError %v), want hello", text, isErr)
	}

	// Alice's third call that parks is refused: she holds her bound.
	res, err := harness.CallToolErr(ctx, ca, "up_ask", nil)
	if err != nil || !res.IsError || !strings.Contains(harness.ResultText(res), `principal "alice" already has 2 calls parked on upstream "asker"`) {
		t.Fatalf("alice's third parked call: %v %q, want a refusal naming alice and the upstream", err, harness.ResultText(res))
	}
	if v, _ := g.Metric(t, "wasmgate_upstream_calls_refused_total", map[string]string{"upstream": "asker", "reason": "parked_per_principal"}); v != 1 {
		t.Errorf("wasmgate_upstream_calls_refused_total{reason=parked_per_principal} = %v, want 1", v)
	}
	if _, ok := g.WaitLog(0, "refused a parked call", 5*time.Second); !ok {
		t.Errorf("no log line for the refusal:\n%s", g.Stderr())
	}

	// Alice answers: her two parked calls complete.
	close(answer)
	for range 2 {
		select {
		case got := <-results:
			if got != "answered ada" {
				t.Errorf("alice's parked call = %q, want answered ada", got)
			}
		case <-ctx.Done():
			t.Fatal("alice's parked calls did not complete")
		}
	}
	if text, isErr := harness.CallTool(ctx, t, cb, "up_hello", nil); isErr || text != "hello" {
		t.Fatalf("bob's up_hello at the end = %q (isError %v)", text, isErr)
	}
}

// blockingElicitor answers "ada" once answer is closed, counting the
// requests.
type blockingElicitor struct {
	asked  *atomic.Int64
	answer chan struct{}
}

func (b *blockingElicitor) Elicit(ctx context.Context, _ mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	b.asked.Add(1)
	select {
	case <-b.answer:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
		Content: map[string]any{"answer": "ada"}}}, nil
}
