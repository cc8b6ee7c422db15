package main

// Plugin HTTP end to end (testdata/plugins/fetch): a plugin's requests go
// through the gateway's own client, which enforces allowed_hosts on host
// and port, on every redirect and on the address each connection goes to,
// never reaches the gateway's own listeners, and bounds the response and
// the time. Every refusal reaches the plugin as an error it reports
// itself ("fetch: ..."), not as a crash.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// recordingServer is an HTTP server on 127.0.0.1 that answers
// "METHOD /path body" and records every request that reached it.
type recordingServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newRecordingServer(t *testing.T, routes map[string]http.HandlerFunc) *recordingServer {
	t.Helper()
	s := &recordingServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		hit := fmt.Sprintf("%s %s %s", r.Method, r.URL.Path, body)
		s.mu.Lock()
		s.hits = append(s.hits, hit)
		s.mu.Unlock()
		if h := routes[r.URL.Path]; h != nil {
			h(w, r)
			return
		}
		io.WriteString(w, hit)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *recordingServer) Hits() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hits...)
}

func (s *recordingServer) Port() string {
	_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
	return p
}

func TestPluginHTTP(t *testing.T) {
	t.Parallel()
	fetchWasm := harness.Wasm(t, "testdata/plugins/fetch")
	release := make(chan struct{})
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the servers close (cleanups run last-first)

	// b is a host no grant allows: nothing may reach it, except in the
	// control cases that grant every loopback port.
	b := newRecordingServer(t, nil)
	a := newRecordingServer(t, map[string]http.HandlerFunc{
		"/redirect": func(w http.ResponseWriter, r *http.Request) {
			code := 302
			if r.URL.Query().Get("code") == "307" {
				code = 307
			}
			http.Redirect(w, r, r.URL.Query().Get("to"), code)
		},
		"/big": func(w http.ResponseWriter, r *http.Request) {
			w.Write(bytes.Repeat([]byte("x"), 8<<20))
		},
		"/hang": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		},
	})

	// Four grants of the same module:
	//   fetch        127.0.0.1:<a> (an IP literal, so loopback is named)
	//   local_fetch  localhost:<a> (localhost names loopback)
	//   wide_fetch   127.0.0.1:*   (every loopback port: only the gateway's own listeners stay out)
	//   glob_fetch   *:*           (a glob: never a loopback address)
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Server: "  watch: false\n", Plugins: fmt.Sprintf(`  - name: fetch
    path: %[1]s
    allowed_hosts: ["127.0.0.1:%[2]s"]
    limits: {timeout: 3s, http_response: 1MiB}
  - name: local
    path: %[1]s
    prefix: local
    allowed_hosts: ["localhost:%[2]s"]
  - name: wide
    path: %[1]s
    prefix: wide
    allowed_hosts: ["127.0.0.1:*"]
  - name: glob
    path: %[1]s
    prefix: glob
    allowed_hosts: ["*:*"]
`, fetchWasm, a.Port())}))
	g := bins.Start(t, harness.Options{Config: cfg})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, 120*time.Second)

	type result struct {
		Status      int    `json:"status"`
		Body        string `json:"body"`
		ContentType string `json:"content_type"`
	}
	// ok calls tool, which must succeed, and returns the response.
	ok := func(t *testing.T, tool string, args map[string]any) result {
		t.Helper()
		text, isErr := harness.CallTool(ctx, t, c, tool, args)
		var r result
		if isErr || json.Unmarshal([]byte(text), &r) != nil {
			t.Fatalf("%s %v = %.300q (isError %v), want a response", tool, args, text, isErr)
		}
		return r
	}
	// refused calls tool, which must fail with the plugin's own error
	// ("fetch: ...") containing each of want.
	refused := func(t *testing.T, tool string, args map[string]any, want ...string) {
		t.Helper()
		text, isErr := harness.CallTool(ctx, t, c, tool, args)
		if !isErr || !strings.HasPrefix(text, "fetch: ") {
			t.Fatalf("%s %v = %.300q (isError %v), want the plugin's error \"fetch: ...\"", tool, args, text, isErr)
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s %v: %q does not say %q", tool, args, text, w)
			}
		}
	}
	redirect := func(to string, code int) string {
		return fmt.Sprintf("%s/redirect?code=%d&to=%s", a.URL, code, url.QueryEscape(to))
	}
	noHits := func(t *testing.T) {
		t.Helper()
		if h := b.Hits(); len(h) != 0 {
			t.Errorf("a host no grant allows was reached: %v", h)
		}
	}

	t.Run("allowed", func(t *testing.T) {
		if r := ok(t, "fetch", map[string]any{"url": a.URL + "/hello"}); r.Status != 200 || r.Body != "GET /hello " || r.ContentType != "text/plain; charset=utf-8" {
			t.Errorf("GET = %+v", r)
		}
		if r := ok(t, "fetch", map[string]any{"url": a.URL + "/post", "method": "POST", "body": "payload"}); r.Status != 200 || r.Body != "POST /post payload" {
			t.Errorf("POST = %+v", r)
		}
		if r := ok(t, "local_fetch", map[string]any{"url": "http://localhost:" + a.Port() + "/by-name"}); r.Status != 200 || r.Body != "GET /by-name " {
			t.Errorf("GET localhost = %+v", r)
		}
	})

	t.Run("redirect to a host not granted", func(t *testing.T) {
		for _, code := range []int{302, 307} {
			refused(t, "fetch", map[string]any{"url": redirect(b.URL+"/stolen", code), "method": "POST", "body": "secret"},
				"redirect to "+b.URL+"/stolen refused", "not in allowed_hosts")
		}
		noHits(t)
	})

	t.Run("disallowed port", func(t *testing.T) {
		refused(t, "fetch", map[string]any{"url": b.URL + "/"}, "127.0.0.1:"+b.Port()+" is not in allowed_hosts")
		refused(t, "local_fetch", map[string]any{"url": "http://localhost:" + b.Port() + "/"}, "localhost:"+b.Port()+" is not in allowed_hosts")
		noHits(t)
	})

	t.Run("name resolving to loopback", func(t *testing.T) {
		// *:* grants every host and port, but a glob never names a loopback
		// address: neither a name resolving to one nor the IP itself.
		refused(t, "glob_fetch", map[string]any{"url": "http://localhost:" + a.Port() + "/"}, "(localhost) is a loopback address")
		refused(t, "glob_fetch", map[string]any{"url": a.URL + "/"}, "is a loopback address")
	})

	t.Run("gateway's own listeners", func(t *testing.T) {
		before := g.ReloadCount(t)
		hitsBefore := len(a.Hits())
		// The control: the wide grant follows a 307 to another loopback port.
		if r := ok(t, "wide_fetch", map[string]any{"url": redirect(b.URL+"/fine", 307), "method": "POST", "body": "x"}); r.Body != "POST /fine x" {
			t.Fatalf("wide_fetch 307 to another port = %+v, want the body re-POSTed", r)
		}
		refused(t, "wide_fetch", map[string]any{"url": redirect(g.AdminURL+"/-/reload", 307), "method": "POST", "body": "{}"},
			"is the gateway's own listener")
		refused(t, "wide_fetch", map[string]any{"url": redirect(g.AdminURL+"/-/reload", 302)}, "is the gateway's own listener")
		refused(t, "wide_fetch", map[string]any{"url": g.AdminURL + "/-/reload", "method": "POST"}, "is the gateway's own listener")
		refused(t, "wide_fetch", map[string]any{"url": g.MCPURL, "method": "POST", "body": `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			"headers": map[string]any{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}},
			"is the gateway's own listener")
		if n := len(a.Hits()) - hitsBefore; n != 3 {
			t.Errorf("the redirecting server got %d requests, want 3", n)
		}
		if after := g.ReloadCount(t); after != before {
			t.Errorf("the gateway reloaded (reloads_total %v -> %v)", before, after)
		}
		if s := g.Stderr(); strings.Contains(s, "configuration reloaded") || strings.Contains(s, "reload failed") {
			t.Errorf("the gateway logged a reload:\n%s", s)
		}
		b.mu.Lock()
		b.hits = nil // the control reached b on purpose
		b.mu.Unlock()
	})

	t.Run("huge response", func(t *testing.T) {
		refused(t, "fetch", map[string]any{"url": a.URL + "/big"}, "response body is larger than limits.http_response (1MiB)")
		if r := ok(t, "fetch", map[string]any{"url": a.URL + "/after-big"}); r.Body != "GET /after-big " {
			t.Errorf("the call after = %+v", r)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		// limits.timeout is 3s: the request gets 2.7s, and the plugin is
		// left the rest to answer with the error itself.
		before := g.Scrape(t).ToolCalls("fetch", "timeout")
		refused(t, "fetch", map[string]any{"url": a.URL + "/hang"}, "timed out after", "limits.timeout")
		if after := g.Scrape(t).ToolCalls("fetch", "timeout"); after != before {
			t.Errorf("the call itself timed out (tool_calls_total{outcome=timeout} %v -> %v)", before, after)
		}
		unblock()
		if r := ok(t, "fetch", map[string]any{"url": a.URL + "/after-hang"}); r.Body != "GET /after-hang " {
			t.Errorf("the call after = %+v", r)
		}
	})

	noHits(t)
}
