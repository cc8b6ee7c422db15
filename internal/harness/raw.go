package harness

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/mcphttp"
)

// InitializeBody is a 2025-11-25 initialize request, for raw posts.
const InitializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// OpenSession opens a raw Streamable HTTP session (see mcphttp) with the
// endpoint at url and checks each step as the specification has it: 200
// with an Mcp-Session-Id for initialize, 202 for notifications/initialized.
func OpenSession(t testing.TB, url string) *mcphttp.Session {
	t.Helper()
	ctx := Ctx(t, 30*time.Second)
	s, err := mcphttp.Initialize(ctx, url, mcphttp.Options{ProtocolVersion: ProtoSessions, ClientName: "raw"})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID == "" {
		t.Fatalf("initialize: no %s", mcphttp.HeaderSessionID)
	}
	resp := Send(t, s, http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d, want 202", resp.StatusCode)
	}
	return s
}

// Send sends a request of method with body ("" for none) within session s,
// with the extra headers, and returns the response with its body unread:
// the caller closes it.
func Send(t testing.TB, s *mcphttp.Session, method, body string, extra map[string]string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := s.Request(context.Background(), method, r)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, s.URL, err)
	}
	return resp
}

// PostJSON POSTs body to url outside any session (as initialize is) with
// the extra headers, and returns the response with its body unread.
func PostJSON(t testing.TB, url, body string, extra map[string]string) *http.Response {
	t.Helper()
	s := mcphttp.Attach(url, "", mcphttp.Options{})
	s.Version = "" // no revision is negotiated outside a session
	return Send(t, s, http.MethodPost, body, extra)
}

// PostInitialize POSTs InitializeBody to url with the extra headers and
// returns the status.
func PostInitialize(t testing.TB, url string, extra map[string]string) int {
	t.Helper()
	resp := PostJSON(t, url, InitializeBody, extra)
	resp.Body.Close()
	return resp.StatusCode
}
