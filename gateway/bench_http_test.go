package gateway

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/gateway/transport"
)

// httpSession initializes a 2025-11-25 session on h (the gateway's
// Streamable HTTP handler, in-process) and returns its id.
func httpSession(tb testing.TB, h http.Handler) string {
	return httpSessionAs(tb, h, "")
}

// httpSessionAs is httpSession with a bearer token ("": none).
func httpSessionAs(tb testing.TB, h http.Handler, token string) string {
	tb.Helper()
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	w := httptest.NewRecorder()
	h.ServeHTTP(w, benchRequestAs(init, "", token))
	id := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || id == "" {
		tb.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, benchRequestAs(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, id, token))
	if w.Code != http.StatusAccepted {
		tb.Fatalf("initialized: %d %s", w.Code, w.Body)
	}
	return id
}

func benchRequest(body, session string) *http.Request { return benchRequestAs(body, session, "") }

func benchRequestAs(body, session, token string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	r.RemoteAddr = "127.0.0.1:40000"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		r.Header.Set("Mcp-Session-Id", session)
		r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	return r
}

// BenchmarkHTTPCallTool is a tools/call of calculate through the whole
// Streamable HTTP handler (the transport's checks, mcp-go or the fast
// path, the envelope, the plugin), in-process: everything a call costs but
// the sockets and net/http's connection handling.
func BenchmarkHTTPCallTool(b *testing.B) {
	for _, tc := range []struct {
		name                   string
		slow, policy, upgraded bool
	}{
		{name: "fast"},
		{name: "slow", slow: true}, // every request through mcp-go's ServeHTTP
		// a session that was sent a notification (after a reload, say):
		// answered with an event stream
		{name: "fast-upgraded", upgraded: true},
		{name: "slow-upgraded", slow: true, upgraded: true},
		// make bench-policy's identity, policy, rate limits and audit file
		{name: "fast-policy", policy: true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			yaml, token := "", ""
			if tc.policy {
				yaml, token = benchPolicyYAML(b.TempDir()), benchToken
			}
			g := newTestGatewayWith(b, yaml)
			h := slowHandler(g, tc.slow)
			id := httpSessionAs(b, h, token)
			if tc.upgraded {
				if err := g.MCPServer().SendNotificationToSpecificClient(id, "notifications/message", map[string]any{"level": "info", "data": "x"}); err != nil {
					b.Fatal(err)
				}
			}
			body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"calculate","arguments":{"operation":"add","a":5,"b":3}}}`)
			want := []byte(`"text":"8"`)
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				w := httptest.NewRecorder()
				r := benchRequestAs("", id, token)
				r.Body, r.ContentLength = readCloser{bytes.NewReader(body)}, int64(len(body))
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), want) {
					b.Fatalf("call: %d %s", w.Code, w.Body)
				}
			}
			reportCPU(b, start)
		})
	}
}

// slowHandler is g's Streamable HTTP handler at /mcp, with or without the
// transport's fast path for plain tools/call requests.
func slowHandler(g *Gateway, slow bool) http.Handler {
	o := transport.Options{
		Path: "/mcp", IdleTTL: time.Minute, MCP: g.MCPServer(), SlowPath: slow,
		Current: func() *transport.State {
			if s := g.cur.Load(); s != nil {
				return s.parts.id.http
			}
			return nil
		},
		Owns: g.Endpoint("default").Owns, Shared: g.sharedSessions, Metrics: g.opts.Metrics, Logger: g.log,
	}
	h, _ := transport.Handler(o)
	return h
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the CPU time per operation since start (user + system,
// every goroutine of the process: GC included), which a busy machine
// disturbs less than the wall time.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/float64(b.N), "cpu-µs/op")
}
