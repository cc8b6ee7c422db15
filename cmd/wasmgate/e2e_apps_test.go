package main

// MCP Apps through the gateway (issue 45, item 1): the ext-apps example
// server @modelcontextprotocol/server-basic-vanillajs, twice, behind two
// prefixes; its App read through the gateway and rendered in headless
// Chromium by a host built on the official SDK's host side
// (tests/node/apps-host.mjs, bundled with esbuild), and the App's own
// tool call (its "Get Server Time" button) reaching the server through
// the gateway, audited as the App's, and refused when policy denies it.
// A plugin's App gets the content-security metadata of its
// allowed_hosts: in Chromium its frame reaches a granted origin and not
// another.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// basicApp is the node binary and server-basic-vanillajs's script.
func basicApp(t *testing.T) (node, script string) {
	t.Helper()
	return harness.NodeServer(t, "@modelcontextprotocol/server-basic-vanillajs")
}

// appsHost bundles tests/node/apps-host.mjs with esbuild and serves it
// as /host.html next to a proxy of the gateway's MCP endpoint at /mcp
// (one origin: the host page needs no CORS).
func appsHost(t *testing.T, g *harness.Gateway) *httptest.Server {
	t.Helper()
	dir := filepath.Join(harness.RepoRoot(), "tests", "node")
	out := filepath.Join(t.TempDir(), "host.js")
	cmd := exec.Command(filepath.Join(dir, "node_modules", ".bin", "esbuild"), "apps-host.mjs",
		"--bundle", "--format=esm", "--platform=browser", "--log-level=warning", "--outfile="+out)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bundle tests/node/apps-host.mjs (npm ci --prefix tests/node installs esbuild): %v\n%s", err, b)
	}
	target, err := url.Parse(g.MCPURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	mux := http.NewServeMux()
	mux.HandleFunc("/host.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><html><head><meta charset="utf-8"><title>apps host</title></head><body><script type="module" src="/host.js"></script></body></html>`)
	})
	mux.HandleFunc("/host.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		http.ServeFile(w, r, out)
	})
	mux.Handle(target.Path, proxy)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// hostState is window.host of the host page.
type hostState struct {
	URI        string         `json:"uri"`
	CSP        map[string]any `json:"csp"`
	Policy     string         `json:"policy"`
	Ready      bool           `json:"ready"`
	Loaded     bool           `json:"loaded"`
	Calls      []string       `json:"calls"`
	Errors     []string       `json:"errors"`
	Violations []string       `json:"violations"`
	Failed     string         `json:"failed"`
}

func readHost(tb *harness.Tab) hostState { return harness.Evaluate[hostState](tb, `window.host`) }

// appFrame is a context of the App's frame of tab: Chromium runs a
// sandboxed frame in a process of its own (a target of type "iframe"
// whose parent is the tab), so actions in the App attach to it
// (chromedp.WithTargetID). It waits for the frame up to 30 s.
func appFrame(t *testing.T, tb *harness.Tab) context.Context {
	t.Helper()
	parent := chromedp.FromContext(tb.Ctx()).Target.TargetID
	var id target.ID
	if !harness.WaitFor(30*time.Second, func() bool {
		infos, err := chromedp.Targets(tb.Ctx())
		if err != nil {
			return false
		}
		for _, info := range infos {
			if info.Type == "iframe" && info.ParentID == parent {
				id = info.TargetID
				return true
			}
		}
		return false
	}) {
		t.Fatal("the App's frame is not a target of its own")
	}
	ctx, cancel := chromedp.NewContext(tb.Ctx(), chromedp.WithTargetID(id))
	t.Cleanup(cancel)
	// The first run attaches, without a timeout: one would detach the
	// frame with it.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("attach to the App's frame: %v", err)
	}
	return ctx
}

// inApp runs a in the App's frame (appFrame), for at most 30 s.
func inApp[T any](t *testing.T, frame context.Context, a chromedp.Action[T]) (T, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(frame, 30*time.Second)
	defer cancel()
	return chromedp.Run(ctx, a)
}

// TestAppsUpstreamBehindPrefix: two copies of server-basic-vanillajs
// under prefixes a and b publish the same App URI ui://get-time/mcp-app.html
// as ui://a/... and ui://b/..., each tool pointing at its own; the App
// of a, rendered in Chromium, gets the server's time through the
// gateway (its call to get-time resolves to a_get-time, audited with
// origin=app); the App of b, whose tool policy denies, gets an error and
// its call is audited as denied.
func TestAppsUpstreamBehindPrefix(t *testing.T) {
	t.Parallel()
	node, script := basicApp(t)
	cfg := harness.WriteConfig(t, upstreamYAML(t, fmt.Sprintf(`  - name: clock-a
    command: [%[1]q, %[2]q, --stdio]
    prefix: a
    limits: {timeout: 60s}
  - name: clock-b
    command: [%[1]q, %[2]q, --stdio]
    prefix: b
    limits: {timeout: 60s}
policy:
  rules:
    - principals: ["*"]
      allow: {tools: ["*"], resources: ["*"], prompts: ["*"]}
    - principals: ["*"]
      deny: {tools: [b_get-time]}
`, node, script)))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 3*time.Minute)
	c := g.SessionClient(t)
	harness.WaitTools(ctx, t, c, 60*time.Second, "a_get-time", "calculate") // b_get-time: denied

	// tools/list: the reference follows the prefix (both forms).
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, tool := range res.Tools {
		if tool.Name != "a_get-time" {
			continue
		}
		found = true
		if tool.Meta == nil {
			t.Fatal("a_get-time has no _meta")
		}
		ui, _ := tool.Meta.AdditionalFields["ui"].(map[string]any)
		if got := ui["resourceUri"]; got != "ui://a/get-time/mcp-app.html" {
			t.Errorf("a_get-time _meta.ui.resourceUri = %v, want ui://a/get-time/mcp-app.html", got)
		}
		if legacy, ok := tool.Meta.AdditionalFields["ui/resourceUri"]; ok && legacy != "ui://a/get-time/mcp-app.html" {
			t.Errorf(`a_get-time _meta["ui/resourceUri"] = %v`, legacy)
		}
	}
	if !found {
		t.Fatalf("a_get-time not listed")
	}
	// Both Apps are published, each under its prefix; the server's own
	// URI is not.
	for _, p := range []string{"a", "b"} {
		uri := "ui://" + p + "/get-time/mcp-app.html"
		cs := harness.ReadResource(ctx, t, c, uri)
		tc, ok := cs[0].(mcp.TextResourceContents)
		if !ok || tc.URI != uri || tc.MIMEType != "text/html;profile=mcp-app" || !strings.Contains(tc.Text, "get-time-btn") {
			t.Errorf("read %s: uri %q mime %q (%d bytes)", uri, tc.URI, tc.MIMEType, len(tc.Text))
		}
	}
	if _, err := harness.ReadResourceErr(ctx, c, "ui://get-time/mcp-app.html"); err == nil {
		t.Error("the server's own App URI is readable through the gateway, want not found")
	}

	host := appsHost(t, g)
	b := harness.StartBrowser(t)

	// a: the App's button calls get-time through the gateway.
	tab := b.Open(t, host.URL+"/host.html?tool=a_get-time")
	tab.WaitJS(`window.host && (window.host.ready || window.host.failed)`, 60*time.Second)
	if st := readHost(tab); st.Failed != "" || st.URI != "ui://a/get-time/mcp-app.html" {
		t.Fatalf("host: %+v", st)
	}
	off := len(g.Stderr())
	frame := appFrame(t, tab)
	if _, err := inApp(t, frame, chromedp.Click(chromedp.CSS("#get-time-btn"))); err != nil {
		t.Fatalf("click Get Server Time in the App: %v", err)
	}
	tab.WaitJS(`window.host.calls.length > 0`, 30*time.Second)
	var text string
	var terr error
	if !harness.WaitFor(30*time.Second, func() bool {
		if text, terr = inApp(t, frame, chromedp.TextContent(chromedp.CSS("#server-time"))); terr != nil {
			return false
		}
		_, err := time.Parse(time.RFC3339, strings.TrimSpace(text))
		return err == nil
	}) {
		t.Fatalf("the App shows %q (%v), want the server's time; host %+v", text, terr, readHost(tab))
	}
	if st := readHost(tab); !reflect.DeepEqual(st.Calls, []string{"get-time"}) || len(st.Errors) != 0 {
		t.Errorf("the App's calls %v, errors %v; want get-time, answered", st.Calls, st.Errors)
	}
	line, ok := g.WaitLog(off, "origin=app", 10*time.Second)
	if !ok || !strings.Contains(line, "name=a_get-time") || !strings.Contains(line, "outcome=ok") || !strings.Contains(line, "app=ui://a/get-time/mcp-app.html") {
		t.Errorf("audit line of the App's call = %q, want name=a_get-time outcome=ok origin=app app=ui://a/get-time/mcp-app.html\n%s", line, g.StderrSince(off))
	}

	// b: policy denies b_get-time; the App's call is refused and audited.
	tab.Close()
	tab2 := b.Open(t, host.URL+"/host.html?app="+url.QueryEscape("ui://b/get-time/mcp-app.html"))
	tab2.WaitJS(`window.host && (window.host.ready || window.host.failed)`, 60*time.Second)
	off = len(g.Stderr())
	if _, err := inApp(t, appFrame(t, tab2), chromedp.Click(chromedp.CSS("#get-time-btn"))); err != nil {
		t.Fatalf("click Get Server Time in b's App: %v", err)
	}
	tab2.WaitJS(`window.host.errors.length > 0`, 30*time.Second)
	if st := readHost(tab2); !strings.Contains(strings.Join(st.Errors, " "), "not found") {
		t.Errorf("the denied call's error: %v, want the tool told as unknown", st.Errors)
	}
	line, ok = g.WaitLog(off, "origin=app", 10*time.Second)
	if !ok || !strings.Contains(line, "name=b_get-time") || !strings.Contains(line, "outcome=denied") || !strings.Contains(line, "app=ui://b/get-time/mcp-app.html") {
		t.Errorf("audit line of the denied App call = %q\n%s", line, g.StderrSince(off))
	}
	// An App calls only its own server's tools: a's App naming b's tool.
	r, err := c.CallTool(ctx, appCall("ui://a/get-time/mcp-app.html", "b_get-time"))
	if err == nil && (r == nil || !r.IsError || !strings.Contains(harness.ResultText(r), "only the tools of its own server")) {
		t.Errorf("a's App calling b_get-time = %+v, want refused", r)
	}
	// An App the endpoint does not publish.
	r, err = c.CallTool(ctx, appCall("ui://get-time/mcp-app.html", "a_get-time"))
	if err == nil && (r == nil || !r.IsError || !strings.Contains(harness.ResultText(r), "not published")) {
		t.Errorf("an unpublished App's call = %+v, want refused", r)
	}
	// The same call without the App's mark: an ordinary call.
	if text, isErr := harness.CallTool(ctx, t, c, "a_get-time", nil); isErr {
		t.Errorf("a_get-time = %q", text)
	}
}

// appCall is a tools/call as a host proxies an App's: _meta.ui.resourceUri
// names the App.
func appCall(app, tool string) mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = map[string]any{}
	req.Params.Meta = &mcp.Meta{AdditionalFields: map[string]any{"ui": map[string]any{"resourceUri": app}}}
	return req
}

// counting is a local HTTP server that counts the connections it
// accepts: whether a frame's request left the browser at all.
func counting(t *testing.T) (origin string, conns *atomic.Int64) {
	t.Helper()
	conns = &atomic.Int64{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), conns
}

// TestAppsPluginCSP: a plugin's App claims it may connect anywhere; the
// gateway gives it the plugin's allowed_hosts instead (connectDomains:
// https:// origins, in the list and in the read). In Chromium, with the
// policy the host builds from that metadata, the frame's fetch to a
// host outside the grants is blocked before it leaves the browser (a
// violation, no connection), and one to the granted host is let through
// (a connection reaches it).
func TestAppsPluginCSP(t *testing.T) {
	t.Parallel()
	granted, grantedConns := counting(t)
	forbidden, forbiddenConns := counting(t)
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: fmt.Sprintf(`  - name: probe
    path: %s
    prefix: pr
    allowed_hosts: [%q]
`, harness.Wasm(t, "testdata/plugins/appprobe"), granted)}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t)
	const app = "ui://pr/probe/app.html"
	want := map[string]any{"connectDomains": []any{"https://" + granted}}

	list, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var listed bool
	for _, r := range list.Resources {
		if r.URI != app {
			continue
		}
		listed = true
		ui, _ := r.Meta.AdditionalFields["ui"].(map[string]any)
		if !reflect.DeepEqual(ui["csp"], want) || ui["prefersBorder"] != false {
			t.Errorf("listed App _meta.ui = %v, want csp %v and prefersBorder kept", ui, want)
		}
	}
	if !listed {
		t.Fatalf("%s not listed: %+v", app, list.Resources)
	}
	cs := harness.ReadResource(ctx, t, c, app)
	tc, _ := cs[0].(mcp.TextResourceContents)
	if ui, _ := tc.Meta["ui"].(map[string]any); !reflect.DeepEqual(ui["csp"], want) {
		t.Errorf("read App _meta = %v, want ui.csp %v", tc.Meta, want)
	}

	host := appsHost(t, g)
	b := harness.StartBrowser(t)
	tab := b.Open(t, host.URL+"/host.html?tool=pr_show")
	tab.WaitJS(`window.host && (window.host.loaded || window.host.failed)`, 60*time.Second)
	st := readHost(tab)
	if st.Failed != "" || st.URI != app || !strings.Contains(st.Policy, "connect-src https://"+granted) {
		t.Fatalf("host: %+v", st)
	}
	probe := func(u string) map[string]any {
		tab.WaitJS(`typeof window.probe === "function"`, 10*time.Second)
		ctx, cancel := context.WithTimeout(tab.Ctx(), 30*time.Second)
		defer cancel()
		out, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]any](fmt.Sprintf(`window.probe(%q)`, u), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("probe %s: %v", u, err)
		}
		return out
	}
	// The frame loads asynchronously: probe once the page listens.
	tab.WaitJS(`window.host.probeReady`, 20*time.Second)
	out := probe("http://" + forbidden + "/x")
	if out["ok"] == true {
		t.Errorf("the App fetched a host outside its grants: %v", out)
	}
	if !harness.WaitFor(5*time.Second, func() bool { return len(readHost(tab).Violations) > 0 }) {
		t.Errorf("no CSP violation for %s; console %q", forbidden, tab.Console())
	}
	if n := forbiddenConns.Load(); n != 0 {
		t.Errorf("the forbidden host got %d connections, want none", n)
	}
	before := len(readHost(tab).Violations)
	// The granted origin (https://, as the grant allows): plain HTTP
	// here, so the TLS handshake fails, but the connection is made: the
	// policy let it through.
	probe("https://" + granted + "/y")
	if !harness.WaitFor(10*time.Second, func() bool { return grantedConns.Load() > 0 }) {
		t.Errorf("the granted host got no connection; violations %v", readHost(tab).Violations)
	}
	if v := readHost(tab).Violations; len(v) != before {
		t.Errorf("violations for the granted host: %v", v[before:])
	}
}
