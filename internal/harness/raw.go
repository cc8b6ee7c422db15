package harness

import (
	"bytes"
	"context"
	"encoding/json"
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

// PostStateless POSTs one 2026-07-28 request (body, a JSON-RPC request
// object) to url outside any session, with the revision's headers
// (Mcp-Protocol-Version, Mcp-Method, Mcp-Name when name is not "") and
// the _meta it requires added to the params; it returns the status and
// the JSON-RPC response (the first event of a stream).
func PostStateless(t testing.TB, url string, body map[string]any, method, name string) (int, string) {
	t.Helper()
	params, _ := body["params"].(map[string]any)
	if params == nil {
		params = map[string]any{}
	}
	meta, _ := params["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["io.modelcontextprotocol/protocolVersion"] = ProtoStateless
	meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "harness-raw", "version": "1"}
	if _, ok := meta["io.modelcontextprotocol/clientCapabilities"]; !ok {
		meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
	}
	params["_meta"] = meta
	body["params"] = params
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcphttp.HeaderProtocolVersion, ProtoStateless)
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	msg, err := mcphttp.Response(resp.Header.Get("Content-Type"), raw)
	if err != nil {
		return resp.StatusCode, string(raw)
	}
	return resp.StatusCode, string(msg)
}
