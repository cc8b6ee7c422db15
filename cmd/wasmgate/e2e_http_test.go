package main

// The Streamable HTTP transport's guards (Origin, bearer token, body size,
// malformed bodies), its sessions (DELETE, the GET stream), and the admin
// listener.

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/mcphttp"
)

// toolsListStatus sends tools/list in session s and returns the status.
func toolsListStatus(t *testing.T, s *mcphttp.Session) int {
	t.Helper()
	resp := harness.Send(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, nil)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// stillServes checks the gateway answers a fresh client's tool call.
func stillServes(t *testing.T, g *harness.Gateway, opts ...transport.StreamableHTTPCOption) {
	t.Helper()
	c, _ := harness.HTTPClient(t, g.MCPURL, harness.ProtoSessions, opts...)
	ctx := harness.Ctx(t, 30*time.Second)
	if text, isErr := harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": "add", "a": 20, "b": 22}); isErr || text != "42" {
		t.Errorf("calculate add 20 22 = %q (isError %v), want 42", text, isErr)
	}
}

// TestHTTPTransport covers the default guards and sessions on one gateway:
// loopback-only origins, max_body, malformed bodies, DELETE and the GET
// stream, and the admin listener.
func TestHTTPTransport(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{HTTP: "    max_body: 64KiB\n    stream_heartbeat: 1s\n", Plugins: harness.ExamplePlugins(t)}))
	g := bins.Start(t, harness.Options{Config: cfg})

	t.Run("origin", func(t *testing.T) {
		for _, tc := range []struct {
			origin string
			want   int
		}{
			{"", http.StatusOK}, // most non-browser clients send none
			{"http://localhost:5173", http.StatusOK},
			{"http://127.0.0.1:3000", http.StatusOK},
			{"http://[::1]:8080", http.StatusOK},
			{"https://localhost", http.StatusOK},
			{"https://evil.example", http.StatusForbidden},
			{"http://localhost.evil.example", http.StatusForbidden},
			{"http://127.0.0.1.evil.example", http.StatusForbidden},
			{"http://10.0.0.1:8080", http.StatusForbidden},
			{"null", http.StatusForbidden},
		} {
			h := headerIf("Origin", tc.origin)
			resp := harness.PostJSON(t, g.MCPURL, harness.InitializeBody, h)
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("initialize with Origin %q: status %d, want %d", tc.origin, resp.StatusCode, tc.want)
			}
			if resp.StatusCode == http.StatusForbidden && resp.Header.Get("Mcp-Session-Id") != "" {
				t.Errorf("a refused request (Origin %q) was given a session", tc.origin)
			}
		}
		// A foreign Origin is refused on every method, not only initialize.
		s := harness.OpenSession(t, g.MCPURL)
		resp := harness.Send(t, s, http.MethodPost, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, map[string]string{"Origin": "https://evil.example"})
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("tools/list in a session with a foreign Origin: status %d, want 403", resp.StatusCode)
		}
		resp = harness.Send(t, s, http.MethodGet, "", map[string]string{"Origin": "https://evil.example"})
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET stream with a foreign Origin: status %d, want 403", resp.StatusCode)
		}
		// mcp-go's own client, sending a loopback Origin as a browser
		// page on a dev server would, works end to end.
		stillServes(t, g, transport.WithHTTPHeaders(map[string]string{"Origin": "http://localhost:5173"}))
		// ... and with a foreign one it cannot even initialize.
		c, err := client.NewStreamableHttpClient(g.MCPURL, transport.WithHTTPHeaders(map[string]string{"Origin": "https://evil.example"}))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := harness.InitErr(t, c, harness.ProtoSessions); err == nil {
			t.Errorf("mcp-go client with Origin https://evil.example initialized")
		}
	})

	t.Run("max_body", func(t *testing.T) {
		// A JSON-RPC request of ~100KiB against max_body 64KiB.
		big := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"set-storage","arguments":{"key":"big","value":%q}}}`, strings.Repeat("x", 100<<10))
		s := harness.OpenSession(t, g.MCPURL)
		resp := harness.Send(t, s, http.MethodPost, big, nil)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("POST of %d bytes (Content-Length) with max_body 64KiB: status %d, want 413", len(big), resp.StatusCode)
		}
		// The same body without a Content-Length (chunked) must be refused
		// the same way.
		req, err := s.Request(context.Background(), http.MethodPost, io.MultiReader(strings.NewReader(big)))
		if err != nil {
			t.Fatal(err)
		}
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if req.ContentLength != -1 && req.ContentLength != 0 {
			t.Fatalf("request has Content-Length %d; the test needs a chunked body", req.ContentLength)
		}
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("chunked POST of %d bytes with max_body 64KiB: status %d, want 413 as with a Content-Length; body %.200s", len(big), resp.StatusCode, body)
		}
		// A request just under the limit is served.
		ok := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"set-storage","arguments":{"key":"big","value":%q}}}`, strings.Repeat("y", 60<<10))
		resp = harness.Send(t, s, http.MethodPost, ok, nil)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "Stored value at key: big") {
			t.Errorf("POST of %d bytes under max_body: status %d, body %.200s", len(ok), resp.StatusCode, b)
		}
		stillServes(t, g)
	})

	t.Run("malformed body", func(t *testing.T) {
		s := harness.OpenSession(t, g.MCPURL)
		for _, body := range []string{`{not json`, `[{"jsonrpc":"2.0",`, "\x00\xff\xfe"} {
			resp := harness.Send(t, s, http.MethodPost, body, nil)
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var msg struct {
				Error *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(b, &msg); err != nil || msg.Error == nil || msg.Error.Code != mcp.PARSE_ERROR {
				t.Errorf("POST %q: status %d, body %q; want a JSON-RPC parse error (%d)", body, resp.StatusCode, b, mcp.PARSE_ERROR)
			}
		}
		stillServes(t, g)
	})

	t.Run("sessions", func(t *testing.T) {
		s := harness.OpenSession(t, g.MCPURL)
		if code := toolsListStatus(t, s); code != http.StatusOK {
			t.Fatalf("tools/list in a fresh session: status %d", code)
		}

		// The GET stream opens: 200, text/event-stream, headers sent at once.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, err := s.Request(ctx, http.MethodGet, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET stream: %v", err)
		}
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			t.Errorf("GET stream: status %d, Content-Type %q; want 200 text/event-stream", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		cancel()
		resp.Body.Close()

		// DELETE ends the session; the id is then unknown.
		resp = harness.Send(t, s, http.MethodDelete, "", nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNoContent {
			t.Errorf("DELETE: status %d", resp.StatusCode)
		}
		if code := toolsListStatus(t, s); code != http.StatusNotFound {
			t.Errorf("tools/list in a DELETEd session: status %d, want 404", code)
		}
		// An id the gateway never issued is not a session either.
		forged := mcphttp.Attach(g.MCPURL, "mcp-session-"+uuid.NewString(), mcphttp.Options{})
		if code := toolsListStatus(t, forged); code != http.StatusNotFound {
			t.Errorf("tools/list with a session id the gateway never issued: status %d, want 404", code)
		}
		// Other sessions are unaffected.
		s2 := harness.OpenSession(t, g.MCPURL)
		if code := toolsListStatus(t, s2); code != http.StatusOK {
			t.Errorf("tools/list in another session: status %d", code)
		}
	})

	t.Run("GET stream receives server messages", func(t *testing.T) {
		// With a session's GET stream open, the stream stays open and
		// carries the heartbeat: a ping every stream_heartbeat (1s here).
		s := harness.OpenSession(t, g.MCPURL)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, err := s.Request(ctx, http.MethodGet, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("GET stream: no ping within 10s (stream_heartbeat: 1s): %v", err)
			}
			if strings.Contains(line, `"method":"ping"`) {
				return
			}
		}
	})

	t.Run("admin", func(t *testing.T) {
		for _, p := range []string{"/healthz", "/readyz"} {
			if code, body := harness.HTTPGet(t, g.AdminURL+p); code != http.StatusOK {
				t.Errorf("GET %s = %d %q, want 200", p, code, body)
			}
		}
		m := g.Scrape(t)
		for _, s := range []struct {
			name   string
			labels map[string]string
			check  func(float64) bool
			want   string
		}{
			{"wasmgate_build_info", map[string]string{"version": testVersion}, func(v float64) bool { return v == 1 }, "1 with version=" + testVersion},
			{"go_goroutines", nil, func(v float64) bool { return v > 0 }, "> 0"},
			{"process_resident_memory_bytes", nil, func(v float64) bool { return v > 0 }, "> 0"},
			{"wasmgate_config_last_reload_successful", nil, func(v float64) bool { return v == 1 }, "1"},
			{"wasmgate_config_last_reload_success_timestamp_seconds", nil, func(v float64) bool {
				return v > float64(time.Now().Add(-time.Hour).Unix()) && v <= float64(time.Now().Unix()+1)
			}, "the start time"},
			{"wasmgate_plugins", nil, func(v float64) bool { return v == 3 }, "3"},
			{"wasmgate_tools", nil, func(v float64) bool { return v == 3 }, "3"},
			{"wasmgate_http_rejected_total", map[string]string{"reason": "origin"}, func(v float64) bool { return v >= 1 }, ">= 1 after the refused origins"},
			{"wasmgate_http_rejected_total", map[string]string{"reason": "too_large"}, func(v float64) bool { return v >= 1 }, ">= 1 after the oversized body"},
		} {
			v, ok := m.Value(s.name, s.labels)
			if !ok || !s.check(v) {
				t.Errorf("%s%v = %v (present %v), want %s", s.name, s.labels, v, ok, s.want)
			}
		}
		if code, _ := harness.HTTPGet(t, g.AdminURL+"/nope"); code != http.StatusNotFound {
			t.Errorf("GET /nope on the admin listener = %d, want 404", code)
		}
	})
}

// TestAllowedOrigins: with allowed_origins, exactly those origins pass;
// loopback origins are no longer implied.
func TestAllowedOrigins(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		HTTP:    "    allowed_origins: [\"https://app.example.com\"]\n",
		Plugins: harness.ExamplePlugins(t),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{"https://app.example.com", http.StatusOK},
		{"https://APP.example.com", http.StatusOK}, // host names are case-insensitive
		{"", http.StatusOK},
		{"http://app.example.com", http.StatusForbidden}, // another scheme is another origin
		{"https://app.example.com:8443", http.StatusForbidden},
		{"http://localhost:5173", http.StatusForbidden},
		{"http://127.0.0.1:3000", http.StatusForbidden},
		{"https://evil.example", http.StatusForbidden},
	} {
		h := headerIf("Origin", tc.origin)
		if code := harness.PostInitialize(t, g.MCPURL, h); code != tc.want {
			t.Errorf("Origin %q: status %d, want %d", tc.origin, code, tc.want)
		}
	}
	stillServes(t, g, transport.WithHTTPHeaders(map[string]string{"Origin": "https://app.example.com"}))
}

// TestBearerToken: with transports.http.auth.bearer_token_env, requests
// need the token; the token never appears in logs (even at debug) or
// metrics.
func TestBearerToken(t *testing.T) {
	t.Parallel()
	b := make([]byte, 16)
	rand.Read(b)
	token := "tok-" + hex.EncodeToString(b)
	wrong := "tok-" + hex.EncodeToString(b[:8]) + "wrongwrongwrong0"
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server:  "  log: {level: debug}\n",
		HTTP:    "    auth:\n      bearer_token_env: E2E_WASMGATE_TOKEN\n",
		Plugins: harness.ExamplePlugins(t),
	}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{"E2E_WASMGATE_TOKEN=" + token}})

	for _, tc := range []struct {
		name string
		auth string
		want int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"wrong token", "Bearer " + wrong, http.StatusUnauthorized},
		{"token without Bearer", token, http.StatusUnauthorized},
		{"other scheme", "Basic " + token, http.StatusUnauthorized},
		{"right token", "Bearer " + token, http.StatusOK},
		{"scheme in lower case", "bearer " + token, http.StatusOK}, // RFC 9110: the scheme is case-insensitive
		{"scheme in upper case", "BEARER " + token, http.StatusOK},
	} {
		h := headerIf("Authorization", tc.auth)
		resp := harness.PostJSON(t, g.MCPURL, harness.InitializeBody, h)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
		if tc.want == http.StatusUnauthorized {
			if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("%s: WWW-Authenticate %q, want a Bearer challenge", tc.name, resp.Header.Get("WWW-Authenticate"))
			}
			if strings.Contains(string(body), token) {
				t.Errorf("%s: the 401 body contains the token", tc.name)
			}
		}
	}

	// A foreign origin is still refused even with the right token.
	if code := harness.PostInitialize(t, g.MCPURL, map[string]string{"Authorization": "Bearer " + token, "Origin": "https://evil.example"}); code != http.StatusForbidden {
		t.Errorf("right token, foreign Origin: status %d, want 403", code)
	}

	// mcp-go's client with the token works over both protocol revisions;
	// without it, it cannot initialize.
	withToken := transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token})
	stillServes(t, g, withToken)
	c, _ := harness.HTTPClient(t, g.MCPURL, harness.ProtoStateless, withToken)
	ctx := harness.Ctx(t, 30*time.Second)
	if text, isErr := harness.CallTool(ctx, t, c, "say_hello", map[string]any{"name": "Ada"}); isErr || !strings.Contains(text, "Ada") {
		t.Errorf("say_hello = %q (isError %v)", text, isErr)
	}
	harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": "divide", "a": 1, "b": 0})
	nc, err := client.NewStreamableHttpClient(g.MCPURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := harness.InitErr(t, nc, harness.ProtoSessions); err == nil {
		t.Errorf("mcp-go client without the token initialized")
	}

	metrics := g.Scrape(t)
	if v, _ := metrics.Value("wasmgate_http_rejected_total", map[string]string{"reason": "auth"}); v < 4 {
		t.Errorf("wasmgate_http_rejected_total{reason=auth} = %v, want >= 4", v)
	}
	// Stop first, so that everything the gateway logs, shutdown included,
	// is checked.
	if err := g.Stop(t); err != nil {
		t.Errorf("wasmgate exit: %v", err)
	}
	logs := g.Stderr()
	if !strings.Contains(logs, "level=DEBUG") {
		t.Errorf("no debug output: the test does not check what it means to")
	}
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, token) {
			t.Errorf("the bearer token appears in the log: %s", line)
		}
		if strings.Contains(line, wrong) {
			t.Errorf("a presented (wrong) bearer token appears in the log: %s", line)
		}
	}
	if strings.Contains(string(metrics), token) {
		t.Errorf("the bearer token appears in /metrics")
	}
}
