package main

// Bad upstreams (issue 17, item 6): a server that floods notifications,
// one that lists 10,000 tools, a remote one whose TLS certificate the
// gateway does not trust, one that answers with malformed JSON. Each
// gets a precise error naming the upstream, the gateway's memory comes
// back to where it was, and the plugin beside it keeps serving.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// pluginLoad calls the calculator plugin on its own session until the
// func returned is called, which fails t if any call failed.
func pluginLoad(ctx context.Context, t *testing.T, g *harness.Gateway) (stop func()) {
	t.Helper()
	c := g.SessionClient(t)
	done := make(chan struct{})
	var calls, fails atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; ; n++ {
			select {
			case <-done:
				return
			default:
			}
			res, err := harness.CallToolErr(ctx, c, "calculate", map[string]any{"operation": "add", "a": n, "b": 1})
			calls.Add(1)
			if err == nil && (res.IsError || harness.ResultText(res) != fmt.Sprint(n+1)) {
				err = fmt.Errorf("result %q (isError %v)", harness.ResultText(res), res.IsError)
			}
			if err != nil {
				fails.Add(1)
				first.CompareAndSwap(nil, err)
			}
		}
	}()
	return func() {
		t.Helper()
		close(done)
		wg.Wait()
		_ = c.Close()
		if fails.Load() != 0 || calls.Load() == 0 {
			t.Errorf("%d of %d plugin calls failed beside the bad upstream; the first: %v", fails.Load(), calls.Load(), first.Load())
		}
	}
}

// calculatorGateway starts a gateway serving the calculator plugin,
// not watching its config file: base is the config's text, cfg its
// path, for reloads that add upstreams to base and take them away.
func calculatorGateway(t *testing.T) (base, cfg string, g *harness.Gateway) {
	t.Helper()
	base = bins.YAML(harness.Parts{
		Server:  harness.NoWatch,
		Plugins: fmt.Sprintf("  - name: calculator\n    path: %s\n", harness.Wasm(t, "examples/plugins/calculator")),
	})
	cfg = harness.WriteConfig(t, base)
	return base, cfg, bins.Start(t, harness.Options{Config: cfg})
}

// TestUpstreamNotificationFlood: a stdio server sends 50,000 progress
// notifications, log messages, list_changed and resources/updated, as
// fast as the pipe takes them. Each kind is rate-limited and the rest
// counted (wasmgate_upstream_notifications_dropped_total, the status
// page); the flood's own call and the upstream's other tool work; the
// client gets a bounded number of notifications; memory and goroutines
// come back; the plugin never fails.
func TestUpstreamNotificationFlood(t *testing.T) {
	t.Parallel()
	unruly := bins.GoFixture(t, "testdata/upstreams/unruly")
	cfg := harness.WriteConfig(t, upstreamYAML(t, fmt.Sprintf(`  - name: unruly
    command: [%q]
    prefix: un
    limits: {timeout: 3m}
`, unruly)))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 6*time.Minute)
	base := g.Baseline(t, nil)

	c := g.SessionClient(t)
	var progress, updated, listChanged atomic.Int64
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		switch n.Method {
		case string(mcp.MethodNotificationProgress):
			progress.Add(1)
		case string(mcp.MethodNotificationResourceUpdated):
			updated.Add(1)
		case string(mcp.MethodNotificationToolsListChanged):
			listChanged.Add(1)
		}
	})
	sreq := mcp.SubscribeRequest{}
	sreq.Params.URI = "unruly://un/r"
	if err := c.Subscribe(ctx, sreq); err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	stop := pluginLoad(ctx, t, g)
	const n = 50000
	for _, kind := range []string{"progress", "message", "list_changed", "updated"} {
		req := mcp.CallToolRequest{}
		req.Params.Name = "un_flood"
		req.Params.Arguments = map[string]any{"kind": kind, "n": n}
		req.Params.Meta = &mcp.Meta{ProgressToken: "flood-" + kind}
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError || harness.ResultText(res) != fmt.Sprintf("flooded %d", n) {
			t.Fatalf("flood of %s: %v %+v", kind, err, res)
		}
		label := map[string]string{"list_changed": "list_changed", "updated": "resource_updated"}[kind]
		if label == "" {
			label = kind
		}
		var dropped float64
		if !harness.WaitFor(30*time.Second, func() bool {
			dropped, _ = g.Metric(t, "wasmgate_upstream_notifications_dropped_total", map[string]string{"upstream": "unruly", "kind": label})
			return dropped > n/2
		}) {
			t.Fatalf("%s flood: wasmgate_upstream_notifications_dropped_total{kind=%s} = %v, want most of %d", kind, label, dropped, n)
		}
		t.Logf("%s flood: %v of %d dropped", kind, dropped, n)
		if text, isErr := harness.CallTool(ctx, t, c, "un_hello", nil); isErr || text != "hello" {
			t.Fatalf("un_hello after the %s flood = %q (isError %v)", kind, text, isErr)
		}
	}
	stop()
	if p := progress.Load(); p == 0 || p > n/2 {
		t.Errorf("the client got %d progress notifications of %d sent: want some, and far fewer", p, n)
	}
	if !harness.WaitFor(30*time.Second, func() bool { return updated.Load() > 0 }) || updated.Load() > n/2 {
		t.Errorf("the client got %d resources/updated of %d sent: want some, and far fewer", updated.Load(), n)
	}
	// The tools did not change: list_changed reached no client.
	if l := listChanged.Load(); l != 0 {
		t.Errorf("%d tools/list_changed reached the client, though the tools never changed", l)
	}
	_, body := harness.HTTPGet(t, g.AdminURL+"/api/status")
	if !strings.Contains(body, `"notifications_dropped":`) {
		t.Errorf("/api/status does not count the dropped notifications:\n%s", body)
	}
	_ = c.Close()
	g.BackNearBaseline(t, "a notification flood", base, 16<<20)
	harness.Calc(ctx, t, g.SessionClient(t), 2, 2)
}

// TestUpstreamTooManyTools: a server listing 10,000 tools (in one
// message, or in pages) is refused at load with an error naming the
// upstream and limits.max_tools; started in the background, it lists
// nothing and the status page says why; a max_tools that allows its tools
// takes them. The plugin keeps serving, and memory comes back.
func TestUpstreamTooManyTools(t *testing.T) {
	t.Parallel()
	unruly := bins.GoFixture(t, "testdata/upstreams/unruly")
	base, cfg, g := calculatorGateway(t)
	ctx := harness.Ctx(t, 4*time.Minute)
	before := g.Baseline(t, nil)
	stop := pluginLoad(ctx, t, g)
	c := g.SessionClient(t)
	for _, tc := range []struct{ name, args, want string }{
		{"one message", "--tools=10000", `upstreams[0]: upstream "many": tools/list: it lists 10003 tools, more than limits.max_tools (1000); raise limits.max_tools (at most 10000)`},
		{"pages", "--tools=10000, --page=100", `upstreams[0]: upstream "many": tools/list: it lists at least 1100 tools, more than limits.max_tools (1000)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			harness.RenameOver(t, cfg, []byte(base+fmt.Sprintf("upstreams:\n  - name: many\n    command: [%q, %s]\n", unruly, tc.args)))
			g.ReloadRefused(t, tc.want)
			if tools := toolNames(ctx, t, c); len(tools) != 1 {
				t.Fatalf("tools after the refused reload: %d", len(tools))
			}
		})
	}
	// In the background: serving, listing nothing of it, and saying why.
	harness.RenameOver(t, cfg, []byte(base+fmt.Sprintf("upstreams:\n  - name: many\n    command: [%q, --tools=10000]\n    start: background\n", unruly)))
	g.MustReload(t, "reload with a background upstream")
	var status string
	if !harness.WaitFor(30*time.Second, func() bool {
		_, status = harness.HTTPGet(t, g.AdminURL+"/api/status")
		return strings.Contains(status, "more than limits.max_tools (1000)")
	}) {
		t.Fatalf("/api/status does not say the upstream lists too many tools:\n%s", status)
	}
	if tools := toolNames(ctx, t, c); len(tools) != 1 {
		t.Fatalf("tools of an upstream over limits.max_tools were published: %d", len(tools))
	}
	// limits.max_tools raised: its tools are served.
	harness.RenameOver(t, cfg, []byte(base+fmt.Sprintf("upstreams:\n  - name: many\n    command: [%q, --tools=3000, --page=500]\n    prefix: many\n    limits: {max_tools: 5000}\n", unruly)))
	g.MustReload(t, "reload with limits.max_tools 5000")
	if tools := toolNames(ctx, t, c); len(tools) != 3004 {
		t.Fatalf("%d tools with limits.max_tools 5000, want 3004", len(tools))
	}
	if text, isErr := harness.CallTool(ctx, t, c, "many_hello", nil); isErr || text != "hello" {
		t.Fatalf("many_hello = %q (isError %v)", text, isErr)
	}
	// Out of range: a config error naming the key.
	harness.RenameOver(t, cfg, []byte(base+fmt.Sprintf("upstreams:\n  - name: many\n    command: [%q]\n    limits: {max_tools: 20000}\n", unruly)))
	if code, body := g.PostReload(t); code != http.StatusInternalServerError || !strings.Contains(body, "upstreams[0].limits.max_tools: 20000 is out of range (1..10000)") {
		t.Fatalf("max_tools 20000: %d %s", code, body)
	}
	harness.RenameOver(t, cfg, []byte(base))
	g.MustReload(t, "reload without upstreams")
	stop()
	_ = c.Close()
	g.BackNearBaseline(t, "upstreams listing 10,000 tools", before, 16<<20)
}

// mcpUpstream is an mcp-go server with tool "whoami" (answering who) and
// tool "broken".
func mcpUpstream(who string) *server.MCPServer {
	s := server.NewMCPServer("test-upstream", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("whoami"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(who), nil
	})
	s.AddTool(mcp.NewTool("broken"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("not broken after all"), nil
	})
	return s
}

// otherCA is the PEM of a self-signed CA certificate made now, which
// signed nothing the test serves.
func otherCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "another CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// TestUpstreamTLS: a remote upstream over https with a self-signed
// certificate is refused without tls.ca_file, with an error naming the
// upstream and tls.ca_file; with tls.ca_file holding its certificate it
// serves.
func TestUpstreamTLS(t *testing.T) {
	t.Parallel()
	ts := httptest.NewTLSServer(server.NewStreamableHTTPServer(mcpUpstream("over tls")))
	defer ts.Close()
	ca := harness.CertFile(t, ts)
	wrong := filepath.Join(t.TempDir(), "other.pem")
	harness.WriteFile(t, wrong, otherCA(t))

	base, cfg, g := calculatorGateway(t)
	ctx := harness.Ctx(t, 2*time.Minute)
	before := g.Baseline(t, nil)
	stop := pluginLoad(ctx, t, g)
	url := ts.URL + "/mcp"
	for _, tc := range []struct{ name, tls, want string }{
		{"no ca_file", "", `upstreams[0]: upstream "secure": ` + url + `: its TLS certificate is not trusted (`},
		{"no ca_file, the hint", "", "; set tls.ca_file to a PEM file of the CA that signed it"},
		{"another CA", fmt.Sprintf("    tls: {ca_file: %s}\n", wrong), "tls.ca_file (" + wrong + ") does not hold the CA that signed it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			harness.RenameOver(t, cfg, []byte(base+fmt.Sprintf("upstreams:\n  - name: secure\n    url: %s\n%s", url, tc.tls)))
			g.ReloadRefused(t, tc.want, "x509")
		})
	}
	harness.RenameOver(t, cfg, []byte(base+fmt.Sprintf("upstreams:\n  - name: secure\n    url: %s\n    prefix: tls\n    tls: {ca_file: %s}\n", url, ca)))
	g.MustReload(t, "reload with tls.ca_file")
	c := g.SessionClient(t)
	if text, isErr := harness.CallTool(ctx, t, c, "tls_whoami", nil); isErr || text != "over tls" {
		t.Fatalf("tls_whoami = %q (isError %v)", text, isErr)
	}
	// The CA file saved with another CA: the upstream is started anew,
	// which fails, so the reload changes nothing.
	harness.WriteFile(t, ca, otherCA(t))
	if code, body := g.PostReload(t); code != http.StatusInternalServerError || !strings.Contains(body, "tls.ca_file ("+ca+") does not hold the CA that signed it") {
		t.Fatalf("reload with another CA in tls.ca_file: %d %s", code, body)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "tls_whoami", nil); isErr || text != "over tls" {
		t.Fatalf("tls_whoami after the refused reload = %q (isError %v)", text, isErr)
	}
	stop()
	_ = c.Close()
	harness.RenameOver(t, cfg, []byte(base))
	g.MustReload(t, "reload without upstreams")
	g.BackNearBaseline(t, "TLS upstreams", before, 16<<20)
}

// TestUpstreamMalformedJSON: a remote server answering initialize with
// malformed JSON is refused at load naming the upstream; one that answers
// a call with malformed JSON (or with more than limits.max_message) fails
// that call with an isError naming the upstream, and its next call works.
func TestUpstreamMalformedJSON(t *testing.T) {
	t.Parallel()
	var badInit, huge, hugeSSE atomic.Bool
	badInit.Store(true)
	upstream := server.NewStreamableHTTPServer(mcpUpstream("well-formed"))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(strings.NewReader(string(b)))
			body := string(b)
			garbage := (badInit.Load() && strings.Contains(body, `"method":"initialize"`)) || strings.Contains(body, `"name":"broken"`)
			if garbage && hugeSSE.Load() {
				var id struct {
					ID any `json:"id"`
				}
				_ = json.Unmarshal(b, &id)
				w.Header().Set("Content-Type", "text/event-stream")
				idb, _ := json.Marshal(id.ID)
				_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":"+string(idb)+",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\""+strings.Repeat("y", 4<<20)+"\"}]}}\n\n")
				return
			}
			if garbage {
				w.Header().Set("Content-Type", "application/json")
				if huge.Load() {
					_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+strings.Repeat("x", 4<<20)+`"}]}}`)
					return
				}
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":`)
				return
			}
		}
		upstream.ServeHTTP(w, r)
	}))
	defer ts.Close()
	base, cfg, g := calculatorGateway(t)
	ctx := harness.Ctx(t, 2*time.Minute)
	before := g.Baseline(t, nil)
	stop := pluginLoad(ctx, t, g)
	item := fmt.Sprintf("upstreams:\n  - name: odd\n    url: %s/mcp\n    prefix: odd\n    limits: {max_message: 1MiB}\n", ts.URL)
	harness.RenameOver(t, cfg, []byte(base+item))
	g.ReloadRefused(t, `upstream "odd": `+ts.URL+`/mcp answered with malformed JSON (`)
	badInit.Store(false)
	g.MustReload(t, "reload once initialize is well-formed")
	c := g.SessionClient(t)
	// brokenThenWell: odd_broken, answered as what, fails with want; the
	// next call (odd_whoami, after the bad answer) works.
	brokenThenWell := func(what, want, after string) {
		t.Helper()
		if text, isErr := harness.CallTool(ctx, t, c, "odd_broken", nil); !isErr || !strings.Contains(text, want) {
			t.Fatalf("odd_broken%s = %.300q (isError %v), want an isError saying %q", what, text, isErr, want)
		}
		if text, isErr := harness.CallTool(ctx, t, c, "odd_whoami", nil); isErr || text != "well-formed" {
			t.Fatalf("odd_whoami after %s = %q (isError %v)", after, text, isErr)
		}
	}
	brokenThenWell("", `upstream "odd" answered with malformed JSON`, "the malformed answer")
	huge.Store(true)
	brokenThenWell(" with 4 MiB", `upstream "odd" answered with a message longer than limits.max_message (1048576 bytes)`, "the long answer")
	// The same as one event of an event stream.
	hugeSSE.Store(true)
	brokenThenWell(" with a 4 MiB event", `upstream "odd" answered with a message longer than limits.max_message (1048576 bytes)`, "the long event")
	stop()
	_ = c.Close()
	harness.RenameOver(t, cfg, []byte(base))
	g.MustReload(t, "reload without upstreams")
	g.BackNearBaseline(t, "malformed answers of a remote upstream", before, 16<<20)
}

// TestUpstreamUnreachable: a reload that adds an eager remote upstream
// nothing listens for fails whole with one plain reason (the URL, the
// dial error, no "transport error: failed to send request" layers), and
// the plugin beside it keeps serving.
func TestUpstreamUnreachable(t *testing.T) {
	t.Parallel()
	base, cfg, g := calculatorGateway(t)
	ctx := harness.Ctx(t, time.Minute)
	stop := pluginLoad(ctx, t, g)
	addr := harness.FreePort(t) // nothing listens there
	harness.RenameOver(t, cfg, []byte(base+fmt.Sprintf("upstreams:\n  - name: gone\n    url: http://%s/mcp\n", addr)))
	body := g.ReloadRefused(t, fmt.Sprintf(`upstream "gone": http://%s/mcp: cannot connect (dial tcp %s: connect: connection refused); is the server running and listening there?`, addr, addr))
	if strings.Contains(body, "failed to send request") || strings.Contains(body, "transport error") {
		t.Fatalf("the reason keeps the client's wrapping:\n%s", body)
	}
	stop()
	harness.Calc(ctx, t, g.SessionClient(t), 2, 3)
}
