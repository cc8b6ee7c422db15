package main

// The browser relay end to end with pages written in Go: tools a page
// registers appear in MCP with list_changed and go through the gateway's
// call path (schema, metrics); refusals are counted; a page that leaves
// fails its pending calls at once; reloads remove sites and rotate tokens.

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/relaytest"
)

const (
	relayToken    = "e2e relay token, 32 bytes long!!"
	relayNewToken = "the rotated e2e relay token value"
)

// relayConfig is a gateway.yaml serving the calculator plugin and the
// relay section sites (YAML already indented under relay:).
func relayConfig(t *testing.T, e *harness.Dir, sites string) []byte {
	calc := e.Module("calculator", "examples/plugins/calculator")
	return []byte(e.YAML(harness.NoWatch, harness.Item("name: calculator", "path: "+harness.Q(calc))) + "relay:\n" + sites)
}

func TestRelayEndToEnd(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	tokenFile := filepath.Join(e.Path, "other.token")
	harness.WriteFile(t, tokenFile, []byte(relayToken+"\n"))
	both := fmt.Sprintf(`  sites:
    - {name: demo, token_env: RELAY_DEMO_TOKEN}
    - {name: other, token_file: %q, prefix: o_}
`, tokenFile)
	harness.WriteFile(t, e.Config, relayConfig(t, e, both))
	g := bins.Start(t, harness.Options{Config: e.Config, Env: []string{"RELAY_DEMO_TOKEN=" + relayToken}})
	ctx := harness.Ctx(t, 3*time.Minute)
	c := g.SessionClient(t, transport.WithContinuousListening())
	notes := harness.CountNotes(c)
	harness.WaitTools(ctx, t, c, 10*time.Second, "calculate")
	demoURL := relayURL(g.MCPURL, "demo")

	// bridge.js is served beside the sites.
	code, body := harness.HTTPGet(t, strings.Replace(strings.Replace(demoURL, "ws://", "http://", 1), "/demo", "/bridge.js", 1))
	if code != http.StatusOK || !strings.Contains(body, "export function connect(") {
		t.Fatalf("GET bridge.js: %d %.100s", code, body)
	}

	// A page registers calculate: demo_calculate appears, with list_changed.
	p := startGoPage(t, demoURL, "demo", relayToken)
	ack := p.register(map[string]any{"id": "r1", "tools": []any{relaytest.CalcTool()}})
	if fmt.Sprint(ack["tools"]) != "[demo_calculate]" || ack["warnings"] != nil {
		t.Fatalf("registered %v", ack)
	}
	harness.WaitTools(ctx, t, c, 10*time.Second, "calculate", "demo_calculate")
	if !harness.WaitFor(5*time.Second, func() bool { return notes.Lists()[0] >= 1 }) {
		t.Errorf("no tools list_changed after the page registered: %v", notes.Lists())
	}
	// A 2026-07-28 tools/list, whose caching hints ask each source of
	// the list (a relay site is not a comparable value: keyed by it, the
	// list panicked).
	if code, body := harness.PostStateless(t, g.MCPURL, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": map[string]any{}}, "tools/list", ""); code != http.StatusOK || !strings.Contains(body, `"demo_calculate"`) || !strings.Contains(body, `"ttlMs"`) {
		t.Errorf("2026-07-28 tools/list with a relay site's tool: %d %.300s", code, body)
	}
	p.serve(func(call map[string]any) string {
		a := call["arguments"].(map[string]any)
		return fmt.Sprint(a["a"].(float64) + a["b"].(float64))
	})
	if text, isErr := harness.CallTool(ctx, t, c, "demo_calculate", map[string]any{"operation": "add", "a": 5, "b": 3}); isErr || text != "8" {
		t.Fatalf("demo_calculate = %q isError=%v", text, isErr)
	}
	// Arguments are checked against the page's schema before they leave.
	text, isErr := harness.CallTool(ctx, t, c, "demo_calculate", map[string]any{"operation": "pow", "a": 5})
	if !isErr || !strings.Contains(text, "invalid arguments") {
		t.Errorf("bad arguments: %q isError=%v", text, isErr)
	}
	m := g.Scrape(t)
	if m.ToolCalls("demo_calculate", "ok") != 1 || m.ToolCalls("demo_calculate", "invalid_args") != 1 {
		t.Errorf("tool calls: ok %v, invalid_args %v", m.ToolCalls("demo_calculate", "ok"), m.ToolCalls("demo_calculate", "invalid_args"))
	}
	if v, _ := m.Value("wasmgate_tool_calls_total", map[string]string{"tool": "demo_calculate", "source": "demo"}); v == 0 {
		t.Error("relay calls are not labelled with the site as plugin")
	}
	if v, _ := m.Value("wasmgate_relay_bridges", map[string]string{"site": "demo"}); v != 1 {
		t.Errorf("wasmgate_relay_bridges{site=demo} = %v", v)
	}

	t.Run("refusals are counted and serve nothing", func(t *testing.T) {
		_, resp, err := relaytest.Dial(t, demoURL, "https://evil.example")
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("foreign origin: %v %v", err, resp)
		}
		_, resp, err = relaytest.Dial(t, demoURL, "")
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("missing origin: %v %v", err, resp)
		}
		q, _, err := relaytest.Dial(t, demoURL, "http://localhost:8000")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := relaytest.Handshake(q, "demo", "a wrong token of some length"); err == nil {
			t.Error("a wrong token was welcomed")
		}
		// A second page with the right token: the site is busy.
		q, _, _ = relaytest.Dial(t, demoURL, "http://localhost:8000")
		_, _, err = relaytest.Handshake(q, "demo", relayToken)
		var ce websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != 4008 || !strings.Contains(ce.Reason, "already has a connected page") {
			t.Errorf("second page: %v", err)
		}
		// The gateway counts a refusal after it has sent the close frame,
		// so the page can see the close before the counter moves: wait for
		// the counts, then check them.
		want := map[string]float64{"origin": 2, "bad_proof": 1, "busy": 1, "ok": 1}
		handshakes := func(m harness.Metrics, outcome string) float64 {
			v, _ := m.Value("wasmgate_relay_handshakes_total", map[string]string{"site": "demo", "outcome": outcome})
			return v
		}
		var m harness.Metrics
		harness.WaitFor(5*time.Second, func() bool {
			m = g.Scrape(t)
			for outcome, n := range want {
				if handshakes(m, outcome) != n {
					return false
				}
			}
			return true
		})
		for outcome, n := range want {
			if v := handshakes(m, outcome); v != n {
				t.Errorf("handshakes %s = %v, want %v", outcome, v, n)
			}
		}
		if text, _ := harness.CallTool(ctx, t, c, "demo_calculate", map[string]any{"operation": "add", "a": 1, "b": 1}); text != "2" {
			t.Errorf("the page no longer serves: %q", text)
		}
	})

	t.Run("a page error is isError with its message", func(t *testing.T) {
		q := startGoPage(t, relayURL(g.MCPURL, "other"), "other", relayToken)
		q.register(map[string]any{"tools": []any{map[string]any{"name": "fail"}}})
		harness.WaitTools(ctx, t, c, 10*time.Second, "calculate", "demo_calculate", "o_fail")
		go func() {
			call := q.nextCall()
			relaytest.Write(q.c, map[string]any{"type": "result", "id": call["id"], "error": map[string]any{"message": "the handler threw: boom"}})
		}()
		text, isErr := harness.CallTool(ctx, t, c, "o_fail", nil)
		if !isErr || text != "the handler threw: boom" {
			t.Errorf("o_fail = %q isError=%v", text, isErr)
		}
		q.c.Close(websocket.StatusNormalClosure, "")
		harness.WaitTools(ctx, t, c, 10*time.Second, "calculate", "demo_calculate")
	})

	t.Run("a page that leaves mid-call fails it at once", func(t *testing.T) {
		q := startGoPage(t, relayURL(g.MCPURL, "other"), "other", relayToken)
		q.register(map[string]any{"tools": []any{map[string]any{"name": "slow"}}})
		harness.WaitTools(ctx, t, c, 10*time.Second, "calculate", "demo_calculate", "o_slow")
		type res struct {
			text  string
			isErr bool
			at    time.Time
		}
		out := make(chan res, 1)
		go func() {
			r, err := harness.CallToolErr(ctx, c, "o_slow", nil)
			if err != nil {
				out <- res{err.Error(), false, time.Now()}
				return
			}
			out <- res{harness.ResultText(r), r.IsError, time.Now()}
		}()
		q.nextCall()
		left := time.Now()
		q.c.CloseNow()
		r := <-out
		if !r.isErr || !strings.Contains(r.text, "disconnected before answering") {
			t.Errorf("o_slow = %q isError=%v", r.text, r.isErr)
		}
		if d := r.at.Sub(left); d > time.Second {
			t.Errorf("the call failed %v after the page left, want under a second", d)
		}
		harness.WaitTools(ctx, t, c, 10*time.Second, "calculate", "demo_calculate")
		if v := g.Scrape(t).ToolCalls("o_slow", "crash"); v != 1 {
			t.Errorf("o_slow crash outcomes = %v", v)
		}
	})

	t.Run("a changed token applies to the next handshake", func(t *testing.T) {
		q := startGoPage(t, relayURL(g.MCPURL, "other"), "other", relayToken)
		harness.WriteFile(t, tokenFile, []byte(relayNewToken+"\n"))
		before := g.ReloadCount(t)
		g.MustReload(t, "reload")
		g.WaitReload(t, before, "token change")
		q.register(map[string]any{"tools": []any{}}) // still connected
		q.c.Close(websocket.StatusNormalClosure, "")
		<-q.done
		r, _, err := relaytest.Dial(t, relayURL(g.MCPURL, "other"), "http://localhost:8000")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := relaytest.Handshake(r, "other", relayToken); websocket.CloseStatus(err) != 4001 {
			t.Errorf("old token after the reload: %v, want close 4001", err)
		}
		startGoPage(t, relayURL(g.MCPURL, "other"), "other", relayNewToken)
	})

	t.Run("a reload removing a site closes its page and removes its tools", func(t *testing.T) {
		before := notes.Lists()[0]
		harness.WriteFile(t, e.Config, relayConfig(t, e, fmt.Sprintf("  sites:\n    - {name: other, token_file: %q, prefix: o_}\n", tokenFile)))
		n := g.ReloadCount(t)
		g.MustReload(t, "reload")
		g.WaitReload(t, n, "site removed")
		if code, reason := p.closed(); code != 4004 {
			t.Errorf("the page of the removed site: closed with %d %q", code, reason)
		}
		harness.WaitTools(ctx, t, c, 10*time.Second, "calculate")
		if !harness.WaitFor(5*time.Second, func() bool { return notes.Lists()[0] > before }) {
			t.Errorf("no tools list_changed when the site was removed")
		}
		if _, resp, err := relaytest.Dial(t, demoURL, "http://localhost:8000"); err == nil || resp.StatusCode != http.StatusNotFound {
			t.Errorf("the removed site still accepts pages: %v", err)
		}
	})
}

// TestRelayPrefixReload: a changed prefix renames a connected page's tools
// with list_changed.
func TestRelayPrefixReload(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	env := []string{"WASMGATE_RELAY_DEMO_TOKEN=" + relayToken}
	site := func(prefix string) string {
		return fmt.Sprintf("  sites:\n    - {name: demo, token_env: WASMGATE_RELAY_DEMO_TOKEN, prefix: %s}\n", prefix)
	}
	harness.WriteFile(t, e.Config, relayConfig(t, e, site("web_")))
	g := bins.Start(t, harness.Options{Config: e.Config, Env: env, Stdio: true})
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.StdioClient(t)
	notes := harness.CountNotes(c)
	p := startGoPage(t, relayURL(g.MCPURL, "demo"), "demo", relayToken)
	p.register(map[string]any{"tools": []any{relaytest.CalcTool()}})
	p.serve(func(map[string]any) string { return "ok" })
	harness.WaitTools(ctx, t, c, 10*time.Second, "calculate", "web_calculate")
	before := notes.Lists()[0]
	harness.WriteFile(t, e.Config, relayConfig(t, e, site("app.")))
	n := g.ReloadCount(t)
	g.PostReload(t)
	g.WaitReload(t, n, "prefix change")
	harness.WaitTools(ctx, t, c, 10*time.Second, "calculate", "app.calculate")
	if !harness.WaitFor(5*time.Second, func() bool { return notes.Lists()[0] > before }) {
		t.Errorf("no list_changed for the renamed tools")
	}
	if text, _ := harness.CallTool(ctx, t, c, "app.calculate", map[string]any{"operation": "add", "a": 1, "b": 2}); text != "ok" {
		t.Errorf("app.calculate = %q", text)
	}
}

// TestRelayConfigRefusals: what the relay section refuses before serving.
func TestRelayConfigRefusals(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	for _, c := range []struct {
		name, listen, relay string
		env                 []string
		want                []string
	}{
		{"wu-legacy on a non-loopback plain listener", "0.0.0.0:0", "  sites:\n    - {name: wu, protocol: wu-legacy, token_env: WU_TOKEN}\n",
			[]string{"WU_TOKEN=" + relayToken}, []string{"relay.sites[0].protocol", "token in clear", "0.0.0.0:0"}},
		{"insecure on a non-loopback listener", "0.0.0.0:0", "  sites:\n    - {name: wu, protocol: wu-legacy, insecure: true}\n",
			nil, []string{"relay.sites[0].insecure"}},
		{"a token in clear", "127.0.0.1:0", "  sites:\n    - {name: demo, token: hunter2hunter2hunter2}\n",
			nil, []string{"relay.sites[0].token: never write a token"}},
		{"a token variable not set", "127.0.0.1:0", "  sites:\n    - {name: demo, token_env: WASMGATE_RELAY_UNSET}\n",
			nil, []string{"relay.sites[0].token_env: environment variable WASMGATE_RELAY_UNSET is not set"}},
		{"a site named like a plugin", "127.0.0.1:0", "  sites:\n    - {name: calculator, token_env: T}\n",
			[]string{"T=" + relayToken}, []string{"relay.sites[0].name", "plugins[0]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			yaml := strings.Replace(e.YAML(harness.NoWatch, harness.Item("name: calculator", "path: "+harness.Q(calc))), "listen: 127.0.0.1:0\nadmin", "listen: "+c.listen+"\nadmin", 1)
			cfg := filepath.Join(t.TempDir(), "gateway.yaml")
			// A non-loopback listener needs authentication, or this waiver.
			harness.WriteFile(t, cfg, []byte(yaml+"auth:\n  allow_anonymous: true\nrelay:\n"+c.relay))
			for _, args := range [][]string{{"validate", "--config", cfg}, {"serve", "--config", cfg}} {
				r := bins.Run(t, harness.RunOptions{Plain: true, Env: c.env}, args...)
				if r.Code == 0 {
					t.Fatalf("%s succeeded:\n%s", args[0], r.Stderr)
				}
				for _, w := range c.want {
					if !strings.Contains(r.Stderr, w) {
						t.Errorf("%s: stderr does not say %q:\n%s", args[0], w, r.Stderr)
					}
				}
				if strings.Contains(r.Stderr, "hunter2") {
					t.Errorf("%s shows the token", args[0])
				}
			}
		})
	}
}

// TestRelayUnderPolicy: relay tools go through the gateway's call path, so
// policy filters and refuses them by their published names, like plugin
// tools.
func TestRelayUnderPolicy(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	harness.WriteFile(t, e.Config, append(relayConfig(t, e, "  sites:\n    - {name: demo, token_env: RELAY_DEMO_TOKEN}\n"),
		"policy:\n  reveal_hidden: true\n  default: allow\n  rules:\n    - principals: [\"*\"]\n      deny: {tools: [\"demo_secret*\"]}\n"...))
	g := bins.Start(t, harness.Options{Config: e.Config, Env: []string{"RELAY_DEMO_TOKEN=" + relayToken}})
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t)
	p := startGoPage(t, relayURL(g.MCPURL, "demo"), "demo", relayToken)
	ack := p.register(map[string]any{"tools": []any{relaytest.CalcTool(), map[string]any{"name": "secret"}}})
	if fmt.Sprint(ack["tools"]) != "[demo_calculate demo_secret]" {
		t.Fatalf("registered %v", ack)
	}
	p.serve(func(map[string]any) string { return "answered" })
	harness.WaitTools(ctx, t, c, 10*time.Second, "calculate", "demo_calculate")
	// Hidden from the caller's list, and refused by policy (the page never
	// sees the call: the only call it answers is checked below).
	if res, err := harness.CallToolErr(ctx, c, "demo_secret", nil); err != nil || !res.IsError || !strings.Contains(harness.ResultText(res), "denied by policy") {
		t.Errorf("demo_secret under a deny rule: %v %v", res, err)
	}
	if text, _ := harness.CallTool(ctx, t, c, "demo_calculate", map[string]any{"operation": "add", "a": 1, "b": 1}); text != "answered" {
		t.Errorf("demo_calculate = %q", text)
	}
	select {
	case f := <-p.calls:
		t.Errorf("a denied call reached the page: %v", f)
	default:
	}
}
