package main

// Through a shared HTTP upstream session (issue 39), the requests an
// upstream sends on its GET stream (mcp-go's server sends sampling
// there, and anything asked outside a request's context) go to the
// caller when exactly one call is in flight on the session, and are
// refused with a clear error when several are; log notifications reach
// the caller whose call caused them, at the level that caller set.

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// getStreamUpstream is an mcp-go Streamable HTTP server whose tool "ask"
// logs at info and debug, then asks its client (sampling, elicitation or
// roots) on the session's GET stream, whose tool "hold" runs until
// released, and whose tool "later" asks for sampling after its call
// ended (the outcome on late).
func getStreamUpstream(t *testing.T) (url string, release func(), late <-chan string) {
	t.Helper()
	lateOut := make(chan string, 1)
	late = lateOut
	srv := server.NewMCPServer("getstream", "1.0", server.WithLogging(), server.WithToolCapabilities(false))
	srv.EnableSampling()
	var (
		mu   sync.Mutex
		held = make(chan struct{})
	)
	release = func() {
		mu.Lock()
		defer mu.Unlock()
		close(held)
		held = make(chan struct{})
	}
	srv.AddTool(mcp.NewTool("hold"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		h := held
		mu.Unlock()
		select {
		case <-h:
			return mcp.NewToolResultText("held"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	srv.AddTool(mcp.NewTool("later"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		bare := srv.WithContext(context.Background(), server.ClientSessionFromContext(ctx))
		go func() {
			time.Sleep(300 * time.Millisecond)
			_, err := srv.RequestSampling(bare, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
				Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("late")}}, MaxTokens: 10,
			}})
			lateOut <- fmt.Sprint(err)
		}()
		return mcp.NewToolResultText("later"), nil
	})
	srv.AddTool(mcp.NewTool("ask", mcp.WithString("kind")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		kind := req.GetString("kind", "sampling")
		// Off the request's stream: a context with the session and
		// nothing of the POST being answered.
		bare := srv.WithContext(context.Background(), server.ClientSessionFromContext(ctx))
		_ = srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelInfo, "up", "ask-info "+kind))
		_ = srv.SendLogMessageToClient(bare, mcp.NewLoggingMessageNotification(mcp.LoggingLevelWarning, "up", "ask-warning "+kind))
		_ = srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelDebug, "up", "ask-debug "+kind))
		switch kind {
		case "sampling":
			// mcp-go's server always sends sampling on the GET stream.
			res, err := srv.RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
				Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("the answer?")}},
				MaxTokens: 10,
			}})
			if err != nil {
				return mcp.NewToolResultError("sampling failed: " + err.Error()), nil
			}
			return mcp.NewToolResultText(fmt.Sprintf("sampled: %v", res.Content)), nil
		case "elicitation":
			res, err := srv.RequestElicitation(bare, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
				Message:         "name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
			}})
			if err != nil {
				return mcp.NewToolResultError("elicitation failed: " + err.Error()), nil
			}
			return mcp.NewToolResultText(fmt.Sprintf("elicited: %v (%s)", res.Content, res.Action)), nil
		default:
			res, err := srv.RequestRoots(bare, mcp.ListRootsRequest{})
			if err != nil {
				return mcp.NewToolResultError("roots failed: " + err.Error()), nil
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return mcp.NewToolResultText("roots: " + strings.Join(uris, " ")), nil
		}
	})
	ts := httptest.NewServer(server.NewStreamableHTTPServer(srv))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", release, late
}

// logCollector keeps the text of the log notifications a client gets.
type logCollector struct {
	mu    sync.Mutex
	lines []string
}

func (l *logCollector) on(n mcp.JSONRPCNotification) {
	if n.Method != "notifications/message" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprint(n.Params.AdditionalFields["level"], " ", n.Params.AdditionalFields["data"]))
}

func (l *logCollector) got() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

func TestUpstreamSharedGETStream(t *testing.T) {
	t.Parallel()
	url, release, late := getStreamUpstream(t)
	cfg := harness.WriteConfig(t, upstreamYAML(t, fmt.Sprintf(`  - name: gs
    url: %s
    prefix: gs
    limits: {timeout: 20s}
`, url)))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)

	a := &askingClient{}
	ca := harness.AskedClient(t, g.MCPURL, harness.ProtoSessions, a.options()...)
	logs := &logCollector{}
	ca.OnNotification(logs.on)
	if err := ca.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelInfo}}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	// Another client, at the level debug: the shared upstream session is
	// asked for debug, and the gateway filters for each caller.
	other := &askingClient{}
	cb := harness.AskedClient(t, g.MCPURL, harness.ProtoSessions, other.options()...)
	otherLogs := &logCollector{}
	cb.OnNotification(otherLogs.on)
	if err := cb.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}

	// One call in flight: each request on the GET stream reaches its
	// caller, and the answer flows back.
	for _, k := range [][2]string{{"sampling", "forty-two"}, {"elicitation", "name:ada"}, {"roots", "roots: file:///a file:///b"}} {
		kind, want := k[0], k[1]
		text, isErr := harness.CallTool(ctx, t, ca, "gs_ask", map[string]any{"kind": kind})
		if isErr || !strings.Contains(text, want) {
			t.Fatalf("gs_ask %s through the shared HTTP upstream = %q (isError %v), want %q", kind, text, isErr, want)
		}
	}
	if a.samples.Load() != 1 || a.elicits.Load() != 1 || a.roots.Load() != 1 {
		t.Fatalf("the caller was asked %d samplings, %d elicitations, %d roots; want 1 each", a.samples.Load(), a.elicits.Load(), a.roots.Load())
	}
	if other.samples.Load()+other.elicits.Load()+other.roots.Load() != 0 {
		t.Fatal("the other client was asked for a call it did not make")
	}
	// Its log lines at info and above, and none at debug; the other
	// client, which called nothing, none.
	if !harness.WaitFor(10*time.Second, func() bool { return len(logs.got()) >= 6 }) {
		t.Fatalf("the caller got log notifications %q, want info and warning of each call", logs.got())
	}
	for _, l := range logs.got() {
		if strings.Contains(l, "debug") {
			t.Fatalf("the caller, at level info, got a debug line: %q", logs.got())
		}
	}
	if !slices.Contains(logs.got(), "info ask-info sampling") || !slices.Contains(logs.got(), "warning ask-warning roots") {
		t.Fatalf("the caller's log notifications %q lack its calls' lines", logs.got())
	}
	if n := len(otherLogs.got()); n != 0 {
		t.Fatalf("a client that called nothing got %d log lines: %q", n, otherLogs.got())
	}
	// The client at debug gets the debug lines of its own call.
	if text, isErr := harness.CallTool(ctx, t, cb, "gs_ask", map[string]any{"kind": "roots"}); isErr || !strings.Contains(text, "file:///a") {
		t.Fatalf("gs_ask roots by the debug client = %q (isError %v)", text, isErr)
	}
	if !harness.WaitFor(10*time.Second, func() bool { return slices.Contains(otherLogs.got(), "debug ask-debug roots") }) {
		t.Fatalf("the client at level debug got %q, want its call's debug line", otherLogs.got())
	}

	// A 2026-07-28 client's call (which parks) is asked the same way.
	st := &askingClient{}
	cs := harness.AskedClient(t, g.MCPURL, harness.ProtoStateless, st.options()...)
	if text, isErr := harness.CallTool(ctx, t, cs, "gs_ask", map[string]any{"kind": "sampling"}); isErr || !strings.Contains(text, "forty-two") || st.samples.Load() != 1 {
		t.Fatalf("gs_ask sampling by a 2026-07-28 client = %q (isError %v, %d samplings)", text, isErr, st.samples.Load())
	}

	// Two calls in flight: whose sampling it is cannot be told, and it is
	// refused with an error that says so; nobody is asked.
	held := make(chan string, 1)
	go func() {
		res, err := harness.CallToolErr(ctx, cb, "gs_hold", nil)
		if err != nil {
			held <- err.Error()
			return
		}
		held <- harness.ResultText(res)
	}()
	if !harness.WaitFor(10*time.Second, func() bool {
		v, _ := g.Metric(t, "wasmgate_tool_calls_in_flight", map[string]string{"source": "gs"})
		return v == 1
	}) {
		t.Fatal("gs_hold did not start")
	}
	before := a.samples.Load() + other.samples.Load()
	text, isErr := harness.CallTool(ctx, t, ca, "gs_ask", map[string]any{"kind": "sampling"})
	if !isErr || !strings.Contains(text, "wasmgate: cannot tell which caller this sampling request is for: 2 calls in flight on upstream \"gs\"") {
		t.Fatalf("gs_ask sampling with another call in flight = %q (isError %v), want the clear refusal", text, isErr)
	}
	if a.samples.Load()+other.samples.Load() != before {
		t.Fatal("a client was asked although the caller could not be told")
	}
	// A log line on the stream of a call goes to that call's caller, even
	// with another call in flight.
	if !harness.WaitFor(10*time.Second, func() bool { return count(logs.got(), "info ask-info sampling") == 2 }) {
		t.Fatalf("with two calls in flight, the caller got %q, want its call's info line again", logs.got())
	}
	if slices.Contains(otherLogs.got(), "info ask-info sampling") {
		t.Fatalf("the other client got a line of the caller's call: %q", otherLogs.got())
	}
	release()
	if got := <-held; got != "held" {
		t.Fatalf("gs_hold = %q", got)
	}
	if v, _ := g.Metric(t, "wasmgate_upstream_requests_refused_total", map[string]string{"upstream": "gs", "reason": "ambiguous"}); v != 1 {
		t.Fatalf("wasmgate_upstream_requests_refused_total{upstream=gs,reason=ambiguous} = %v, want 1", v)
	}
	if !strings.Contains(g.Stderr(), "cannot tell which caller") {
		t.Fatalf("the refusal is not in the gateway's log:\n%s", g.Stderr())
	}
	// No call in flight: refused too.
	if text, isErr := harness.CallTool(ctx, t, ca, "gs_later", nil); isErr {
		t.Fatalf("gs_later = %q", text)
	}
	if got := <-late; !strings.Contains(got, "wasmgate: cannot tell which caller this sampling request is for: no call in flight on upstream \"gs\"") {
		t.Fatalf("sampling with no call in flight: the upstream got %q, want the clear refusal", got)
	}
	if v, _ := g.Metric(t, "wasmgate_upstream_requests_refused_total", map[string]string{"upstream": "gs", "reason": "no_call"}); v != 1 {
		t.Fatalf("wasmgate_upstream_requests_refused_total{upstream=gs,reason=no_call} = %v, want 1", v)
	}
	// And the session serves on.
	if text, isErr := harness.CallTool(ctx, t, ca, "gs_ask", map[string]any{"kind": "sampling"}); isErr || !strings.Contains(text, "forty-two") {
		t.Fatalf("gs_ask sampling after the refusal = %q (isError %v)", text, isErr)
	}
}

func count(lines []string, want string) int {
	n := 0
	for _, l := range lines {
		if l == want {
			n++
		}
	}
	return n
}
