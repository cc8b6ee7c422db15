package gateway

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/loader"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/transport"
)

// FuzzHTTPRequest drives the real MCP handler (guard, mcp-go, the
// calculator plugin) with arbitrary methods, session ids, protocol
// versions, content types, Authorization headers and bodies. Whatever
// comes in: no panic; no id a client made up is stored; only a successful
// initialize adds a session; stream and session reservations are given
// back; a GET or DELETE naming a session the gateway did not issue is
// refused; the bearer scheme matches in any case.
func FuzzHTTPRequest(f *testing.F) {
	dir := f.TempDir()
	const token = "fuzz-token-0123456789"
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		f.Fatal(err)
	}
	g := newTestGatewayWith(f, "transports:\n  http:\n    max_body: 1KiB\n    max_sessions: 4\n    max_streams: 2\n    max_streams_per_session: 1\n    auth: {bearer_token_file: "+tokenFile+"}\n")
	ids := transport.NewSessionIDs()
	handler, sh := g.httpHandler(time.Hour, loader.DefaultStreamHeartbeat, ids)
	f.Cleanup(func() { sh.Shutdown(context.Background()) })

	serve := func(ctx context.Context, method, sid, proto, ctype, auth string, body []byte) *httptest.ResponseRecorder {
		req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1/mcp", bytes.NewReader(body))
		if err != nil {
			return nil
		}
		for k, v := range map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": proto, "Content-Type": ctype, "Authorization": auth} {
			if v != "" {
				req.Header.Set(k, v)
			}
		}
		req.Header.Set("Accept", "application/json, text/event-stream")
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, req)
		return w
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`
	newSession := func(t testing.TB) string {
		w := serve(context.Background(), http.MethodPost, "", "", "application/json", "Bearer "+token, []byte(initialize))
		id := w.Header().Get("Mcp-Session-Id")
		if w.Code != http.StatusOK || id == "" {
			t.Fatalf("initialize: %d %q", w.Code, w.Body.String())
		}
		return id
	}
	live := newSession(f)

	for _, seed := range []struct {
		method, sid  string
		useLive      bool
		proto, ctype string
		scheme       string
		useToken     bool
		body         string
	}{
		{"POST", "", false, "", "application/json", "Bearer", true, initialize},
		{"POST", "", true, "2025-11-25", "application/json", "bearer", true, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calculate","arguments":{"operation":"add","a":1,"b":2}}}`},
		{"POST", "mcp-session-forged", false, "2025-11-25", "application/json", "BEARER", true, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`},
		{"GET", "mcp-session-forged", false, "2025-11-25", "", "Bearer", true, ""},
		{"GET", "", true, "2025-11-25", "", "Bearer", true, ""},
		{"GET", "", false, "", "", "Bearer", true, ""},
		{"DELETE", "mcp-session-forged", false, "", "", "Bearer", true, ""},
		{"DELETE", "", true, "2025-11-25", "", "Bearer", true, ""},
		{"GET", "", false, "2026-07-28", "", "Bearer", true, ""},
		{"POST", "", false, "2026-07-28", "application/json", "Bearer", true, `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`},
		{"POST", "", false, "", "application/json", "Basic", true, initialize},
		{"POST", "", false, "", "text/plain", "Bearer", false, strings.Repeat("x", 1100)},
		{"PUT", "", true, "", "", "Bearer", true, "{}"},
	} {
		f.Add(seed.method, seed.sid, seed.useLive, seed.proto, seed.ctype, seed.scheme, seed.useToken, []byte(seed.body))
	}

	f.Fuzz(func(t *testing.T, method, sid string, useLive bool, proto, ctype, scheme string, useToken bool, body []byte) {
		if _, err := ids.Validate(live); err != nil {
			live = newSession(t) // an earlier input ended it
		}
		if useLive {
			sid = live
		}
		auth := scheme
		if useToken {
			auth = scheme + " " + token
		}
		before := map[string]bool{}
		for _, id := range ids.Live() {
			before[id] = true
		}

		// A GET on a live session is a stream: it lasts until the deadline.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		w := serve(ctx, method, sid, proto, ctype, auth, body)
		if w == nil {
			return // not a valid method
		}

		var added []string
		forgedStored := false
		for _, id := range ids.Live() {
			if !before[id] {
				added = append(added, id)
			}
			forgedStored = forgedStored || (id == sid && !before[sid])
		}
		streams, pending := ids.Held()

		if streams != 0 || pending != 0 {
			t.Fatalf("after the request: %d streams and %d pending sessions still counted", streams, pending)
		}
		if forgedStored {
			t.Fatalf("the client's session id %q was stored", sid)
		}
		if len(added) > 1 {
			t.Fatalf("one request created %d sessions", len(added))
		}
		if len(added) == 1 {
			if init, _ := transport.IsInitialize(body); method != http.MethodPost || !init || w.Header().Get("Mcp-Session-Id") != added[0] {
				t.Fatalf("%s %q (status %d) created session %s", method, body, w.Code, added[0])
			}
			if d := serve(context.Background(), http.MethodDelete, added[0], "", "", "Bearer "+token, nil); d.Code != http.StatusOK {
				t.Fatalf("DELETE of a new session: %d %s", d.Code, d.Body)
			}
		}
		if (method == http.MethodGet || method == http.MethodDelete) && !before[sid] && !mcp.IsModernProtocol(proto) &&
			w.Code < 300 {
			t.Fatalf("%s with session id %q the gateway did not issue: status %d", method, sid, w.Code)
		}
		if useToken && strings.EqualFold(scheme, "bearer") && w.Code == http.StatusUnauthorized {
			t.Fatalf("Authorization %q with the right token: 401", scheme+" <token>")
		}
		if w.Code == http.StatusInternalServerError {
			t.Fatalf("%s: 500 %s", method, w.Body)
		}
	})
}
