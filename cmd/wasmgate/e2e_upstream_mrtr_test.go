package main

// An upstream's sampling, elicitation and roots requests for a 2026-07-28
// (stateless) client (issues 17 and 19): the upstream call is parked, the
// client gets input_required with the upstream's request and a signed
// requestState naming the parked call, and its retry with the answer
// resumes the call. The parked call holds no concurrency slot while it
// waits for its client; a replayed, expired or orphaned state is refused.

import (
	"context"
	"encoding/json"
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

func TestUpstreamAsksStatelessClient(t *testing.T) {
	t.Parallel()
	unruly := bins.GoFixture(t, "testdata/upstreams/unruly")
	render := func(server, extra string) []byte {
		return []byte(bins.YAML(harness.Parts{
			Server:  harness.NoWatch + server,
			Plugins: fmt.Sprintf("  - name: calculator\n    path: %s\n", harness.Wasm(t, "examples/plugins/calculator")),
			Sections: fmt.Sprintf(`upstreams:
  - name: asker
    command: [%q]
    session: per_client
    prefix: un
    limits: {timeout: 20s, concurrency: 1}
%s`, unruly, extra),
		}))
	}
	// limits.timeout (20s) covers starting each client's upstream
	// process (session: per_client), which took more than 5s on a loaded
	// machine; no check is about it.
	cfg := harness.WriteConfig(t, string(render("", "")))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 3*time.Minute)
	const want = "sampled: forty-two; elicited: ada (accept)"

	// mcp-go's client, in both eras, with handlers: the 2026-07-28 one
	// answers input_required and retries; the 2025-11-25 one is asked
	// with server-initiated requests on its own upstream session.
	for _, version := range []string{harness.ProtoStateless, harness.ProtoSessions} {
		t.Run(version, func(t *testing.T) {
			a := &askingClient{}
			c := harness.AskedClient(t, g.MCPURL, version, a.options()...)
			if text, isErr := harness.CallTool(ctx, t, c, "un_ask", nil); isErr || text != want {
				t.Fatalf("un_ask = %q (isError %v), want %q", text, isErr, want)
			}
			if e, s := a.elicits.Load(), a.samples.Load(); e != 1 || s != 1 {
				t.Fatalf("the client was asked %d elicitations and %d samplings, want 1 and 1", e, s)
			}
			// roots/list, the third kind of request, the same way.
			if text, isErr := harness.CallTool(ctx, t, c, "un_ask", map[string]any{"kind": "roots"}); isErr || text != "roots: file:///a file:///b" {
				t.Fatalf("un_ask {kind: roots} = %q (isError %v), want the client's two roots", text, isErr)
			}
			if r := a.roots.Load(); r != 1 {
				t.Fatalf("the client was asked for its roots %d times, want 1", r)
			}
			_ = c.Close()
		})
	}
	// Progress of a stateless client's call (which runs as a parkable
	// one) reaches it, with its token.
	pc := g.Client(t)
	var progress atomic.Int64
	var badTok atomic.Value
	pc.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			if tok := fmt.Sprint(n.Params.AdditionalFields["progressToken"]); tok != "mine" {
				badTok.Store(tok)
			}
			progress.Add(1)
		}
	})
	preq := mcp.CallToolRequest{}
	preq.Params.Name = "un_flood"
	preq.Params.Arguments = map[string]any{"kind": "progress", "n": 5}
	preq.Params.Meta = &mcp.Meta{ProgressToken: "mine"}
	if res, err := pc.CallTool(ctx, preq); err != nil || res.IsError {
		t.Fatalf("un_flood for a stateless client: %v %+v", err, res)
	}
	if !harness.WaitFor(10*time.Second, func() bool { return progress.Load() == 5 }) || badTok.Load() != nil {
		t.Fatalf("the stateless client got %d progress notifications (a foreign token: %v), want 5", progress.Load(), badTok.Load())
	}
	if v, _ := g.Metric(t, "wasmgate_tool_calls_total", map[string]string{"tool": "un_ask", "outcome": "input_required"}); v != 3 {
		t.Errorf("un_ask input_required = %v, want 3 (sampling, then elicitation, then roots, of the 2026-07-28 client)", v)
	}

	// By hand: each round, and what a parked call holds.
	raw := func(t *testing.T, params map[string]any) (map[string]any, string) {
		t.Helper()
		body := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
		code, text := harness.PostStateless(t, g.MCPURL, body, "tools/call", params["name"].(string))
		var out map[string]any
		if code != 200 || json.Unmarshal([]byte(text), &out) != nil {
			t.Fatalf("tools/call: %d %.300s", code, text)
		}
		res, _ := out["result"].(map[string]any)
		return res, text
	}
	round := func(t *testing.T, params map[string]any, wantMethod string) string {
		t.Helper()
		res, text := raw(t, params)
		reqs, _ := res["inputRequests"].(map[string]any)
		var method string
		for _, r := range reqs {
			m, _ := r.(map[string]any)
			method, _ = m["method"].(string)
		}
		st, _ := res["requestState"].(string)
		if res["resultType"] != "input_required" || st == "" || len(reqs) != 1 || method != wantMethod {
			t.Fatalf("round: %s, want input_required asking %s", text, wantMethod)
		}
		return st
	}
	call := map[string]any{"name": "un_ask", "arguments": map[string]any{}}
	with := func(state string, answers map[string]any) map[string]any {
		return map[string]any{"name": "un_ask", "arguments": map[string]any{}, "requestState": state, "inputResponses": answers}
	}
	sampled := map[string]any{"wasmgate-0": map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "by hand"}, "model": "m"}}
	elicited := map[string]any{"wasmgate-1": map[string]any{"action": "accept", "content": map[string]any{"name": "grace"}}}
	refused := func(t *testing.T, params map[string]any, wantText string) {
		t.Helper()
		res, text := raw(t, params)
		var msg string
		content, _ := res["content"].([]any)
		for _, c := range content {
			m, _ := c.(map[string]any)
			s, _ := m["text"].(string)
			msg += s
		}
		if res == nil || res["isError"] != true || !strings.Contains(msg, wantText) {
			t.Errorf("%s, want isError containing %q", text, wantText)
		}
	}

	first := round(t, call, "sampling/createMessage")
	// Parked, the call holds none of the upstream's concurrency slots (it
	// waits for its client): another call of the upstream runs (issue 39;
	// the bound on parked calls: TestParkedCallsDoNotStarveOthers).
	sc := g.SessionClient(t)
	if text, isErr := harness.CallTool(ctx, t, sc, "un_hello", nil); isErr || text != "hello" {
		t.Fatalf("un_hello while a call is parked = %q (isError %v), want hello", text, isErr)
	}
	harness.Calc(ctx, t, sc, 1, 2) // the plugin is not held up
	second := round(t, with(first, sampled), "elicitation/create")
	refused(t, with(first, sampled), "already used")
	res, text2 := raw(t, with(second, elicited))
	if res["isError"] == true || !strings.Contains(text2, "sampled: by hand; elicited: grace (accept)") {
		t.Fatalf("the last round: %s", text2)
	}
	// Done: the slot is free again.
	if text, isErr := harness.CallTool(ctx, t, sc, "un_hello", nil); isErr || text != "hello" {
		t.Fatalf("un_hello after the call ended = %q (isError %v)", text, isErr)
	}

	// roots/list by hand: the answer the retry carries is what the
	// upstream gets.
	rootsCall := map[string]any{"name": "un_ask", "arguments": map[string]any{"kind": "roots"}}
	rootsState := round(t, rootsCall, "roots/list")
	res, text2 = raw(t, map[string]any{"name": "un_ask", "arguments": map[string]any{"kind": "roots"}, "requestState": rootsState,
		"inputResponses": map[string]any{"wasmgate-0": map[string]any{"roots": []any{map[string]any{"uri": "file:///by-hand", "name": "h"}}}}})
	if res["isError"] == true || !strings.Contains(text2, "roots: file:///by-hand") {
		t.Fatalf("the roots round: %s", text2)
	}

	// A state whose parked call is gone (a reload started the upstream
	// anew) is refused, saying so.
	orphan := round(t, call, "sampling/createMessage")
	harness.RenameOver(t, cfg, render("", "    env: {RESTARTED: \"1\"}\n"))
	g.MustReload(t, "reload")
	refused(t, with(orphan, sampled), `upstream "asker": the call this requestState continues is not waiting in this gateway process`)

	// Expired: with server.request_state.ttl 1s the parked call ends and
	// its state is refused.
	harness.RenameOver(t, cfg, render("  request_state: {ttl: 1s}\n", "    env: {RESTARTED: \"1\"}\n"))
	g.MustReload(t, "reload")
	expiring := round(t, call, "sampling/createMessage")
	if text, isErr := harness.CallTool(ctx, t, sc, "un_hello", nil); isErr || text != "hello" {
		t.Fatalf("un_hello while a call is parked = %q (isError %v), want hello", text, isErr)
	}
	time.Sleep(2100 * time.Millisecond) // past the TTL, and the state's own expiry (whole seconds)
	refused(t, with(expiring, sampled), "expired")
}

// TestUpstreamAsksClientsHTTP: the same over Streamable HTTP, with
// mcp-go's own server as the upstream, whose elicitation requests come on
// the stream of the call that caused them (its sampling requests come on
// the session's GET stream, which names no call, so they are refused; the
// stdio test above covers sampling). With session: per_client and with
// session: shared, for stateless (2026-07-28) clients, whose calls park,
// and for 2025-11-25 clients with sessions, which are asked directly: two
// clients call at once, three times each, and each gets its own call's
// questions (two a call), never the other's.
func TestUpstreamAsksClientsHTTP(t *testing.T) {
	t.Parallel()
	up := server.NewMCPServer("asker-http", "1.0.0", server.WithToolCapabilities(false))
	up.AddTool(mcp.NewTool("ask", mcp.WithString("who")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		who := req.GetString("who", "")
		var got []any
		for _, q := range []string{"name of ", "town of "} {
			e, err := up.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{Message: q + who,
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}}}})
			if err != nil {
				return mcp.NewToolResultError("elicitation: " + err.Error()), nil
			}
			m, _ := e.Content.(map[string]any)
			got = append(got, m["answer"])
		}
		return mcp.NewToolResultText(fmt.Sprintf("%s: %v", who, got)), nil
	})
	up.AddTool(mcp.NewTool("sample"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, err := up.RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{MaxTokens: 5,
			Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.TextContent{Type: "text", Text: "hi"}}}}})
		if err != nil {
			return mcp.NewToolResultError("sampling: " + err.Error()), nil
		}
		return mcp.NewToolResultText("sampled"), nil
	})
	ts := httptest.NewServer(server.NewStreamableHTTPServer(up))
	defer ts.Close()
	for _, session := range []string{"per_client", "shared"} {
		t.Run(session, func(t *testing.T) {
			cfg := harness.WriteConfig(t, upstreamYAML(t, fmt.Sprintf("  - name: asker\n    url: %s/mcp\n    session: %s\n    prefix: up\n    limits: {timeout: 20s}\n", ts.URL, session)))
			g := bins.Start(t, harness.Options{Config: cfg})
			ctx := harness.Ctx(t, 2*time.Minute)
			for _, version := range []string{harness.ProtoStateless, harness.ProtoSessions} {
				t.Run(version, func(t *testing.T) {
					var wg sync.WaitGroup
					errs := make(chan error, 2)
					for _, who := range []string{"ada", "grace"} {
						wg.Add(1)
						go func() {
							defer wg.Done()
							a := &echoAsker{who: who}
							c := harness.AskedClient(t, g.MCPURL, version, client.WithElicitationHandler(a),
								client.WithClientCapabilities(mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{}}))
							for range 3 {
								res, err := harness.CallToolErr(ctx, c, "up_ask", map[string]any{"who": who})
								want := fmt.Sprintf("%s: [%s's name %s's town]", who, who, who)
								if err != nil || res.IsError || harness.ResultText(res) != want {
									errs <- fmt.Errorf("%s: %v %q, want %q", who, err, harness.ResultText(res), want)
									return
								}
							}
						}()
					}
					wg.Wait()
					close(errs)
					for err := range errs {
						t.Error(err)
					}
				})
			}
			if session == "shared" {
				// mcp-go's server sends sampling on the session's GET
				// stream, on no call's: a shared session gives it to the
				// one call in flight, whose client here cannot sample
				// (TestUpstreamSharedGETStream has one that can).
				c := g.SessionClient(t)
				res, err := harness.CallToolErr(ctx, c, "up_sample", nil)
				if err != nil || !res.IsError || !strings.Contains(harness.ResultText(res), "the downstream client does not support sampling") {
					t.Errorf("up_sample on a shared session: %v %q, want the caller's refusal", err, harness.ResultText(res))
				}
			}
			harness.Calc(ctx, t, g.SessionClient(t), 1, 1)
		})
	}
}

// echoAsker answers an elicitation "name of <who>" or "town of <who>"
// with "<who>'s name" or "<who>'s town", failing one meant for another
// client.
type echoAsker struct{ who string }

func (a *echoAsker) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	what, whom, _ := strings.Cut(req.Params.Message, " of ")
	if whom != a.who {
		return nil, fmt.Errorf("client %s was asked %q", a.who, req.Params.Message)
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
		Content: map[string]any{"answer": a.who + "'s " + what}}}, nil
}

// TestUpstreamEverythingStateless: @modelcontextprotocol/server-everything
// over stdio (session: per_client) asks a 2026-07-28 client for sampling
// and for elicitation through the gateway's parked calls; mcp-go's
// client answers input_required with its handlers.
func TestUpstreamEverythingStateless(t *testing.T) {
	t.Parallel()
	cfg := everythingConfig(t, "session: per_client", "prefix: ev", "limits: {timeout: 60s}")
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)
	s, e := &sampler{}, &elicitor{}
	tr, err := transport.NewStreamableHTTP(g.MCPURL)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithSamplingHandler(s), client.WithElicitationHandler(e),
		client.WithClientCapabilities(mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}, Elicitation: &mcp.ElicitationCapability{}}))
	harness.Init(t, c, harness.ProtoStateless)
	if text, isErr := harness.CallTool(ctx, t, c, "ev_trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 10}); isErr || !strings.Contains(text, "sampled by the downstream client") {
		t.Fatalf("sampling for a stateless client = %q (isError %v)", text, isErr)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "ev_trigger-elicitation-request", nil); isErr || !strings.Contains(text, "Ada Lovelace") {
		t.Fatalf("elicitation for a stateless client = %q (isError %v)", text, isErr)
	}
	if s.n.Load() != 1 || e.n.Load() != 1 {
		t.Fatalf("the client was asked %d samplings and %d elicitations, want 1 and 1", s.n.Load(), e.n.Load())
	}
	if v, _ := g.Metric(t, "wasmgate_tool_calls_total", map[string]string{"tool": "ev_trigger-sampling-request", "outcome": "input_required"}); v != 1 {
		t.Errorf("ev_trigger-sampling-request input_required = %v, want 1", v)
	}
	harness.Calc(ctx, t, c, 2, 2)
}

// TestUpstreamAmbiguousRequestRefused: over stdio a server's request does
// not say whose call it is. Stateless (2026-07-28) clients have no
// downstream session, so their calls to a per_client upstream share one
// upstream session. With one such call parked (waiting for its answer)
// and a second running,
// the second call's sampling request is refused, saying why, rather
// than sent to the first call's client; the parked call still completes
// with its own client's answers.
func TestUpstreamAmbiguousRequestRefused(t *testing.T) {
	t.Parallel()
	unruly := bins.GoFixture(t, "testdata/upstreams/unruly")
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server: harness.NoWatch,
		Sections: fmt.Sprintf(`upstreams:
  - name: asker
    command: [%q]
    session: per_client
    prefix: un
    limits: {timeout: 20s, concurrency: 4}
`, unruly),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	call := func(params map[string]any) map[string]any {
		t.Helper()
		body := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
		code, text := harness.PostStateless(t, g.MCPURL, body, "tools/call", params["name"].(string))
		var out struct {
			Result map[string]any `json:"result"`
		}
		if code != 200 || json.Unmarshal([]byte(text), &out) != nil || out.Result == nil {
			t.Fatalf("tools/call: %d %.300s", code, text)
		}
		return out.Result
	}
	first := call(map[string]any{"name": "un_ask"})
	if first["resultType"] != "input_required" {
		t.Fatalf("the first call: %v, want input_required (parked, waiting for its client)", first)
	}
	second := call(map[string]any{"name": "un_ask"})
	text, _ := json.Marshal(second["content"])
	if second["isError"] != true || !strings.Contains(string(text), "does not say whose call it is") {
		t.Fatalf("the second call while the first is parked: %v, want isError saying the request cannot be attributed", second)
	}
	// The first call's client answers; its call goes on (elicitation next).
	state, _ := first["requestState"].(string)
	next := call(map[string]any{"name": "un_ask", "requestState": state, "inputResponses": map[string]any{
		"wasmgate-0": map[string]any{"role": "assistant", "model": "m", "content": map[string]any{"type": "text", "text": "forty-two"}},
	}})
	if next["resultType"] != "input_required" {
		t.Fatalf("the first call after its answer: %v, want its next request (elicitation)", next)
	}
}
