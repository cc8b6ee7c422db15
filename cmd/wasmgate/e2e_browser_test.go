package main

// The browser relay with real pages in headless Chromium: the demo of
// examples/browser (seed 000's browser MCP server) called through the
// gateway over HTTP and stdio, handlers that throw, wait and get
// cancelled, a page that leaves mid-call, and a WU bridge (wu-legacy).

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// browserGateway starts a gateway serving the calculator plugin and the
// relay sites (YAML under relay:), over HTTP and stdio.
func browserGateway(t *testing.T, sites string, env ...string) *harness.Gateway {
	t.Helper()
	e := bins.NewDir(t)
	harness.WriteFile(t, e.Config, relayConfig(t, e, sites))
	return bins.Start(t, harness.Options{Config: e.Config, Env: env, Stdio: true})
}

// pageURL is the URL of a page of the static server srv with the relay
// site's URL and token in its fragment.
func pageURL(srv, page string, g *harness.Gateway, site, token string) string {
	return srv + page + "#url=" + url.QueryEscape(relayURL(g.MCPURL, site)) + "&token=" + url.QueryEscape(token)
}

func TestBrowserDemo(t *testing.T) {
	t.Parallel()
	static := staticServer(t)
	g := browserGateway(t, fmt.Sprintf("  sites:\n    - {name: demo, token_env: RELAY_DEMO_TOKEN, allowed_origins: [%q], resource_schemes: [storage]}\n", static.URL),
		"RELAY_DEMO_TOKEN="+relayToken)
	ctx := harness.Ctx(t, 3*time.Minute)
	hc := g.SessionClient(t, transport.WithContinuousListening())
	notes := harness.CountNotes(hc)
	sc := g.StdioClient(t)
	harness.WaitTools(ctx, t, hc, 10*time.Second, "calculate")

	b := harness.StartBrowser(t)
	page := b.Open(t, pageURL(static.URL, "/index.html", g, "demo", relayToken))
	page.WaitJS(`document.documentElement.dataset.registered === "demo_calculate,demo_set-storage"`, 30*time.Second)
	if h := harness.Evaluate[string](page, `location.href`); strings.Contains(h, "token") {
		t.Errorf("the token stayed in the address bar: %s", h)
	}
	harness.WaitTools(ctx, t, hc, 10*time.Second, "calculate", "demo_calculate", "demo_set-storage")
	if !harness.WaitFor(5*time.Second, func() bool { return notes.Lists()[0] >= 1 && notes.Lists()[1] >= 1 }) {
		t.Errorf("list_changed after the page registered: %v", notes.Lists())
	}
	// The page publishes the calculator plugin's schema, as seed 000 does.
	res, err := hc.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "demo_calculate" {
			checkSchema(t, tool, exampleSchemas["calculate"])
		}
	}

	cases := []struct {
		op   string
		a, b float64
		want string
	}{
		{"add", 5, 3, "8"},
		{"subtract", 5, 3, "2"},
		{"multiply", 4, 2.5, "10"},
		{"divide", 10, 2, "5"},
		{"add", 0.1, 0.2, "0.30000000000000004"},
		{"divide", 1, 3, "0.3333333333333333"},
		{"multiply", 1e21, 1, "1e+21"},
		{"subtract", 0.000001, 1, "-0.999999"},
		{"multiply", 1e-7, 1, "1e-7"},
		{"divide", 1, 0, "Division by zero"},
	}
	for _, cl := range []struct {
		name string
		c    *client.Client
	}{{"http", hc}, {"stdio", sc}} {
		t.Run(cl.name, func(t *testing.T) {
			for _, c := range cases {
				args := map[string]any{"operation": c.op, "a": c.a, "b": c.b}
				text, isErr := harness.CallTool(ctx, t, cl.c, "demo_calculate", args)
				ptext, pisErr := harness.CallTool(ctx, t, cl.c, "calculate", args)
				if text != c.want || isErr != (c.op == "divide" && c.b == 0) {
					t.Errorf("demo_calculate %s %v %v = %q isError=%v, want %q", c.op, c.a, c.b, text, isErr, c.want)
				}
				if text != ptext || isErr != pisErr {
					t.Errorf("demo_calculate %s %v %v = %q (%v); the calculator plugin says %q (%v)", c.op, c.a, c.b, text, isErr, ptext, pisErr)
				}
			}
			key := "theme-" + cl.name
			text, isErr := harness.CallTool(ctx, t, cl.c, "demo_set-storage", map[string]any{"key": key, "value": "dark"})
			if isErr || text != "Stored value at key: "+key {
				t.Errorf("demo_set-storage = %q isError=%v", text, isErr)
			}
			if v := harness.ReadText(ctx, t, cl.c, "storage://"+key); v != "dark" {
				t.Errorf("storage://%s = %q", key, v)
			}
			if v := harness.ReadText(ctx, t, cl.c, "storage://nonexistent"); v != "Key not found" {
				t.Errorf("storage://nonexistent = %q", v)
			}
			// The schema is checked before anything reaches the page.
			text, isErr = harness.CallTool(ctx, t, cl.c, "demo_calculate", map[string]any{"operation": "pow", "a": 1, "b": 2})
			if !isErr || !strings.Contains(text, "invalid arguments") {
				t.Errorf("bad operation: %q isError=%v", text, isErr)
			}
		})
	}
	// One store: what HTTP stored, stdio reads, and the page shows it.
	if v := harness.ReadText(ctx, t, sc, "storage://theme-http"); v != "dark" {
		t.Errorf("stdio reads storage://theme-http = %q", v)
	}
	page.WaitJS(`document.getElementById("store").textContent.includes("theme-stdio")`, 5*time.Second)

	m := g.Scrape(t)
	if v := m.ToolCalls("demo_calculate", "ok"); v != 18 {
		t.Errorf("demo_calculate ok = %v, want 18", v)
	}
	if v := m.ToolCalls("demo_calculate", "error"); v != 2 {
		t.Errorf("demo_calculate error = %v, want 2 (division by zero)", v)
	}
	if v, _ := m.Value("wasmgate_resource_reads_total", map[string]string{"source": "demo", "outcome": "ok"}); v != 5 {
		t.Errorf("resource reads of demo = %v, want 5", v)
	}

	// Closing the tab removes the tools.
	page.Close()
	harness.WaitTools(ctx, t, hc, 10*time.Second, "calculate")
}

func TestBrowserFailures(t *testing.T) {
	// Not parallel: a call must fail within a second of its page leaving.
	static := staticServer(t)
	g := browserGateway(t, "  sites:\n    - {name: t, token_env: RELAY_T_TOKEN, prefix: t_}\n", "RELAY_T_TOKEN="+relayToken)
	ctx := harness.Ctx(t, 3*time.Minute)
	c := g.SessionClient(t)
	b := harness.StartBrowser(t)
	page := b.Open(t, pageURL(static.URL, "/test/failures.html", g, "t", relayToken))
	page.WaitJS(`document.documentElement.dataset.registered === "t_throws,t_slow"`, 30*time.Second)
	harness.WaitTools(ctx, t, c, 10*time.Second, "calculate", "t_throws", "t_slow")

	t.Run("a handler that throws", func(t *testing.T) {
		text, isErr := harness.CallTool(ctx, t, c, "t_throws", map[string]any{"msg": "boom"})
		if !isErr || text != "the handler threw: boom" {
			t.Errorf("t_throws = %q isError=%v", text, isErr)
		}
	})
	t.Run("prompts and resources", func(t *testing.T) {
		res, err := harness.GetPrompt(ctx, c, "t_greet", map[string]string{"who": "Ada"})
		if err != nil || harness.PromptText(t, res) != "Say hello to Ada." {
			t.Errorf("t_greet: %v %v", res, err)
		}
		if v := harness.ReadText(ctx, t, c, "t://title"); !strings.Contains(v, "relay test page") {
			t.Errorf("t://title = %q", v)
		}
	})
	t.Run("MCP cancellation reaches the page", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := harness.CallToolErr(cctx, c, "t_slow", nil)
			done <- err
		}()
		page.WaitJS(`window.started === 1`, 10*time.Second)
		cancel()
		<-done
		page.WaitJS(`window.aborted.length === 1`, 10*time.Second)
		if got := harness.Evaluate[string](page, `window.aborted[0]`); got != "cancelled by the gateway (cancelled)" {
			t.Errorf("the page's abort reason: %q", got)
		}
		if !harness.WaitFor(5*time.Second, func() bool { return g.Scrape(t).ToolCalls("t_slow", "timeout") == 1 }) {
			t.Errorf("t_slow cancelled outcomes: %v", g.Scrape(t).ToolCalls("t_slow", "timeout"))
		}
	})
	t.Run("the page leaves mid-call", func(t *testing.T) {
		for i, leave := range []struct {
			name string
			do   func()
		}{
			{"disconnect()", func() { harness.Evaluate[bool](page, `relayBridge.disconnect(), true`) }},
			{"closing the tab", func() { page.Close() }},
		} {
			if i == 1 {
				page = b.Open(t, pageURL(static.URL, "/test/failures.html", g, "t", relayToken))
				page.WaitJS(`document.documentElement.dataset.registered === "t_throws,t_slow"`, 30*time.Second)
				harness.WaitTools(ctx, t, c, 10*time.Second, "calculate", "t_throws", "t_slow")
			}
			type result struct {
				text  string
				isErr bool
				at    time.Time
			}
			out := make(chan result, 1)
			go func() {
				r, err := harness.CallToolErr(ctx, c, "t_slow", nil)
				if err != nil {
					out <- result{err.Error(), false, time.Now()}
					return
				}
				out <- result{harness.ResultText(r), r.IsError, time.Now()}
			}()
			page.WaitJS(`window.started >= 1 && window.aborted.length < window.started`, 10*time.Second)
			left := time.Now()
			leave.do()
			r := <-out
			if !r.isErr || !strings.Contains(r.text, "disconnected before answering") {
				t.Errorf("%s: t_slow = %q isError=%v", leave.name, r.text, r.isErr)
			}
			if d := r.at.Sub(left); d > time.Second {
				t.Errorf("%s: the call failed %v after the page left; want within a second", leave.name, d)
			}
			harness.WaitTools(ctx, t, c, 10*time.Second, "calculate")
		}
	})
}

func TestBrowserWULegacy(t *testing.T) {
	t.Parallel()
	static := staticServer(t)
	g := browserGateway(t, "  sites:\n    - {name: wu, protocol: wu-legacy, token_env: RELAY_WU_TOKEN}\n", "RELAY_WU_TOKEN="+relayToken)
	ctx := harness.Ctx(t, 3*time.Minute)
	c := g.SessionClient(t)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(strings.TrimSuffix(g.MCPURL, "/mcp"), "http://"))

	// The catalog is there without a page, and wu_conexion answers.
	names := harness.Tools(ctx, t, c)
	if len(names) != 19 { // calculate + wu_conexion + 17 commands
		t.Errorf("tools: %v", names)
	}
	text, isErr := harness.CallTool(ctx, t, c, "wu_conexion", nil)
	want := fmt.Sprintf(`{"puerto":%s,"host":"127.0.0.1","requiere_token":true,"app_conectada":false}`, port)
	if isErr || text != want {
		t.Errorf("wu_conexion = %q, want %q", text, want)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "wu_status", nil); !isErr || !strings.Contains(text, "no page is connected") {
		t.Errorf("wu_status without a page = %q isError=%v", text, isErr)
	}

	b := harness.StartBrowser(t)
	wrong := b.Open(t, pageURL(static.URL, "/test/wu.html", g, "wu", "a wrong token for the WU site"))
	wrong.WaitJS(`document.documentElement.dataset.wu === "closed 4001"`, 30*time.Second)
	page := b.Open(t, pageURL(static.URL, "/test/wu.html", g, "wu", relayToken))
	page.WaitJS(`document.documentElement.dataset.wu === "connected"`, 30*time.Second)

	for _, c2 := range []struct {
		tool  string
		args  map[string]any
		want  string
		isErr bool
	}{
		{"wu_status", nil, `{"framework":"wu-test","apps":["shell"],"storeKeys":["user","theme"],"actions":1,"events":0}`, false},
		{"wu_list_actions", nil, `{"actions":["sum_local"],"count":1}`, false},
		{"wu_execute_action", map[string]any{"action": "sum_local", "params": map[string]any{"a": 2, "b": 3}}, `{"action":"sum_local","success":true,"result":5}`, false},
		{"wu_execute_action", map[string]any{"action": "nope"}, `{"action":"nope","success":false,"reason":"unknown action"}`, false},
		{"wu_execute_action", map[string]any{"action": "delete_everything"}, `{"error":"Permission denied: executeActions is disabled for delete_everything"}`, true},
		{"wu_set_state", map[string]any{"path": "user.name", "value": "Ada"}, `{"path":"user.name","value":"Ada","updated":true}`, false},
		{"wu_get_state", map[string]any{"path": "user.name"}, `{"path":"user.name","value":"Ada"}`, false},
		{"wu_emit_event", map[string]any{"event": "cart:add", "data": map[string]any{"id": 7}}, `{"emitted":"cart:add","data":{"id":7}}`, false},
		{"wu_list_events", map[string]any{"limit": 5}, `[{"event":"cart:add","data":{"id":7}}]`, false},
		{"wu_click", map[string]any{"selector": "#buy"}, `Unknown command: click`, true},
	} {
		text, isErr := harness.CallTool(ctx, t, c, c2.tool, c2.args)
		if text != c2.want || isErr != c2.isErr {
			t.Errorf("%s %v = %q isError=%v, want %q isError=%v", c2.tool, c2.args, text, isErr, c2.want, c2.isErr)
		}
	}
	// The relay's schemas refuse what the bridge would.
	if text, isErr := harness.CallTool(ctx, t, c, "wu_emit_event", map[string]any{"event": "wu:internal"}); !isErr || !strings.Contains(text, "invalid arguments") {
		t.Errorf("reserved event: %q isError=%v", text, isErr)
	}
	if text, _ := harness.CallTool(ctx, t, c, "wu_conexion", nil); !strings.Contains(text, `"app_conectada":true`) {
		t.Errorf("wu_conexion with a page = %q", text)
	}
	if v, _ := g.Scrape(t).Value("wasmgate_relay_handshakes_total", map[string]string{"site": "wu", "outcome": "bad_proof"}); v != 1 {
		t.Errorf("handshakes bad_proof for wu = %v", v)
	}
}

// staticServer serves examples/browser at / and the test pages of
// testdata/browser at /test/, on loopback, as any static server would.
func staticServer(t testing.TB) *httptest.Server {
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join(harness.RepoRoot(), "examples", "browser"))))
	mux.Handle("/test/", http.StripPrefix("/test/", http.FileServer(http.Dir(filepath.Join(harness.RepoRoot(), "cmd", "wasmgate", "testdata", "browser")))))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}
