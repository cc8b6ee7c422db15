package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// newServer is mcp-go's Streamable HTTP server with an "echo" tool and a
// "chatty" one that sends a notification before its result (so the answer
// is an event stream), requiring the bearer token when it is not "". It
// counts the DELETEs it receives.
func newServer(t *testing.T, token string) (url string, deletes *atomic.Int64) {
	t.Helper()
	s := server.NewMCPServer("mcphttp-test", "1", server.WithToolCapabilities(false))
	echo := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	}
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), echo)
	s.AddTool(mcp.NewTool("chatty", mcp.WithString("text")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := s.SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": "working"}); err != nil {
			return nil, err
		}
		return echo(ctx, req)
	})
	inner := server.NewStreamableHTTPServer(s)
	deletes = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodDelete {
			deletes.Add(1)
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", deletes
}

func callText(ctx context.Context, t *testing.T, s *Session, tool, text string) string {
	t.Helper()
	raw, err := s.Call(ctx, "tools/call", map[string]any{"name": tool, "arguments": map[string]any{"text": text}})
	if err != nil {
		t.Fatalf("tools/call %s: %v", tool, err)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("tools/call %s: decoding %s: %v", tool, raw, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("tools/call %s: %s, want one content item", tool, raw)
	}
	tc, ok := mcp.AsTextContent(res.Content[0])
	if !ok {
		t.Fatalf("tools/call %s: %s, want text", tool, raw)
	}
	return tc.Text
}

func TestSession(t *testing.T) {
	url, deletes := newServer(t, "")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.ID == "" || s.Version != DefaultProtocolVersion {
		t.Fatalf("session id %q, version %q; want an id and %s", s.ID, s.Version, DefaultProtocolVersion)
	}
	if got := callText(ctx, t, s, "echo", "plain"); got != "plain" {
		t.Errorf("echo = %q", got)
	}
	// The answer comes as an event stream after a notification.
	if got := callText(ctx, t, s, "chatty", "streamed"); got != "streamed" {
		t.Errorf("chatty = %q", got)
	}
	var rpcErr *RPCError
	if _, err := s.Call(ctx, "no/such/method", nil); !errors.As(err, &rpcErr) || rpcErr.Code != mcp.METHOD_NOT_FOUND {
		t.Errorf("an unknown method: %v, want a JSON-RPC method-not-found error", err)
	}

	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if deletes.Load() != 1 {
		t.Errorf("the server saw %d DELETEs, want 1", deletes.Load())
	}
	var st *StatusError
	forged := Attach(url, "mcp-session-forged", Options{})
	if _, err := forged.Call(ctx, "tools/list", nil); !errors.As(err, &st) || st.Status != http.StatusNotFound {
		t.Errorf("tools/list in a forged session: %v, want HTTP 404", err)
	}
}

func TestSessionHeader(t *testing.T) {
	url, _ := newServer(t, "s3cret")
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var st *StatusError
	if _, err := Open(ctx, url, Options{}); !errors.As(err, &st) || st.Status != http.StatusUnauthorized || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("Open without the token: %v, want HTTP 401", err)
	}
	s, err := Open(ctx, url, Options{Header: http.Header{"Authorization": {"Bearer s3cret"}}, ClientName: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if got := callText(ctx, t, s, "echo", "with token"); got != "with token" {
		t.Errorf("echo = %q", got)
	}
	h := s.Header(http.MethodGet)
	if h.Get("Authorization") != "Bearer s3cret" || h.Get(HeaderSessionID) != s.ID || h.Get("Accept") != "text/event-stream" || h.Get("Content-Type") != "" {
		t.Errorf("GET headers %v", h)
	}
}
