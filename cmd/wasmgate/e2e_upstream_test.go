package main

// Upstream MCP servers (issue 17): @modelcontextprotocol/server-everything,
// a server nobody here wrote, installed from the npm registry
// (tests/node), served behind the gateway over stdio and over its
// Streamable HTTP mode, driven by mcp-go's client.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// everything is the node binary and server-everything's entry point,
// failing (not skipping: CI installs them) when they are not there.
func everything(t *testing.T) (node, script string) {
	t.Helper()
	return harness.NodeServer(t, "@modelcontextprotocol/server-everything")
}

// everythingHTTP starts server-everything in its Streamable HTTP mode
// on a free port, stopped when t ends, and returns its MCP endpoint's
// URL once it listens (within 30s, else t fails).
func everythingHTTP(t *testing.T) string {
	t.Helper()
	node, script := everything(t)
	port := strings.TrimPrefix(harness.FreePort(t), "127.0.0.1:")
	srv := exec.Command(node, script, "streamableHttp")
	srv.Env = append(harness.CleanEnv(), "PORT="+port)
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	if !harness.WaitFor(30*time.Second, func() bool {
		conn, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			conn.Close()
		}
		return err == nil
	}) {
		t.Fatal("server-everything did not start listening")
	}
	return "http://127.0.0.1:" + port + "/mcp"
}

// everythingConfig writes a config (upstreamYAML) serving
// server-everything over stdio as upstream "every", lines (such as
// "prefix: ev") added to its item, and returns its path.
func everythingConfig(t *testing.T, lines ...string) string {
	t.Helper()
	node, script := everything(t)
	item := fmt.Sprintf("  - name: every\n    command: [%q, %q, stdio]\n", node, script)
	for _, l := range lines {
		item += "    " + l + "\n"
	}
	return harness.WriteConfig(t, upstreamYAML(t, item))
}

// upstreamYAML is a gateway serving the calculator plugin and the
// upstreams items.
func upstreamYAML(t *testing.T, items string) string {
	return bins.YAML(harness.Parts{
		Plugins:  fmt.Sprintf("  - name: calculator\n    path: %s\n", harness.Wasm(t, "examples/plugins/calculator")),
		Sections: "upstreams:\n" + items,
	})
}

func toolNames(ctx context.Context, t *testing.T, c *client.Client) []string {
	t.Helper()
	return harness.Tools(ctx, t, c)
}

func TestUpstreamEverythingStdio(t *testing.T) {
	t.Parallel()
	cfg := everythingConfig(t, "prefix: ev", "limits: {timeout: 60s}")
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 90*time.Second)
	c := g.SessionClient(t)
	testEverything(ctx, t, g, c, true)
}

func TestUpstreamEverythingStreamableHTTP(t *testing.T) {
	t.Parallel()
	url := everythingHTTP(t)
	cfg := harness.WriteConfig(t, upstreamYAML(t, fmt.Sprintf(`  - name: every
    url: %s
    headers: {X-Test: upstream}
    prefix: ev
    limits: {timeout: 60s}
`, url)))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 90*time.Second)
	c := g.SessionClient(t)
	testEverything(ctx, t, g, c, true)

	// Sampling and elicitation over the shared HTTP session: the request
	// server-everything sends on the call's stream reaches the client
	// whose call it is, and only that one.
	connect := func(opts ...client.ClientOption) *client.Client { return listeningClient(t, g, opts...) }
	a, other := &sampler{}, &sampler{}
	el := &elicitor{}
	ca := connect(client.WithSamplingHandler(a), client.WithElicitationHandler(el))
	connect(client.WithSamplingHandler(other))
	text, isErr := harness.CallTool(ctx, t, ca, "ev_trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 10})
	if isErr || !strings.Contains(text, "sampled by the downstream client") {
		t.Fatalf("sampling through the HTTP upstream = %q (isError %v)", text, isErr)
	}
	if a.n.Load() != 1 || other.n.Load() != 0 {
		t.Fatalf("sampling requests: caller %d, other client %d; want 1, 0", a.n.Load(), other.n.Load())
	}
	if text, isErr := harness.CallTool(ctx, t, ca, "ev_trigger-elicitation-request", nil); isErr || el.n.Load() != 1 || !strings.Contains(text, "Ada Lovelace") {
		t.Fatalf("elicitation through the HTTP upstream = %q (isError %v, %d requests)", text, isErr, el.n.Load())
	}
}

// listeningClient is a 2025-11-25 session client of g with opts (its
// handlers) that keeps a GET stream open, on which server requests and
// notifications come between its calls.
func listeningClient(t *testing.T, g *harness.Gateway, opts ...client.ClientOption) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(g.MCPURL, transport.WithContinuousListening())
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, opts...)
	harness.Init(t, c, harness.ProtoSessions)
	return c
}

// testEverything drives server-everything through the gateway: tools
// under the prefix, a call, progress of a long-running tool, a resource
// read, a subscription's update, a prompt, a completion.
func testEverything(ctx context.Context, t *testing.T, g *harness.Gateway, c *client.Client, subscription bool) {
	t.Helper()
	tools := toolNames(ctx, t, c)
	for _, want := range []string{"ev_echo", "ev_get-sum", "ev_trigger-long-running-operation", "calculate"} {
		if !slices.Contains(tools, want) {
			t.Fatalf("tools/list lacks %q: %v", want, tools)
		}
	}
	if text, isErr := harness.CallTool(ctx, t, c, "ev_echo", map[string]any{"message": "hello upstream"}); isErr || !strings.Contains(text, "hello upstream") {
		t.Fatalf("ev_echo = %q (isError %v)", text, isErr)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "ev_get-sum", map[string]any{"a": 2, "b": 40}); isErr || !strings.Contains(text, "42") {
		t.Fatalf("ev_get-sum = %q (isError %v)", text, isErr)
	}
	harness.Calc(ctx, t, c, 2, 3) // the plugin beside it

	// Structured content passes through.
	sc, err := harness.CallToolErr(ctx, c, "ev_get-structured-content", map[string]any{"location": "New York"})
	if err != nil || sc.IsError || sc.StructuredContent == nil {
		t.Fatalf("ev_get-structured-content: %v %+v", err, sc)
	}

	// Progress of a long-running operation reaches this client, with its
	// own token.
	var progress atomic.Int64
	var badToken atomic.Value
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method != string(mcp.MethodNotificationProgress) {
			return
		}
		if tok := fmt.Sprint(n.Params.AdditionalFields["progressToken"]); tok != "tok-1" {
			badToken.Store(tok)
		}
		progress.Add(1)
	})
	req := mcp.CallToolRequest{}
	req.Params.Name = "ev_trigger-long-running-operation"
	req.Params.Arguments = map[string]any{"duration": 1, "steps": 3}
	req.Params.Meta = &mcp.Meta{ProgressToken: "tok-1"}
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("long-running operation: %v %+v", err, res)
	}
	if !harness.WaitFor(10*time.Second, func() bool { return progress.Load() >= 3 }) {
		t.Fatalf("%d progress notifications reached the client, want 3", progress.Load())
	}
	if v := badToken.Load(); v != nil {
		t.Fatalf("a progress notification carried token %v, not the client's", v)
	}

	// A resource (template) read: the URI under the prefix.
	uri := "demo://ev/resource/dynamic/text/1"
	contents := harness.ReadResource(ctx, t, c, uri)
	if len(contents) != 1 {
		t.Fatalf("read %s: %d contents", uri, len(contents))
	}
	tc, ok := contents[0].(mcp.TextResourceContents)
	if !ok || tc.URI != uri || !strings.Contains(tc.Text, "Resource 1") {
		t.Fatalf("read %s: %+v", uri, contents[0])
	}

	// A prompt and a completion of its argument.
	pr, err := harness.GetPrompt(ctx, c, "ev_simple-prompt", nil)
	if err != nil || len(pr.Messages) == 0 {
		t.Fatalf("ev_simple-prompt: %v %+v", err, pr)
	}
	creq := mcp.CompleteRequest{}
	creq.Params.Ref = mcp.PromptReference{Type: "ref/prompt", Name: "ev_completable-prompt"}
	creq.Params.Argument = mcp.CompleteArgument{Name: "department", Value: "Eng"}
	cres, err := c.Complete(ctx, creq)
	if err != nil || !slices.Contains(cres.Completion.Values, "Engineering") {
		t.Fatalf("completion of department: %v %+v", err, cres)
	}

	if subscription {
		testSubscription(ctx, t, c, uri)
	}

	// The status page lists the upstream, up.
	code, body := harness.HTTPGet(t, g.AdminURL+"/api/status")
	if code != 200 || !strings.Contains(body, `"kind": "upstream"`) || !strings.Contains(body, `"up": true`) {
		t.Fatalf("/api/status (%d) does not show the upstream up:\n%s", code, body)
	}
	if v, ok := g.Metric(t, "wasmgate_upstream_up", map[string]string{"upstream": "every"}); !ok || v != 1 {
		t.Fatalf("wasmgate_upstream_up{upstream=every} = %v (%v), want 1", v, ok)
	}
}

func testSubscription(ctx context.Context, t *testing.T, c *client.Client, uri string) {
	t.Helper()
	// A subscription: resources/updated of the upstream reaches the
	// subscribed client under the exposed URI.
	var updated atomic.Value
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationResourceUpdated) {
			updated.Store(fmt.Sprint(n.Params.AdditionalFields["uri"]))
		}
	})
	sreq := mcp.SubscribeRequest{}
	sreq.Params.URI = uri
	if err := c.Subscribe(ctx, sreq); err != nil {
		t.Fatalf("subscribe %s: %v", uri, err)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "ev_toggle-subscriber-updates", nil); isErr {
		t.Fatalf("toggle-subscriber-updates: %s", text)
	}
	// The client has no GET stream: a notification that reaches its
	// session between its requests comes with the next one's answer, so
	// it pings meanwhile.
	if !harness.WaitFor(30*time.Second, func() bool {
		_ = c.Ping(ctx)
		return updated.Load() == uri
	}) {
		t.Fatalf("no notifications/resources/updated for %s reached the client (got %v)", uri, updated.Load())
	}

}

// childrenOf are the pids whose parent is pid.
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		var p int
		if _, err := fmt.Sscanf(e.Name(), "%d", &p); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		rest := s[strings.LastIndexByte(s, ')')+1:]
		var state string
		var ppid int
		if _, err := fmt.Sscanf(rest, " %s %d", &state, &ppid); err == nil && ppid == pid && state != "Z" {
			out = append(out, p)
		}
	}
	return out
}

// TestUpstreamKilledMidLoad kills the stdio server while calls run: only
// the call in flight on it fails, with an isError naming the upstream;
// the server is started again and calls succeed; the plugin beside it
// never fails.
func TestUpstreamKilledMidLoad(t *testing.T) {
	t.Parallel()
	cfg := everythingConfig(t, "limits: {timeout: 60s}")
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 120*time.Second)
	c := g.SessionClient(t)
	kids := childrenOf(t, g.Cmd.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("the gateway has %d child processes, want 1 (the upstream): %v", len(kids), kids)
	}

	// throughout runs call over and over until stop closes.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	throughout := func(call func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				call()
			}
		}()
	}
	// The plugin is called throughout.
	var pluginFails, pluginCalls atomic.Int64
	throughout(func() {
		res, err := harness.CallToolErr(ctx, c, "calculate", map[string]any{"operation": "add", "a": 1, "b": 2})
		pluginCalls.Add(1)
		if err != nil || res.IsError {
			pluginFails.Add(1)
		}
	})

	inflight := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := harness.CallToolErr(ctx, c, "trigger-long-running-operation", map[string]any{"duration": 20, "steps": 20})
		if err != nil {
			res = mcp.NewToolResultError("protocol error: " + err.Error())
		}
		inflight <- res
	}()
	// Four clients call the upstream itself throughout too. A call that
	// started before the kill may fail (it was in flight), one a client
	// at most; one started a second after it must not (it waits for the
	// restart). One started in between may still reach the dying
	// process, as a call in flight.
	type upCall struct {
		began time.Time
		err   string
	}
	upFails := make(chan upCall, 1024)
	var upCalls atomic.Int64
	for range 4 {
		uc := g.SessionClient(t)
		throughout(func() {
			began := time.Now()
			res, err := harness.CallToolErr(ctx, uc, "echo", map[string]any{"message": "load"})
			upCalls.Add(1)
			if err != nil || res.IsError {
				msg := ""
				if err != nil {
					msg = err.Error()
				} else {
					msg = harness.ResultText(res)
				}
				select {
				case upFails <- upCall{began, msg}:
				default:
				}
			}
		})
	}
	time.Sleep(500 * time.Millisecond) // let the long call reach the server; the kill below is what the test is about
	if err := syscall.Kill(kids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	// Its tools stay listed while it restarts.
	if tools := toolNames(ctx, t, g.SessionClient(t)); !slices.Contains(tools, "echo") {
		t.Fatalf("tools listed while the upstream restarts: %v, want its tools still there", tools)
	}
	res := <-inflight
	if !res.IsError || !strings.Contains(harness.ResultText(res), `upstream "every" exited`) {
		t.Fatalf("the call in flight when the server was killed: isError %v, %q; want an isError naming the upstream", res.IsError, harness.ResultText(res))
	}
	// Started again: calls succeed (the first waits for the restart).
	if text, isErr := harness.CallTool(ctx, t, c, "echo", map[string]any{"message": "back"}); isErr || !strings.Contains(text, "back") {
		t.Fatalf("echo after the restart = %q (isError %v)", text, isErr)
	}
	time.Sleep(2 * time.Second) // load on the restarted server
	close(stop)
	wg.Wait()
	if n := pluginFails.Load(); n != 0 {
		t.Fatalf("%d of %d plugin calls failed while the upstream restarted", n, pluginCalls.Load())
	}
	close(upFails)
	before := 0
	for f := range upFails {
		switch {
		case f.began.Before(killed):
			before++
			if !strings.Contains(f.err, `upstream "every"`) {
				t.Errorf("a call in flight at the kill failed with %q, want an error naming the upstream", f.err)
			}
		case f.began.After(killed.Add(time.Second)):
			t.Errorf("a call started %s after the kill failed: %s", f.began.Sub(killed), f.err)
		}
	}
	if before > 4 {
		t.Errorf("%d upstream calls started before the kill failed, more than the 4 that were in flight", before)
	}
	if upCalls.Load() < 20 {
		t.Fatalf("only %d upstream calls ran", upCalls.Load())
	}
	if v := g.Scrape(t).Sum("wasmgate_upstream_restarts_total", map[string]string{"upstream": "every"}); v < 1 {
		t.Fatalf("wasmgate_upstream_restarts_total = %v, want >= 1", v)
	}
	if kids2 := childrenOf(t, g.Cmd.Process.Pid); len(kids2) != 1 || kids2[0] == kids[0] {
		t.Fatalf("after the restart the gateway's children are %v (was %v)", kids2, kids)
	}
	// SIGTERM stops every child.
	child := childrenOf(t, g.Cmd.Process.Pid)[0]
	if err := g.Stop(t); err != nil {
		t.Logf("stop: %v", err)
	}
	if !harness.WaitFor(10*time.Second, func() bool { return syscall.Kill(child, 0) != nil }) {
		t.Fatalf("the upstream process %d survived the gateway's SIGTERM", child)
	}
}

// TestUpstreamBadServers: a server that never answers initialize, one
// that prints garbage on stdout, one that exits, a remote one answering
// 401: each reload adding one fails with an error naming the upstream and
// saying what failed, and the plugin keeps serving.
func TestUpstreamBadServers(t *testing.T) {
	t.Parallel()
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="test"`)
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer unauthorized.Close()
	base := bins.YAML(harness.Parts{ // no watcher: each save is reloaded by the POST alone
		Server:  harness.NoWatch,
		Plugins: fmt.Sprintf("  - name: calculator\n    path: %s\n", harness.Wasm(t, "examples/plugins/calculator")),
	})
	cfg := harness.WriteConfig(t, base)
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{"UPSTREAM_TOKEN=sekrit-token-123"}})
	ctx := harness.Ctx(t, 120*time.Second)
	c := g.SessionClient(t)
	for _, tc := range []struct{ name, item, want string }{
		{"silent", `  - name: silent
    command: [/bin/sh, -c, "cat > /dev/null"]
    limits: {start_timeout: 2s}
`, `upstreams[0]: upstream "silent": did not answer initialize within 2s (limits.start_timeout)`},
		// The garbage line is reported when start_timeout ends: 10s, so
		// that a loaded machine has read it by then.
		{"garbage", `  - name: garbage
    command: [/bin/sh, -c, "echo this is not json; cat > /dev/null"]
    limits: {start_timeout: 10s}
`, `it wrote a line that is not JSON-RPC: "this is not json"`},
		{"exits", `  - name: exits
    command: [/bin/sh, -c, "echo boom >&2; exit 3"]
`, `upstream "exits": exited before it answered initialize (exited: exit status 3)`},
		{"refused", fmt.Sprintf(`  - name: refused
    url: %s/mcp
    auth: {bearer_env: UPSTREAM_TOKEN}
`, unauthorized.URL), `upstream "refused": ` + unauthorized.URL + `/mcp refused the gateway's credentials`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			harness.RenameOver(t, cfg, []byte(base+"upstreams:\n"+tc.item))
			code, body := g.PostReload(t)
			if code != http.StatusInternalServerError || !strings.Contains(body, tc.want) {
				t.Fatalf("reload (%d) does not say %q:\n%s", code, tc.want, body)
			}
			if strings.Contains(g.Stderr(), "sekrit-token-123") {
				t.Fatal("the upstream's token reached the log")
			}
			harness.Calc(ctx, t, c, 20, 22)
			if tools := toolNames(ctx, t, c); len(tools) != 1 {
				t.Fatalf("tools after a failed reload: %v", tools)
			}
		})
	}
}

// TestUpstreamFrontingWasmgate: a gateway fronts another wasmgate over
// HTTP. The backend accepts only the front gateway's own token (auth
// bearer_env), never the clients': the clients' tokens are not
// forwarded. Policy on the front denies one upstream tool to one
// principal and allows it to another.
func TestUpstreamFrontingWasmgate(t *testing.T) {
	t.Parallel()
	backTok, opsTok, devTok := newToken(t), newToken(t), newToken(t)
	secrets := harness.Secrets{backTok, opsTok, devTok}
	back := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins: harness.ExamplePlugins(t),
		Sections: `auth:
  principals:
    - {name: front, token_env: BACK_TOKEN}
`,
	})), Env: []string{"BACK_TOKEN=" + backTok}})
	front := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins: "  []\n",
		Sections: fmt.Sprintf(`auth:
  principals:
    - {name: ops, token_env: OPS_TOKEN}
    - {name: dev, token_env: DEV_TOKEN}
policy:
  reveal_hidden: true # the test reads the refusal
  default: deny
  rules:
    - principals: [ops]
      allow: {tools: ["*"]}
      rate_limit: {rate: 3/m, burst: 3}
    - principals: [dev]
      allow: {tools: ["back_say_hello"]}
      when: 'args.name == "Ada"'
upstreams:
  - name: back
    url: %s
    prefix: back
    auth: {bearer_env: BACK_TOKEN}
`, back.MCPURL),
	})), Env: []string{"BACK_TOKEN=" + backTok, "OPS_TOKEN=" + opsTok, "DEV_TOKEN=" + devTok}})
	secrets.Watch(t, front)
	secrets.Watch(t, back)
	ctx := harness.Ctx(t, 2*time.Minute)
	ops := front.SessionClient(t, withToken(opsTok))
	dev := front.SessionClient(t, withToken(devTok))

	harness.CalcTool(ctx, t, ops, "back_calculate", 20, 22)
	text, isErr := harness.CallTool(ctx, t, dev, "back_calculate", map[string]any{"operation": "add", "a": 1, "b": 1})
	if !isErr || !strings.Contains(text, deniedByPolicy) {
		t.Fatalf("dev's back_calculate = %q (isError %v), want %s", text, isErr, deniedByPolicy)
	}
	if text, isErr := harness.CallTool(ctx, t, dev, "back_say_hello", map[string]any{"name": "Ada"}); isErr || !strings.Contains(text, "Ada") {
		t.Fatalf("dev's back_say_hello = %q (isError %v)", text, isErr)
	}
	// CEL on the upstream tool's arguments, as on a plugin's.
	if text, isErr := harness.CallTool(ctx, t, dev, "back_say_hello", map[string]any{"name": "Bob"}); !isErr || !strings.Contains(text, deniedByPolicy) {
		t.Fatalf("dev's back_say_hello for Bob = %q (isError %v), want %s (the rule's when)", text, isErr, deniedByPolicy)
	}
	// ops's rule allows 3 calls a minute: the fourth is refused.
	harness.CalcTool(ctx, t, ops, "back_calculate", 1, 2)
	harness.CalcTool(ctx, t, ops, "back_calculate", 3, 4)
	if text, isErr := harness.CallTool(ctx, t, ops, "back_calculate", map[string]any{"operation": "add", "a": 1, "b": 1}); !isErr || !strings.Contains(text, "is rate limited: retry in") {
		t.Fatalf("ops's fourth back_calculate in a minute = %q (isError %v), want rate limited", text, isErr)
	}
	// The front gateway's own audit lines name its callers and outcomes.
	// The audit line of the last call may be written just after its
	// answer: wait for it.
	if _, ok := front.WaitLog(0, "outcome=rate_limited", 10*time.Second); !ok {
		t.Fatalf("the front gateway's audit lines lack outcome=rate_limited:\n%s", front.Stderr())
	}
	for _, want := range []string{"principal=ops", "name=back_calculate", "principal=dev", "outcome=denied"} {
		if !strings.Contains(front.Stderr(), want) {
			t.Fatalf("the front gateway's audit lines lack %s:\n%s", want, front.Stderr())
		}
	}
	// The backend saw the front gateway's principal only.
	if !strings.Contains(back.Stderr(), "principal=front") || strings.Contains(back.Stderr(), "principal=anonymous") {
		t.Fatalf("the backend's audit lines do not name the front gateway alone as the caller:\n%s", back.Stderr())
	}
	if v := front.Scrape(t).Sum("wasmgate_tool_calls_total", map[string]string{"source": "back", "outcome": "ok"}); v < 2 {
		t.Fatalf("wasmgate_tool_calls_total{source=back,outcome=ok} = %v, want >= 2", v)
	}
}

// sampler answers sampling/createMessage with a fixed text, counting the
// requests.
type sampler struct{ n atomic.Int64 }

func (s *sampler) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	s.n.Add(1)
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent("sampled by the downstream client")},
		Model:           "test-model",
	}, nil
}

// elicitor accepts every elicitation with a name.
type elicitor struct{ n atomic.Int64 }

func (e *elicitor) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	e.n.Add(1)
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
		Content: map[string]any{"name": "Ada Lovelace", "check": true, "firstLine": "x", "email": "ada@example.com", "integer": 1, "number": 1.5, "untitledSingleSelectEnum": "option1"}}}, nil
}

// TestUpstreamPerClientSampling: with session: per_client each downstream
// session has its own server-everything process; its sampling and
// elicitation requests reach the client whose call caused them, and only
// that one.
func TestUpstreamPerClientSampling(t *testing.T) {
	t.Parallel()
	cfg := everythingConfig(t, "session: per_client", "limits: {timeout: 60s}")
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 120*time.Second)
	connect := func(opts ...client.ClientOption) *client.Client { return listeningClient(t, g, opts...) }
	a, b := &sampler{}, &sampler{}
	el := &elicitor{}
	ca := connect(client.WithSamplingHandler(a), client.WithElicitationHandler(el))
	cb := connect(client.WithSamplingHandler(b))
	plain := connect()

	if !slices.Contains(toolNames(ctx, t, ca), "trigger-sampling-request") {
		t.Fatalf("trigger-sampling-request is not listed: %v", toolNames(ctx, t, ca))
	}
	text, isErr := harness.CallTool(ctx, t, ca, "trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 10})
	if isErr || !strings.Contains(text, "sampled by the downstream client") {
		t.Fatalf("sampling through client a = %q (isError %v)", text, isErr)
	}
	if a.n.Load() != 1 || b.n.Load() != 0 {
		t.Fatalf("sampling requests: a %d, b %d; want 1, 0 (only the caller is asked)", a.n.Load(), b.n.Load())
	}
	if text, isErr := harness.CallTool(ctx, t, cb, "trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 10}); isErr || !strings.Contains(text, "sampled") || b.n.Load() != 1 || a.n.Load() != 1 {
		t.Fatalf("sampling through client b = %q (isError %v); a %d, b %d", text, isErr, a.n.Load(), b.n.Load())
	}
	// A client that cannot sample gets a clear refusal.
	if text, isErr := harness.CallTool(ctx, t, plain, "trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 10}); !isErr || !strings.Contains(text, "does not support sampling") {
		t.Fatalf("sampling through a client without the capability = %q (isError %v)", text, isErr)
	}
	// Elicitation reaches client a.
	if text, isErr := harness.CallTool(ctx, t, ca, "trigger-elicitation-request", nil); isErr || el.n.Load() != 1 || !strings.Contains(text, "Ada Lovelace") {
		t.Fatalf("elicitation through client a = %q (isError %v, %d requests)", text, isErr, el.n.Load())
	}
	// Each client has its own process; one that leaves has its closed.
	kids := childrenOf(t, g.Cmd.Process.Pid)
	if len(kids) != 4 { // the gateway's own session and three clients'
		t.Fatalf("%d upstream processes, want 4 (the shared lister and one per client): %v", len(kids), kids)
	}
	if err := cb.Close(); err != nil {
		t.Fatal(err)
	}
	if !harness.WaitFor(20*time.Second, func() bool { return len(childrenOf(t, g.Cmd.Process.Pid)) == 3 }) {
		t.Fatalf("the closed session's upstream process is still running: %v", childrenOf(t, g.Cmd.Process.Pid))
	}
}

// TestUpstreamReloadStorm adds and removes an upstream in a storm of
// reloads while clients call a plugin and an unchanged upstream: no call
// fails, the unchanged upstream keeps its process (reused, not
// restarted), and a removed upstream's process is stopped.
func TestUpstreamReloadStorm(t *testing.T) {
	t.Parallel()
	node, script := everything(t)
	calc := harness.Wasm(t, "examples/plugins/calculator")
	item := func(name string) string {
		return fmt.Sprintf("  - name: %s\n    command: [%q, %q, stdio]\n    prefix: %s\n    limits: {timeout: 60s}\n", name, node, script, name)
	}
	render := func(churn bool) []byte {
		ups := item("keep")
		if churn {
			ups += item("churn")
		}
		return []byte(bins.YAML(harness.Parts{
			Server:   harness.NoWatch,
			Plugins:  fmt.Sprintf("  - name: calculator\n    path: %s\n", calc),
			Sections: "upstreams:\n" + ups,
		}))
	}
	cfg := harness.WriteConfig(t, string(render(false)))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 4*time.Minute)
	kids := childrenOf(t, g.Cmd.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("children %v, want the one upstream", kids)
	}

	stop := make(chan struct{})
	var calls, fails atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for i := range 4 {
		c := g.SessionClient(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				var res *mcp.CallToolResult
				var err error
				if i == 0 && n%4 == 0 {
					res, err = harness.CallToolErr(ctx, c, "keep_echo", map[string]any{"message": "still here"})
				} else {
					res, err = harness.CallToolErr(ctx, c, "calculate", map[string]any{"operation": "add", "a": n, "b": 1})
				}
				calls.Add(1)
				if err != nil || res.IsError {
					fails.Add(1)
					if err == nil {
						err = fmt.Errorf("isError: %s", harness.ResultText(res))
					}
					firstErr.CompareAndSwap(nil, err)
				}
			}
		}()
	}
	for i := range 10 {
		harness.WriteFile(t, cfg, render(i%2 == 0))
		if code, body := g.PostReload(t); code != 200 {
			t.Fatalf("reload %d: %d %s", i, code, body)
		}
	}
	close(stop)
	wg.Wait()
	if n := fails.Load(); n != 0 {
		t.Fatalf("%d of %d calls failed during the reload storm; the first: %v", n, calls.Load(), firstErr.Load())
	}
	if calls.Load() < 50 {
		t.Fatalf("only %d calls ran during the storm", calls.Load())
	}
	// The last config has no churn: only keep's process is left, the
	// same one as at the start.
	if !harness.WaitFor(20*time.Second, func() bool {
		k := childrenOf(t, g.Cmd.Process.Pid)
		return len(k) == 1 && k[0] == kids[0]
	}) {
		t.Fatalf("children after the storm %v, want only the unchanged upstream's %v", childrenOf(t, g.Cmd.Process.Pid), kids)
	}
	if v, _ := g.Metric(t, "wasmgate_upstream_restarts_total", map[string]string{"upstream": "keep"}); v != 0 {
		t.Fatalf("the unchanged upstream restarted %v times", v)
	}
}

// TestUpstreamRemovedDrains: a save that removes an upstream withdraws
// its tools at once, lets the call running on it finish (its result
// reaches the client), and stops its process once that call is done.
func TestUpstreamRemovedDrains(t *testing.T) {
	t.Parallel()
	node, script := everything(t)
	calc := harness.Wasm(t, "examples/plugins/calculator")
	render := func(with bool) []byte {
		ups := ""
		if with {
			ups = fmt.Sprintf("upstreams:\n  - name: gone\n    command: [%q, %q, stdio]\n    prefix: gone\n    limits: {timeout: 60s}\n", node, script)
		}
		return []byte(bins.YAML(harness.Parts{
			Server:   harness.NoWatch,
			Plugins:  fmt.Sprintf("  - name: calculator\n    path: %s\n", calc),
			Sections: ups,
		}))
	}
	cfg := harness.WriteConfig(t, string(render(true)))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)
	kids := childrenOf(t, g.Cmd.Process.Pid)
	if len(kids) != 1 {
		t.Fatalf("children %v, want the one upstream", kids)
	}
	c := g.SessionClient(t)
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	began := time.Now()
	go func() {
		res, err := harness.CallToolErr(ctx, c, "gone_trigger-long-running-operation", map[string]any{"duration": 6, "steps": 3})
		done <- answer{res, err}
	}()
	time.Sleep(time.Second) // the call is running on the upstream
	harness.WriteFile(t, cfg, render(false))
	g.MustReload(t, "reload")
	other := g.SessionClient(t)
	for _, name := range toolNames(ctx, t, other) {
		if strings.HasPrefix(name, "gone_") {
			t.Fatalf("tool %s still listed after its upstream was removed", name)
		}
	}
	harness.Calc(ctx, t, other, 2, 3)
	if k := childrenOf(t, g.Cmd.Process.Pid); len(k) != 1 || k[0] != kids[0] {
		t.Fatalf("children while the removed upstream's call runs: %v, want its process %v still running", k, kids)
	}
	a := <-done
	if a.err != nil || a.res.IsError || !strings.Contains(harness.ResultText(a.res), "completed") {
		t.Fatalf("the call running on the removed upstream: %v %+v", a.err, a.res)
	}
	if took := time.Since(began); took < 5*time.Second {
		t.Fatalf("the 6 s operation answered after %s", took)
	}
	if !harness.WaitFor(20*time.Second, func() bool { return len(childrenOf(t, g.Cmd.Process.Pid)) == 0 }) {
		t.Fatalf("children after the drained call: %v, want none", childrenOf(t, g.Cmd.Process.Pid))
	}
}

// TestUpstreamStatusPage: the status page lists an upstream with its
// health; one that cannot connect (start: background) shows down with its
// last error while the rest serves.
func TestUpstreamStatusPage(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, upstreamYAML(t, `  - name: later
    command: [/bin/sh, -c, "echo starting >&2; exit 7"]
    start: background
    limits: {start_timeout: 10s}
`))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 60*time.Second)
	harness.Calc(ctx, t, g.SessionClient(t), 1, 2)
	var body string
	if !harness.WaitFor(30*time.Second, func() bool {
		_, body = harness.HTTPGet(t, g.AdminURL+"/")
		return strings.Contains(body, "exit status 7")
	}) {
		t.Fatalf("the status page does not show the upstream's last error:\n%s", body)
	}
	if !strings.Contains(body, `<span class="bad">down</span>`) || !strings.Contains(body, "later") {
		t.Fatalf("the status page does not show the upstream down:\n%s", body)
	}
	if v, ok := g.Metric(t, "wasmgate_upstream_up", map[string]string{"upstream": "later"}); !ok || v != 0 {
		t.Fatalf("wasmgate_upstream_up{upstream=later} = %v (%v), want 0", v, ok)
	}
	if !harness.WaitFor(30*time.Second, func() bool {
		return g.Scrape(t).Sum("wasmgate_upstream_restarts_total", map[string]string{"upstream": "later"}) >= 2
	}) {
		t.Fatal("the failing upstream is not retried")
	}
	if !strings.Contains(g.Stderr(), `msg="upstream stderr" source=later line=starting`) {
		t.Fatalf("the upstream's stderr is not in the log with its name:\n%s", g.Stderr())
	}
}

// TestUpstreamTimeout: a call that outlives limits.timeout fails with a
// timeout naming the upstream, and frees its slot (concurrency 1): the
// next call runs at once.
func TestUpstreamTimeout(t *testing.T) {
	t.Parallel()
	cfg := everythingConfig(t, "limits: {timeout: 1s, concurrency: 1}")
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 60*time.Second)
	c := g.SessionClient(t)
	text, isErr := harness.CallTool(ctx, t, c, "trigger-long-running-operation", map[string]any{"duration": 30, "steps": 30})
	if !isErr || !strings.Contains(text, `timed out after 1s (upstream "every", limits.timeout)`) {
		t.Fatalf("a call past limits.timeout = %q (isError %v)", text, isErr)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "echo", map[string]any{"message": "next"}); isErr || !strings.Contains(text, "next") {
		t.Fatalf("the call after a timeout = %q (isError %v)", text, isErr)
	}
	if v := g.Scrape(t).Sum("wasmgate_tool_calls_total", map[string]string{"source": "every", "outcome": "timeout"}); v != 1 {
		t.Fatalf("wasmgate_tool_calls_total{source=every,outcome=timeout} = %v, want 1", v)
	}
}

// hostileServer is a tiny MCP server over stdio (Node, no dependencies):
// it answers initialize and tools/list; its tool "big" answers with one
// message of 64 MiB, "flood" sends 5000 progress notifications first.
const hostileServer = `
const rl = require("readline").createInterface({ input: process.stdin });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
let cancelled = 0;
rl.on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) {
    if (m.method === "notifications/cancelled") cancelled++;
    return;
  }
  switch (m.method) {
  case "initialize":
    return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "1" } } });
  case "tools/list":
    return send({ jsonrpc: "2.0", id: m.id, result: { tools: [
      { name: "big", inputSchema: { type: "object" } },
      { name: "small", inputSchema: { type: "object" } },
      { name: "slow", inputSchema: { type: "object" } },
      { name: "cancels", inputSchema: { type: "object" } } ] } });
  case "tools/call":
    if (m.params.name === "slow") return; // never answers
    if (m.params.name === "cancels") {
      return send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: String(cancelled) }] } });
    }
    if (m.params.name === "big") {
      return send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "x".repeat(64 << 20) }] } });
    }
    return send({ jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: "small ok" }], structuredContent: { ok: true }, _meta: { hostile: 1 } } });
  default:
    return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "no " + m.method } });
  }
});
`

// hostileGateway serves hostileServer as the upstream "hostile" with
// limits, and a session client of it.
func hostileGateway(t *testing.T, limits string) (*harness.Gateway, *client.Client) {
	t.Helper()
	node, _ := everything(t)
	script := filepath.Join(t.TempDir(), "hostile.js")
	harness.WriteFile(t, script, []byte(hostileServer))
	cfg := harness.WriteConfig(t, upstreamYAML(t, fmt.Sprintf(`  - name: hostile
    command: [%q, %q]
    limits: {%s}
`, node, script, limits)))
	g := bins.Start(t, harness.Options{Config: cfg})
	return g, g.SessionClient(t)
}

// TestUpstreamHugeMessage: a stdio server answering with a 64 MiB
// message past limits.max_message has its session ended (bounded
// memory): the call fails naming the upstream and the limit, the server
// is started again and its other tool works; structuredContent and _meta
// pass through.
func TestUpstreamHugeMessage(t *testing.T) {
	t.Parallel()
	_, c := hostileGateway(t, "max_message: 1MiB")
	ctx := harness.Ctx(t, 60*time.Second)
	text, isErr := harness.CallTool(ctx, t, c, "big", nil)
	if !isErr || !strings.Contains(text, `upstream "hostile"`) || !strings.Contains(text, "limits.max_message") {
		t.Fatalf("a 64 MiB answer = %.300q (isError %v); want an isError naming the upstream and limits.max_message", text, isErr)
	}
	res, err := harness.CallToolErr(ctx, c, "small", nil)
	if err != nil || res.IsError || harness.ResultText(res) != "small ok" {
		t.Fatalf("small after the restart: %v %+v", err, res)
	}
	if res.StructuredContent == nil || res.Meta == nil || res.Meta.AdditionalFields["hostile"] == nil {
		t.Fatalf("structuredContent or _meta did not pass through: %+v", res)
	}
	harness.Calc(ctx, t, c, 1, 1)
}

// TestUpstreamClientCancelForwarded: a client that cancels its call
// (notifications/cancelled) has the upstream's request cancelled too.
func TestUpstreamClientCancelForwarded(t *testing.T) {
	t.Parallel()
	g, c := hostileGateway(t, "timeout: 60s")
	ctx := harness.Ctx(t, 60*time.Second)
	callCtx, cancel := context.WithTimeout(ctx, 500*time.Millisecond) // the client gives up, and says so
	defer cancel()
	if _, err := harness.CallToolErr(callCtx, c, "slow", nil); err == nil {
		t.Fatal("the call the client cancelled returned no error")
	}
	if !harness.WaitFor(10*time.Second, func() bool {
		text, _ := harness.CallTool(ctx, t, c, "cancels", nil)
		return text == "1"
	}) {
		text, _ := harness.CallTool(ctx, t, c, "cancels", nil)
		t.Fatalf("the upstream received %s notifications/cancelled, want 1", text)
	}
	if v := g.Scrape(t).Sum("wasmgate_tool_calls_total", map[string]string{"source": "hostile", "tool": "slow"}); v != 1 {
		t.Errorf("wasmgate_tool_calls_total{tool=slow} = %v, want the cancelled call counted once", v)
	}
}

// TestUpstreamTimeoutCancels: a call past limits.timeout sends the
// upstream notifications/cancelled for its request.
func TestUpstreamTimeoutCancels(t *testing.T) {
	t.Parallel()
	_, c := hostileGateway(t, "timeout: 1s")
	ctx := harness.Ctx(t, 60*time.Second)
	if text, isErr := harness.CallTool(ctx, t, c, "slow", nil); !isErr || !strings.Contains(text, "timed out after 1s") {
		t.Fatalf("slow = %q (isError %v), want a timeout", text, isErr)
	}
	if !harness.WaitFor(10*time.Second, func() bool {
		text, _ := harness.CallTool(ctx, t, c, "cancels", nil)
		return text == "1"
	}) {
		text, _ := harness.CallTool(ctx, t, c, "cancels", nil)
		t.Fatalf("the upstream received %s notifications/cancelled, want 1", text)
	}
}

// TestUpstreamNoOrphansAfterKill9: the wasmgate binary killed with
// SIGKILL (nothing of it runs to clean up) leaves no process of a stdio
// upstream behind: neither the server nor a process the server started.
// (internal/childproc's TestNoOrphansAfterKill9 covers a sandbox's shim.)
func TestUpstreamNoOrphansAfterKill9(t *testing.T) {
	t.Parallel()
	unruly := bins.GoFixture(t, "testdata/upstreams/unruly")
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server: harness.NoWatch,
		Sections: fmt.Sprintf(`upstreams:
  - name: forks
    command: [/bin/sh, -c, "sleep 300 & exec %s"]
`, unruly),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	var all []int
	var walk func(pid int)
	walk = func(pid int) {
		for _, c := range childrenOf(t, pid) {
			all = append(all, c)
			walk(c)
		}
	}
	walk(g.Cmd.Process.Pid)
	if len(all) < 2 {
		t.Fatalf("descendants of the gateway %v, want the server and its sleep", all)
	}
	g.Kill()
	if !harness.WaitFor(10*time.Second, func() bool {
		for _, p := range all {
			if syscall.Kill(p, 0) == nil && !zombie(p) {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("processes of the upstream outlived the gateway's kill -9: %v", all)
	}
}

// zombie reports whether pid has exited and waits for its parent.
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	return strings.HasPrefix(strings.TrimSpace(s[strings.LastIndexByte(s, ')')+1:]), "Z")
}
