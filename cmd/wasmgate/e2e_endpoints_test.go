package main

// Endpoints (issue 40) end to end with mcp-go's client against the real
// binary: several curated MCP servers from one gateway, each with its
// own catalog, path, identity and audience, over HTTP and stdio, through
// reloads that move tools between them or remove one while it is used.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/mcphttp"
)

// epURL is the URL of the endpoint at path on g's MCP listener.
func epURL(t *testing.T, g *harness.Gateway, path string) string {
	t.Helper()
	u, err := url.Parse(g.MCPURL)
	if err != nil || u.Host == "" {
		t.Fatalf("the gateway's MCP URL %q: %v", g.MCPURL, err)
	}
	return "http://" + u.Host + path
}

// epSession is an initialized 2025-11-25 session client of the endpoint
// at path, with the server's answer to initialize.
func epSession(t *testing.T, g *harness.Gateway, path string, opts ...transport.StreamableHTTPCOption) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	c, res := harness.HTTPClient(t, epURL(t, g, path), harness.ProtoSessions, opts...)
	if c.GetSessionId() == "" {
		t.Fatalf("%s: no Mcp-Session-Id after a %s initialize", path, harness.ProtoSessions)
	}
	return c, res
}

// epYAML is a gateway serving the three example plugins (tools
// calculate, set-storage and say_hello; the resource greeter://about,
// the template storage://{key}, the prompt greeting_prompt) with the
// top-level sections given (endpoints:, auth:, ...) and the lines under
// transports: after http (2 spaces). Saving the file reloads it.
func epYAML(t *testing.T, transports, sections string) string {
	return bins.YAML(harness.Parts{HTTP: transports, Plugins: harness.ExamplePlugins(t), Sections: sections})
}

// unknownToolErr calls name on c and returns the JSON-RPC error's text
// with name replaced by NAME, so that the answers for two names compare.
// A result (even isError) fails the test: an unknown tool is a protocol
// fault.
func unknownToolErr(ctx context.Context, t *testing.T, c *client.Client, name string) string {
	t.Helper()
	res, err := harness.CallToolErr(ctx, c, name, map[string]any{"name": "x", "operation": "add", "a": 1, "b": 2})
	if err == nil {
		t.Fatalf("tools/call %s answered %q (isError %v), want the JSON-RPC error of an unknown tool", name, harness.ResultText(res), res.IsError)
	}
	return strings.ReplaceAll(err.Error(), name, "NAME")
}

// checkUnknown checks that calling each of names on c answers exactly
// as calling a made-up name does there.
func checkUnknown(ctx context.Context, t *testing.T, c *client.Client, where string, names ...string) {
	t.Helper()
	want := unknownToolErr(ctx, t, c, "no_such_tool_anywhere")
	for _, n := range names {
		if got := unknownToolErr(ctx, t, c, n); got != want {
			t.Errorf("%s: calling %s (outside the endpoint) answered %q, want what an unknown name gets: %q", where, n, got, want)
		}
	}
}

// discover posts a 2026-07-28 server/discover to u and returns its
// result's serverInfo (in _meta, as the revision has it) and
// instructions.
func discover(t *testing.T, u string) (mcp.Implementation, string) {
	t.Helper()
	code, body := harness.PostStateless(t, u, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": map[string]any{}}, "server/discover", "")
	var resp struct {
		Result *struct {
			Meta struct {
				ServerInfo *mcp.Implementation `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
			Instructions string `json:"instructions"`
		} `json:"result"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &resp) != nil || resp.Result == nil || resp.Result.Meta.ServerInfo == nil {
		t.Fatalf("server/discover at %s: %d %.300s", u, code, body)
	}
	return *resp.Result.Meta.ServerInfo, resp.Result.Instructions
}

// The two endpoints of TestEndpointCatalogsHTTP and TestEndpointStdio:
// math selects sources by name and glob, people every source but one
// tool; set-storage and the storage template are on both.
const twoEndpoints = `endpoints:
  - name: math
    path: /mcp/math
    title: Math tools
    instructions: Numbers only; store results with set-storage.
    sources: ["calc*", storage]
  - name: people
    path: /mcp/people
    title: People tools
    instructions: Greet people.
    tools: {exclude: [calculate]}
`

var (
	mathView   = view{Tools: []string{"calculate", "set-storage"}, Templates: []string{"storage://{key}"}}
	peopleView = view{Tools: []string{"say_hello", "set-storage"}, Resources: []string{"greeter://about"},
		Templates: []string{"storage://{key}"}, Prompts: []string{"greeting_prompt"}}
)

// TestEndpointCatalogsHTTP: two endpoints with disjoint and overlapping
// catalogs: each lists exactly its selection in both protocol eras,
// answers a call of a tool outside it exactly as an unknown name, and
// shows its own title and instructions in initialize and server/discover.
func TestEndpointCatalogsHTTP(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, epYAML(t, "", twoEndpoints))})
	ctx := harness.Ctx(t, 2*time.Minute)
	for _, ep := range []struct {
		path, title, instructions string
		want                      view
		outside                   []string
		call                      func(c *client.Client)
	}{
		{"/mcp/math", "Math tools", "Numbers only; store results with set-storage.", mathView, []string{"say_hello"},
			func(c *client.Client) { harness.Calc(ctx, t, c, 20, 22) }},
		{"/mcp/people", "People tools", "Greet people.", peopleView, []string{"calculate"},
			func(c *client.Client) {
				if text, isErr := harness.CallTool(ctx, t, c, "say_hello", map[string]any{"name": "Ada"}); isErr || !strings.Contains(text, "Ada") {
					t.Errorf("say_hello on people = %q (isError %v)", text, isErr)
				}
			}},
	} {
		t.Run(strings.TrimPrefix(ep.path, "/mcp/"), func(t *testing.T) {
			c, init := epSession(t, g, ep.path)
			if init.ServerInfo.Title != ep.title || init.Instructions != ep.instructions {
				t.Errorf("initialize: title %q, instructions %q; want %q, %q", init.ServerInfo.Title, init.Instructions, ep.title, ep.instructions)
			}
			if got := listView(ctx, t, c); !got.equal(ep.want) {
				t.Errorf("lists: %v\nwant:   %v", got, ep.want)
			}
			ep.call(c)
			checkUnknown(ctx, t, c, ep.path+" (2025-11-25)", ep.outside...)
			// set-storage is on both: it works here.
			if text, isErr := harness.CallTool(ctx, t, c, "set-storage", map[string]any{"key": "k", "value": ep.path}); isErr {
				t.Errorf("set-storage on %s: %q", ep.path, text)
			}

			// The 2026-07-28 era: server/discover, raw and through mcp-go.
			info, instructions := discover(t, epURL(t, g, ep.path))
			if info.Title != ep.title || instructions != ep.instructions {
				t.Errorf("server/discover: title %q, instructions %q; want %q, %q", info.Title, instructions, ep.title, ep.instructions)
			}
			sc, sinit := harness.HTTPClient(t, epURL(t, g, ep.path), harness.ProtoStateless)
			if sinit.ProtocolVersion != harness.ProtoStateless || sinit.ServerInfo.Title != ep.title || sinit.Instructions != ep.instructions {
				t.Errorf("mcp-go's discovery: version %q, title %q, instructions %q", sinit.ProtocolVersion, sinit.ServerInfo.Title, sinit.Instructions)
			}
			if got := listView(ctx, t, sc); !got.equal(ep.want) {
				t.Errorf("lists (2026-07-28): %v\nwant:   %v", got, ep.want)
			}
			ep.call(sc)
			checkUnknown(ctx, t, sc, ep.path+" (2026-07-28)", ep.outside...)
		})
	}
	// The listener's default path is no endpoint here.
	if code := harness.PostInitialize(t, epURL(t, g, "/mcp"), nil); code != http.StatusNotFound {
		t.Errorf("initialize at /mcp, which no endpoint serves: %d, want 404", code)
	}
	// A session is its endpoint's alone: its id at another endpoint's
	// path is an unknown session there (404), and still works at home.
	s := harness.OpenSession(t, epURL(t, g, "/mcp/math"))
	if code := postInSession(t, epURL(t, g, "/mcp/people"), s.ID); code != http.StatusNotFound {
		t.Errorf("math's session id at /mcp/people: tools/list got %d, want 404", code)
	}
	if code := postInSession(t, epURL(t, g, "/mcp/math"), s.ID); code != http.StatusOK {
		t.Errorf("math's session id at /mcp/math: tools/list got %d, want 200", code)
	}
}

// postInSession POSTs a tools/list within session id at u and returns
// the status.
func postInSession(t *testing.T, u, id string) int {
	t.Helper()
	s := mcphttp.Attach(u, id, mcphttp.Options{ProtocolVersion: harness.ProtoSessions})
	resp := harness.Send(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, nil)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestEndpointStdio: stdio serves the endpoint transports.stdio.endpoint
// names, not the first one: its lists are exactly that selection.
func TestEndpointStdio(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, epYAML(t, "  stdio:\n    endpoint: people\n", twoEndpoints))
	g := bins.Start(t, harness.Options{Config: cfg, Stdio: true})
	ctx := harness.Ctx(t, time.Minute)
	c, init := g.StdioClientVersion(t, harness.ProtoSessions)
	if init.ServerInfo.Title != "People tools" || init.Instructions != "Greet people." {
		t.Errorf("initialize over stdio: title %q, instructions %q; want people's", init.ServerInfo.Title, init.Instructions)
	}
	if got := listView(ctx, t, c); !got.equal(peopleView) {
		t.Errorf("stdio lists: %v\nwant:        %v", got, peopleView)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "say_hello", map[string]any{"name": "Ada"}); isErr || !strings.Contains(text, "Ada") {
		t.Errorf("say_hello over stdio = %q (isError %v)", text, isErr)
	}
	checkUnknown(ctx, t, c, "stdio", "calculate")
}

// TestEndpointAccess: a principal allowed on one endpoint is refused on
// the other with 403, whose body names nothing of that endpoint's
// catalog, counted as endpoint_access; over stdio a refused principal
// gets a JSON-RPC error.
func TestEndpointAccess(t *testing.T) {
	t.Parallel()
	alice, bob := newToken(t), newToken(t)
	sections := fmt.Sprintf(`auth:
  principals:
    - {name: alice, token_sha256: %s, groups: [dev]}
    - {name: bob, token_sha256: %s}
endpoints:
  - name: dev
    path: /mcp/dev
    sources: [calculator]
    access: {groups: [dev]}
  - name: support
    path: /mcp/support
    sources: [greeter]
    access: {principals: [bob]}
`, sha256Hex(alice), sha256Hex(bob))
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, epYAML(t, "", sections))})
	ctx := harness.Ctx(t, time.Minute)
	rejected := func() float64 {
		v, _ := g.Metric(t, "wasmgate_http_rejected_total", map[string]string{"reason": "endpoint_access"})
		return v
	}
	before := rejected()

	// Allowed: alice (by group) on dev, bob (by name) on support.
	ca, _ := epSession(t, g, "/mcp/dev", withToken(alice))
	harness.WaitTools(ctx, t, ca, 5*time.Second, "calculate")
	harness.Calc(ctx, t, ca, 1, 2)
	cb, _ := epSession(t, g, "/mcp/support", withToken(bob))
	harness.WaitTools(ctx, t, cb, 5*time.Second, "say_hello")

	// Refused: alice on support, bob on dev; a raw initialize, a raw
	// call, and mcp-go's initialize.
	secrets := []string{"say_hello", "greeter", "greeting", "about", "calculate", "calculator", "support", "dev"}
	refusals := 0
	for _, r := range []struct{ token, path string }{{alice, "/mcp/support"}, {bob, "/mcp/dev"}} {
		for _, body := range []string{harness.InitializeBody,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"x"}}}`} {
			resp := harness.PostJSON(t, epURL(t, g, r.path), body, map[string]string{"Authorization": "Bearer " + r.token})
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			refusals++
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s with another endpoint's principal: %d %s, want 403", r.path, resp.StatusCode, b)
			}
			for _, s := range secrets {
				if strings.Contains(strings.ToLower(string(b)), s) {
					t.Errorf("the 403 at %s names %q: %s", r.path, s, b)
				}
			}
		}
		c, err := client.NewStreamableHttpClient(epURL(t, g, r.path), withToken(r.token))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		req := mcp.InitializeRequest{}
		req.Params.ProtocolVersion = harness.ProtoSessions
		req.Params.ClientInfo = mcp.Implementation{Name: "refused", Version: "1"}
		refusals++
		// (mcp-go reports any 4xx to initialize as "4xx"; the raw posts
		// above check it is 403.)
		if _, err := c.Initialize(ctx, req); err == nil || !strings.Contains(err.Error(), "4xx") {
			t.Errorf("mcp-go's initialize at %s with another endpoint's principal: %v, want it refused", r.path, err)
		}
	}
	if got := rejected() - before; got != float64(refusals) {
		t.Errorf("wasmgate_http_rejected_total{reason=endpoint_access} rose by %v, want %d", got, refusals)
	}
	// The allowed sessions are untouched.
	harness.Calc(ctx, t, ca, 3, 4)
	harness.WaitTools(ctx, t, cb, 5*time.Second, "say_hello")

	t.Run("stdio", func(t *testing.T) {
		// The stdio principal (local) is not bob: the support endpoint
		// refuses each of its requests with a JSON-RPC error naming
		// nothing of its catalog.
		cfg := harness.WriteConfig(t, epYAML(t, "  stdio:\n    endpoint: support\n", sections))
		s := bins.Start(t, harness.Options{Config: cfg, Stdio: true})
		out := bufio.NewScanner(s.Stdout)
		out.Buffer(nil, 1<<20)
		for i, req := range []string{harness.InitializeBody,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"say_hello","arguments":{"name":"x"}}}`} {
			if _, err := io.WriteString(s.Stdin, req+"\n"); err != nil {
				t.Fatal(err)
			}
			if !out.Scan() {
				t.Fatalf("no answer over stdio to %s: %v", req, out.Err())
			}
			var resp struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(out.Bytes(), &resp); err != nil || resp.ID != i+1 || resp.Result != nil || resp.Error == nil {
				t.Fatalf("a refused stdio principal's request %s was answered %s, want a JSON-RPC error", req, out.Bytes())
			}
			if !strings.Contains(resp.Error.Message, "access denied") || !strings.Contains(resp.Error.Message, `"local"`) {
				t.Errorf("the refusal over stdio does not say whose access it denies: %s", out.Bytes())
			}
			for _, sec := range []string{"say_hello", "greeter", "greeting", "about"} {
				if strings.Contains(resp.Error.Message, sec) {
					t.Errorf("the refusal over stdio names %q: %s", sec, out.Bytes())
				}
			}
		}

		// The same endpoint over stdio with bob as the stdio principal.
		cfg = harness.WriteConfig(t, epYAML(t, "  stdio:\n    endpoint: support\n    principal: bob\n", sections))
		b := bins.Start(t, harness.Options{Config: cfg, Stdio: true})
		harness.WaitTools(ctx, t, b.StdioClient(t), 5*time.Second, "say_hello")
	})
}

// TestEndpointReloadMovesTool: a reload that moves calculate from one
// endpoint to another tells exactly one tools/list_changed to each of
// their sessions and nothing to a third endpoint's; the lists follow.
func TestEndpointReloadMovesTool(t *testing.T) {
	t.Parallel()
	render := func(from, to string) string {
		return epYAML(t, "", fmt.Sprintf(`endpoints:
  - name: a
    path: /mcp/a
    sources: [calculator, greeter]
    tools: {include: [%s]}
  - name: b
    path: /mcp/b
    sources: [calculator, greeter]
    tools: {include: [%s]}
  - name: c
    path: /mcp/c
    sources: [storage, calculator]
    tools: {exclude: [calculate]}
`, from, to))
	}
	cfg := harness.WriteConfig(t, render("calculate, say_hello", "say_hello"))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)
	connect := func(path string) (*client.Client, *harness.Notes) {
		c, _ := epSession(t, g, path, transport.WithContinuousListening())
		return c, harness.CountNotes(c)
	}
	ca, na := connect("/mcp/a")
	cb, nb := connect("/mcp/b")
	cc, nc := connect("/mcp/c")
	harness.WaitTools(ctx, t, ca, 5*time.Second, "calculate", "say_hello")
	harness.WaitTools(ctx, t, cb, 5*time.Second, "say_hello")
	harness.WaitTools(ctx, t, cc, 5*time.Second, "set-storage")
	va, vb, vc := listView(ctx, t, ca), listView(ctx, t, cb), listView(ctx, t, cc)
	// The GET streams are open before the reload (a notification sent
	// before would be lost, and the test would pass on nothing).
	time.Sleep(500 * time.Millisecond)

	n := g.ReloadCount(t)
	harness.RenameOver(t, cfg, []byte(render("say_hello", "say_hello, calculate")))
	if _, f := g.WaitReload(t, n, "move calculate from a to b"); f != 0 {
		t.Fatalf("the reload failed:\n%s", g.Stderr())
	}
	want := harness.Lists{1, 0, 0}
	if !harness.WaitFor(10*time.Second, func() bool { return na.Lists() == want && nb.Lists() == want }) {
		t.Fatalf("list_changed after the move: a %v, b %v; want %v each", na.Lists(), nb.Lists(), want)
	}
	// Strays: wait a bounded time for any more.
	time.Sleep(2 * time.Second)
	if na.Lists() != want || nb.Lists() != want || nc.Lists() != (harness.Lists{}) {
		t.Errorf("list_changed after the move, settled: a %v, b %v (want %v each), c %v (want none)", na.Lists(), nb.Lists(), want, nc.Lists())
	}
	va.Tools, vb.Tools = []string{"say_hello"}, []string{"calculate", "say_hello"}
	for _, x := range []struct {
		name string
		c    *client.Client
		want view
	}{{"a", ca, va}, {"b", cb, vb}, {"c", cc, vc}} {
		if got := listView(ctx, t, x.c); !got.equal(x.want) {
			t.Errorf("%s after the move: %v\nwant: %v", x.name, got, x.want)
		}
	}
	harness.Calc(ctx, t, cb, 5, 6)
	checkUnknown(ctx, t, ca, "a after the move", "calculate")
}

// TestEndpointRemoved: an endpoint removed by a reload while one client
// of it is idle and another's call runs: the idle session's next request
// gets 404, the running call finishes with its result and then its
// session is gone too; another endpoint's session and its call in
// flight are untouched.
func TestEndpointRemoved(t *testing.T) {
	t.Parallel()
	plugins := harness.ExamplePlugins(t) + fmt.Sprintf("  - {name: hostile, path: %s, limits: {timeout: 30s, concurrency: 4}}\n", harness.Wasm(t, "testdata/plugins/hostile"))
	render := func(withGone bool) string {
		eps := `endpoints:
  - name: keep
    path: /mcp/keep
    sources: [hostile, calculator]
`
		if withGone {
			eps += `  - name: gone
    path: /mcp/gone
    sources: [hostile, calculator]
`
		}
		// Two sleeps run while calculate is called: more WebAssembly
		// calls at once than this machine's CPUs (the default).
		return bins.YAML(harness.Parts{Server: "  max_concurrent_calls: 8\n", Plugins: plugins, Sections: eps})
	}
	cfg := harness.WriteConfig(t, render(true))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)

	idle := harness.OpenSession(t, epURL(t, g, "/mcp/gone"))
	busy, _ := epSession(t, g, "/mcp/gone")
	keep, _ := epSession(t, g, "/mcp/keep")
	harness.Calc(ctx, t, busy, 1, 1)

	type result struct {
		res *mcp.CallToolResult
		err error
	}
	const ms = 8000 // long enough that the reload is applied while the calls run
	sleep := func(c *client.Client) <-chan result {
		done := make(chan result, 1)
		go func() {
			res, err := harness.CallToolErr(ctx, c, "sleep", map[string]any{"ms": ms})
			done <- result{res, err}
		}()
		return done
	}
	goneCall, keepCall := sleep(busy), sleep(keep)
	if !harness.WaitFor(10*time.Second, func() bool {
		return g.Scrape(t).Sum("wasmgate_tool_calls_in_flight", nil) == 2
	}) {
		t.Fatal("the two sleep calls never showed in wasmgate_tool_calls_in_flight")
	}

	n := g.ReloadCount(t)
	harness.RenameOver(t, cfg, []byte(render(false)))
	if _, f := g.WaitReload(t, n, "remove the endpoint gone"); f != 0 {
		t.Fatalf("the reload failed:\n%s", g.Stderr())
	}
	for name, ch := range map[string]<-chan result{"gone": goneCall, "keep": keepCall} {
		select {
		case r := <-ch:
			t.Fatalf("the call on %s finished (%v, %v) before the reload was applied; the test needs a longer sleep", name, r.res, r.err)
		default:
		}
	}
	// The idle session of the removed endpoint: 404 at once.
	if code := postInSession(t, idle.URL, idle.ID); code != http.StatusNotFound {
		t.Errorf("the removed endpoint's idle session: tools/list got %d, want 404", code)
	}
	// keep still serves while both calls run.
	harness.Calc(ctx, t, keep, 2, 3)

	want := fmt.Sprintf("slept %dms", ms)
	for name, ch := range map[string]<-chan result{"gone": goneCall, "keep": keepCall} {
		select {
		case r := <-ch:
			if r.err != nil || r.res.IsError || harness.ResultText(r.res) != want {
				t.Errorf("the call in flight on %s: %v %+v, want %q", name, r.err, r.res, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("the call in flight on %s never returned", name)
		}
	}
	// Then the removed endpoint's session is gone; keep's is not.
	if _, err := harness.ToolsErr(ctx, busy); err == nil {
		t.Error("the removed endpoint's session still lists tools after its call finished")
	} else if !strings.Contains(err.Error(), "404") && !errors.Is(err, transport.ErrSessionTerminated) {
		t.Errorf("the removed endpoint's session after its call: %v, want a 404", err)
	}
	if code := harness.PostInitialize(t, epURL(t, g, "/mcp/gone"), nil); code != http.StatusNotFound {
		t.Errorf("initialize at the removed endpoint's path: %d, want 404", code)
	}
	harness.WaitTools(ctx, t, keep, 5*time.Second, "bomb", "calculate", "crash", "echo", "flood", "sleep", "spin", "trap")
	harness.Calc(ctx, t, keep, 4, 5)
	if _, ok := g.WaitLog(0, "endpoint removed", 10*time.Second); !ok {
		t.Error("no log line about the removed endpoint")
	}

	// The same endpoint added back is a new server: the sessions of the
	// removed one ended with it (404), new ones are served.
	n = g.ReloadCount(t)
	harness.RenameOver(t, cfg, []byte(render(true)))
	if _, f := g.WaitReload(t, n, "add the endpoint gone back"); f != 0 {
		t.Fatalf("the reload failed:\n%s", g.Stderr())
	}
	for what, id := range map[string]string{"idle": idle.ID, "busy": busy.GetSessionId()} {
		if code := postInSession(t, idle.URL, id); code != http.StatusNotFound {
			t.Errorf("the removed endpoint's %s session at the endpoint added back: tools/list got %d, want 404", what, code)
		}
	}
	again, _ := epSession(t, g, "/mcp/gone")
	harness.Calc(ctx, t, again, 6, 7)
	harness.Calc(ctx, t, keep, 7, 8)
}

// TestEndpointUpstreamAndRelay: an upstream server and a relay page
// published on one endpoint only: the other endpoint neither lists nor
// calls them, and is not told list_changed when the page registers.
func TestEndpointUpstreamAndRelay(t *testing.T) {
	t.Parallel()
	meddler := bins.GoFixture(t, "testdata/upstreams/meddler")
	sections := fmt.Sprintf(`upstreams:
  - name: meddle
    command: [%q, -name, meddle]
    prefix: md
    limits: {timeout: 30s}
relay:
  sites:
    - {name: demo, token_env: RELAY_DEMO_TOKEN}
endpoints:
  - name: web
    path: /mcp/web
    sources: [meddle, demo]
  - name: plain
    path: /mcp/plain
    sources: [calculator]
`, meddler)
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Server: harness.NoWatch,
		Plugins:  fmt.Sprintf("  - {name: calculator, path: %s}\n", harness.Wasm(t, "examples/plugins/calculator")),
		Sections: sections}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{"RELAY_DEMO_TOKEN=" + relayToken}})
	ctx := harness.Ctx(t, 2*time.Minute)
	web, _ := epSession(t, g, "/mcp/web", transport.WithContinuousListening())
	plain, _ := epSession(t, g, "/mcp/plain", transport.WithContinuousListening())
	webNotes, plainNotes := harness.CountNotes(web), harness.CountNotes(plain)
	harness.WaitTools(ctx, t, web, 20*time.Second, "md_inject", "md_wait")
	harness.WaitTools(ctx, t, plain, 5*time.Second, "calculate")
	time.Sleep(300 * time.Millisecond) // the GET streams are open

	u, _ := url.Parse(g.MCPURL)
	p := startGoPage(t, "ws://"+u.Host+"/relay/demo", "demo", relayToken)
	if ack := p.register(map[string]any{"id": "r1", "tools": []any{map[string]any{
		"name": "shout", "description": "Upper-cases a text",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}},
	}}}); fmt.Sprint(ack["tools"]) != "[demo_shout]" {
		t.Fatalf("registered %v", ack)
	}
	p.serve(func(call map[string]any) string {
		return strings.ToUpper(fmt.Sprint(call["arguments"].(map[string]any)["text"]))
	})
	harness.WaitTools(ctx, t, web, 10*time.Second, "demo_shout", "md_inject", "md_wait")
	if !harness.WaitFor(5*time.Second, func() bool { return webNotes.Lists()[0] >= 1 }) {
		t.Errorf("web was not told tools list_changed when the page registered: %v", webNotes.Lists())
	}
	if text, isErr := harness.CallTool(ctx, t, web, "demo_shout", map[string]any{"text": "hi"}); isErr || text != "HI" {
		t.Errorf("demo_shout on web = %q (isError %v)", text, isErr)
	}
	if text, isErr := harness.CallTool(ctx, t, web, "md_wait", map[string]any{"ms": 1}); isErr || text != "waited" {
		t.Errorf("md_wait on web = %q (isError %v)", text, isErr)
	}

	if got := harness.Tools(ctx, t, plain); !slices.Equal(got, []string{"calculate"}) {
		t.Errorf("plain lists %v, want [calculate]", got)
	}
	checkUnknown(ctx, t, plain, "plain", "demo_shout", "md_wait", "md_inject")
	sc, _ := harness.HTTPClient(t, epURL(t, g, "/mcp/plain"), harness.ProtoStateless)
	checkUnknown(ctx, t, sc, "plain (2026-07-28)", "demo_shout", "md_wait")
	time.Sleep(time.Second) // strays
	if l := plainNotes.Lists(); l != (harness.Lists{}) {
		t.Errorf("plain was told %v when the page registered on web, want nothing", l)
	}
	if got := harness.Tools(ctx, t, web); !slices.Equal(got, []string{"demo_shout", "md_inject", "md_wait"}) {
		t.Errorf("web lists %v after plain's calls", got)
	}
}
