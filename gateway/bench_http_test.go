package gateway

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// httpSession initializes a 2025-11-25 session on h (the gateway's
// Streamable HTTP handler, in-process) and returns its id.
func httpSession(tb testing.TB, h http.Handler) string {
	tb.Helper()
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	w := httptest.NewRecorder()
	h.ServeHTTP(w, benchRequest(init, ""))
	id := w.Header().Get("Mcp-Session-Id")
	if w.Code != http.StatusOK || id == "" {
		tb.Fatalf("initialize: %d %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, benchRequest(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, id))
	if w.Code != http.StatusAccepted {
		tb.Fatalf("initialized: %d %s", w.Code, w.Body)
	}
	return id
}

func benchRequest(body, session string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	r.RemoteAddr = "127.0.0.1:40000"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
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
	g := newTestGateway(b)
	h, _ := g.HTTPHandler("/mcp", time.Minute)
	id := httpSession(b, h)
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"calculate","arguments":{"operation":"add","a":5,"b":3}}}`)
	want := []byte(`"text":"8"`)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		r := benchRequest("", id)
		r.Body, r.ContentLength = readCloser{bytes.NewReader(body)}, int64(len(body))
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), want) {
			b.Fatalf("call: %d %s", w.Code, w.Body)
		}
	}
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

var _ = json.Valid
