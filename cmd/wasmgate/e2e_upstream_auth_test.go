package main

// OAuth 2.0 client credentials towards a remote upstream, and curation
// (tools.include/exclude, overrides) of an upstream's tools, end to end
// (issue 17).

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestUpstreamOAuth: the gateway gets a token from a token endpoint with
// the client credentials grant (client id, secret from the environment,
// scopes) and sends it to an upstream that accepts nothing else; a wrong
// client secret fails the load with an error naming the upstream and the
// token endpoint, and neither secret reaches the reload's answer, the log
// or the metrics. The old upstream keeps serving.
func TestUpstreamOAuth(t *testing.T) {
	t.Parallel()
	const clientID = "wasmgate-gw"
	secret, wrong, access := newToken(t), newToken(t), newToken(t)
	var issued, refused, authorized atomic.Int64
	var badScope atomic.Value
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id, sec, ok := r.BasicAuth()
		if !ok {
			id, sec = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		w.Header().Set("Content-Type", "application/json")
		if r.PostForm.Get("grant_type") != "client_credentials" || id != clientID || sec != secret {
			refused.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client", "error_description": "client authentication failed"})
			return
		}
		if s := r.PostForm.Get("scope"); s != "tickets:read tickets:write" {
			badScope.Store(s)
		}
		issued.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600})
	}))
	defer tokens.Close()
	mcpSrv := server.NewMCPServer("tickets", "1.0.0", server.WithToolCapabilities(false))
	mcpSrv.AddTool(mcp.NewTool("search"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ticket 7"), nil
	})
	handler := server.NewStreamableHTTPServer(mcpSrv)
	var noTeam atomic.Int64
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Team") != "infra" { // the upstream's headers, on every request
			noTeam.Add(1)
		}
		if r.Header.Get("Authorization") != "Bearer "+access {
			w.Header().Set("WWW-Authenticate", `Bearer realm="tickets"`)
			http.Error(w, "a token of the token endpoint, please", http.StatusUnauthorized)
			return
		}
		authorized.Add(1)
		handler.ServeHTTP(w, r)
	}))
	defer upstream.Close()

	item := func(name, secretEnv string) string {
		return fmt.Sprintf(`upstreams:
  - name: %s
    url: %s/mcp
    prefix: tickets
    headers: {X-Team: infra}
    auth:
      oauth:
        token_url: %s/token
        client_id: %s
        client_secret_env: %s
        scopes: [tickets:read, tickets:write]
`, name, upstream.URL, tokens.URL, clientID, secretEnv)
	}
	base := bins.YAML(harness.Parts{
		Server:  harness.NoWatch,
		Plugins: fmt.Sprintf("  - name: calculator\n    path: %s\n", harness.Wasm(t, "examples/plugins/calculator")),
	})
	cfg := harness.WriteConfig(t, base+item("tickets", "TICKETS_SECRET"))
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{"TICKETS_SECRET=" + secret, "WRONG_SECRET=" + wrong}})
	secrets := harness.Secrets{secret, wrong, access}
	secrets.Watch(t, g)
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t)
	if text, isErr := harness.CallTool(ctx, t, c, "tickets_search", nil); isErr || text != "ticket 7" {
		t.Fatalf("tickets_search = %q (isError %v)", text, isErr)
	}
	if issued.Load() != 1 || authorized.Load() == 0 {
		t.Fatalf("tokens issued %d, requests the upstream authorized %d; want 1 token (kept, not fetched per request) and some", issued.Load(), authorized.Load())
	}
	if s := badScope.Load(); s != nil {
		t.Fatalf("the token request asked for scope %q", s)
	}
	if n := noTeam.Load(); n != 0 {
		t.Fatalf("%d requests reached the upstream without its headers (X-Team: infra)", n)
	}

	// A wrong client secret: the reload fails naming the upstream and
	// the token endpoint, without either secret.
	harness.RenameOver(t, cfg, []byte(base+item("tickets2", "WRONG_SECRET")))
	code, body := g.PostReload(t)
	want := fmt.Sprintf(`upstream "tickets2": the OAuth token endpoint %s/token refused the client credentials of client_id %q (401 Unauthorized invalid_client: client authentication failed); check auth.oauth`, tokens.URL, clientID)
	if code != http.StatusInternalServerError || !strings.Contains(body, want) {
		t.Fatalf("reload with a wrong client secret (%d) does not say\n%s\n%s", code, want, body)
	}
	if refused.Load() == 0 {
		t.Fatal("the token endpoint was not asked with the wrong secret")
	}
	secrets.Check(t, "the failed reload's answer", body)
	secrets.Check(t, "the log", g.Stderr())
	_, status := harness.HTTPGet(t, g.AdminURL+"/api/status")
	secrets.Check(t, "/api/status", status)
	// The upstream of before serves on, as does the plugin.
	if text, isErr := harness.CallTool(ctx, t, c, "tickets_search", nil); isErr || text != "ticket 7" {
		t.Fatalf("tickets_search after the failed reload = %q (isError %v)", text, isErr)
	}
	harness.Calc(ctx, t, c, 3, 4)
}

// TestUpstreamCuration: tools.include/exclude and overrides (name,
// description, annotations) on an upstream: only the selected tools are
// published, under their new names with the new description and
// annotations; a call of the new name reaches the upstream's tool, the
// old name is unknown; a reload that changes only the curation keeps the
// upstream's process.
func TestUpstreamCuration(t *testing.T) {
	t.Parallel()
	unruly := bins.GoFixture(t, "testdata/upstreams/unruly")
	render := func(curation string) []byte {
		return []byte(upstreamYAML(t, fmt.Sprintf("  - name: cur\n    command: [%q, --tools=12]\n    prefix: cu\n%s", unruly, curation)))
	}
	cfg := harness.WriteConfig(t, string(render(`    tools: {include: ["t*", hello], exclude: ["t1*"]}
    overrides:
      hello:
        name: greet
        description: Says hello, curated
        annotations: {title: Greeter, read_only_hint: true, destructive_hint: false}
      t0: {description: The first generated tool}
`)))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t)
	tools := listDefs(ctx, t, c)
	var names []string
	for n := range tools {
		names = append(names, n)
	}
	slices.Sort(names)
	want := []string{"calculate", "cu_greet", "cu_t0", "cu_t2", "cu_t3", "cu_t4", "cu_t5", "cu_t6", "cu_t7", "cu_t8", "cu_t9"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v (t1*, flood and ask left out, hello renamed)", names, want)
	}
	greet := tools["cu_greet"]
	a := greet.Annotations
	if greet.Description != "Says hello, curated" || a.Title != "Greeter" || a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
		t.Fatalf("cu_greet = %+v (annotations %+v), want the overridden description and annotations", greet, a)
	}
	if d := tools["cu_t0"].Description; d != "The first generated tool" {
		t.Fatalf("cu_t0's description = %q", d)
	}
	if d := tools["cu_t2"].Description; d != "generated tool 2" {
		t.Fatalf("cu_t2's description = %q, want the upstream's own", d)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "cu_greet", nil); isErr || text != "hello" {
		t.Fatalf("cu_greet = %q (isError %v), want the upstream's hello", text, isErr)
	}
	for _, gone := range []string{"cu_hello", "cu_flood", "cu_t1"} {
		if res, err := harness.CallToolErr(ctx, c, gone, nil); err == nil && !res.IsError {
			t.Fatalf("%s, which curation leaves out, was called: %+v", gone, res)
		}
	}
	// Curation changed alone: the same process serves the new view.
	kids := childrenOf(t, g.Cmd.Process.Pid)
	n := g.ReloadCount(t)
	harness.RenameOver(t, cfg, render("    tools: {exclude: [\"t*\"]}\n"))
	g.WaitReload(t, n, "curation changed")
	tools = listDefs(ctx, t, c)
	if _, ok := tools["cu_hello"]; !ok || len(tools) != 4 {
		t.Fatalf("tools after the new curation: %v, want calculate, cu_hello, cu_flood, cu_ask", tools)
	}
	if k := childrenOf(t, g.Cmd.Process.Pid); !slices.Equal(k, kids) {
		t.Fatalf("the upstream's process changed with its curation: %v, was %v", k, kids)
	}
}

// TestUpstreamSSEFallback: a remote server that speaks only the older
// HTTP+SSE transport (mcp-go's SSEServer) is reached over it: its tool is
// listed and called, and the status shows it up on that transport.
func TestUpstreamSSEFallback(t *testing.T) {
	t.Parallel()
	mcpSrv := server.NewMCPServer("legacy", "1.0.0", server.WithToolCapabilities(false))
	mcpSrv.AddTool(mcp.NewTool("old", mcp.WithString("who")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("old-style hello, " + req.GetString("who", "?")), nil
	})
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = server.NewSSEServer(mcpSrv, server.WithBaseURL("http://"+srv.Listener.Addr().String()))
	srv.Start()
	t.Cleanup(srv.Close) // after the gateway stops: its event stream holds a request open
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server: harness.NoWatch,
		Sections: fmt.Sprintf(`upstreams:
  - name: legacy
    url: %s/sse
    prefix: legacy
`, srv.URL),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, time.Minute)
	c := g.SessionClient(t)
	if text, isErr := harness.CallTool(ctx, t, c, "legacy_old", map[string]any{"who": "Ada"}); isErr || text != "old-style hello, Ada" {
		t.Fatalf("legacy_old = %q (isError %v)", text, isErr)
	}
	_, body := harness.HTTPGet(t, g.AdminURL+"/api/status")
	var status struct {
		Sources []struct {
			Name     string `json:"name"`
			Upstream struct {
				Transport string `json:"transport"`
				Up        bool   `json:"up"`
			} `json:"upstream"`
		} `json:"sources"`
	}
	if err := json.Unmarshal([]byte(body), &status); err != nil || len(status.Sources) != 1 || status.Sources[0].Upstream.Transport != "sse" || !status.Sources[0].Upstream.Up {
		t.Fatalf("the status does not show the upstream on the HTTP+SSE transport (%v):\n%s", err, body)
	}
}

// TestUpstreamRemoteReconnects: a remote server that goes away fails the
// calls made meanwhile with an error naming the upstream and is shown
// down; once it is back (a new process: its sessions are gone) the
// gateway connects again by itself and calls succeed.
func TestUpstreamRemoteReconnects(t *testing.T) {
	t.Parallel()
	addr := harness.FreePort(t)
	serve := func() *http.Server {
		mcpSrv := server.NewMCPServer("flaky", "1.0.0", server.WithToolCapabilities(false))
		mcpSrv.AddTool(mcp.NewTool("still"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("still here"), nil
		})
		var ln net.Listener
		if !harness.WaitFor(10*time.Second, func() bool {
			var err error
			ln, err = net.Listen("tcp", addr)
			return err == nil
		}) {
			t.Fatalf("cannot listen on %s again", addr)
		}
		srv := &http.Server{Handler: server.NewStreamableHTTPServer(mcpSrv), ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		return srv
	}
	srv := serve()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server: harness.NoWatch,
		Sections: fmt.Sprintf(`upstreams:
  - name: flaky
    url: http://%s/mcp
    limits: {timeout: 3s}
`, addr),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t)
	if text, isErr := harness.CallTool(ctx, t, c, "still", nil); isErr || text != "still here" {
		t.Fatalf("still = %q (isError %v)", text, isErr)
	}
	_ = srv.Close()
	text, isErr := harness.CallTool(ctx, t, c, "still", nil)
	if !isErr || !strings.Contains(text, `upstream "flaky"`) {
		t.Fatalf("a call while the server is gone = %q (isError %v), want an isError naming the upstream", text, isErr)
	}
	if !harness.WaitFor(20*time.Second, func() bool {
		v, _ := g.Metric(t, "wasmgate_upstream_up", map[string]string{"upstream": "flaky"})
		return v == 0
	}) {
		t.Fatal("the upstream is not shown down while its server is gone")
	}
	srv = serve()
	defer srv.Close()
	if !harness.WaitFor(60*time.Second, func() bool {
		text, isErr := harness.CallTool(ctx, t, c, "still", nil)
		return !isErr && text == "still here"
	}) {
		text, isErr := harness.CallTool(ctx, t, c, "still", nil)
		t.Fatalf("once the server is back: %q (isError %v)", text, isErr)
	}
	if v, _ := g.Metric(t, "wasmgate_upstream_up", map[string]string{"upstream": "flaky"}); v != 1 {
		t.Errorf("wasmgate_upstream_up = %v after the reconnect, want 1", v)
	}
}
