package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// newToolsListRequest returns a 2025-11-25 POST of body on the session
// sessionID (none when empty).
func newToolsListRequest(body, sessionID string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
	r.Host = "localhost"
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
	if sessionID != "" {
		r.Header.Set(HeaderKeySessionID, sessionID)
	}
	return r
}

// TestServeToolCallToolsList: ServeToolCall serves a plain tools/list
// exactly as ServeHTTP does, with the tools as they are when it is asked
// (kept encoded and sorted until the tools change).
func TestServeToolCallToolsList(t *testing.T) {
	// No list_changed notifications, which the first of the two answers
	// would carry.
	mcpServer := NewMCPServer("test", "1.0.0", WithToolCapabilities(false))
	handler := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	mcpServer.AddTool(mcp.NewTool("zeta", mcp.WithDescription("last"), mcp.WithString("x", mcp.Required())), handler)
	mcpServer.AddTool(mcp.Tool{Name: "alpha", InputSchema: mcp.ToolInputSchema{Type: "object"}}, handler)
	httpServer := NewStreamableHTTPServer(mcpServer)

	init := httptest.NewRecorder()
	httpServer.ServeHTTP(init, newToolsListRequest(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+
		mcp.ProtocolVersion20251125+`","clientInfo":{"name":"test-client","version":"1.0.0"},"capabilities":{}}}`, ""))
	sessionID := init.Header().Get(HeaderKeySessionID)
	if init.Code != http.StatusOK || sessionID == "" {
		t.Fatalf("initialize: status %d, session id %q: %s", init.Code, sessionID, init.Body)
	}

	list := func(t *testing.T, id string, want []string) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`
		slow := httptest.NewRecorder()
		httpServer.ServeHTTP(slow, newToolsListRequest(body, sessionID))
		fast := httptest.NewRecorder()
		if !httpServer.ServeToolCall(fast, newToolsListRequest(body, sessionID), []byte(body)) {
			t.Fatalf("ServeToolCall did not serve %s", body)
		}
		if fast.Code != slow.Code || fast.Body.String() != slow.Body.String() {
			t.Fatalf("ServeToolCall answered %d %s\nServeHTTP answered %d %s", fast.Code, fast.Body, slow.Code, slow.Body)
		}
		var at int
		for _, name := range want {
			i := strings.Index(fast.Body.String()[at:], `"name":"`+name+`"`)
			if i < 0 {
				t.Fatalf("tools/list %s: want the tools %v in this order", fast.Body, want)
			}
			at += i
		}
		if n := strings.Count(fast.Body.String(), `"inputSchema"`); n != len(want) {
			t.Fatalf("tools/list %s: %d tools, want %v", fast.Body, n, want)
		}
	}
	list(t, "1", []string{"alpha", "zeta"})
	list(t, `"two"`, []string{"alpha", "zeta"})
	// The list follows the tools.
	mcpServer.AddTool(mcp.NewTool("beta"), handler)
	list(t, "3", []string{"alpha", "beta", "zeta"})
	mcpServer.DeleteTools("alpha")
	list(t, "4", []string{"beta", "zeta"})
	mcpServer.SetTools(ServerTool{Tool: mcp.NewTool("gamma"), Handler: handler})
	list(t, "5", []string{"gamma"})
}

// TestToolsListConcurrentWithChanges: lists built and read while the tools
// change share no memory unguarded (go test -race).
func TestToolsListConcurrentWithChanges(t *testing.T) {
	for _, shared := range []bool{false, true} {
		opts := []ServerOption{WithToolCapabilities(false)}
		if shared {
			opts = append(opts, WithSharedToolList())
		}
		mcpServer := NewMCPServer("test", "1.0.0", opts...)
		handler := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
		mcpServer.AddTool(mcp.NewTool("alpha"), handler)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := range 100 {
					if g == 0 && i%5 == 0 {
						mcpServer.AddTool(mcp.NewTool(fmt.Sprintf("tool%d", i)), handler)
					}
					res := mcpServer.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
					if r, ok := res.(mcp.JSONRPCResponse); !ok || len(r.Result.(mcp.ListToolsResult).Tools) == 0 {
						t.Errorf("tools/list answered %#v", res)
						return
					}
				}
			})
		}
		wg.Wait()
	}
}
