package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestStreamableHTTPSessionPrompts(t *testing.T) {
	mcpServer := NewMCPServer("test", "1.0.0", WithPromptCapabilities(false))
	text := func(s string) PromptHandlerFunc {
		return func(ctx context.Context, _ mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult(s, nil), nil
		}
	}
	mcpServer.AddPrompt(mcp.NewPrompt("shared"), text("the server's"))
	httpServer := NewStreamableHTTPServer(mcpServer)

	post := func(t *testing.T, sessionID, body string) string {
		t.Helper()
		r := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
		r.Host = "localhost"
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
		if sessionID != "" {
			r.Header.Set(HeaderKeySessionID, sessionID)
		}
		w := httptest.NewRecorder()
		httpServer.ServeHTTP(w, r)
		if sessionID == "" {
			return w.Header().Get(HeaderKeySessionID)
		}
		data, _ := io.ReadAll(w.Body)
		return string(data)
	}
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` +
		mcp.ProtocolVersion20251125 + `","clientInfo":{"name":"test-client","version":"1.0.0"},"capabilities":{}}}`
	mine, other := post(t, "", initialize), post(t, "", initialize)
	if mine == "" || other == "" {
		t.Fatal("initialize gave no session id")
	}

	v, ok := mcpServer.sessions.Load(mine)
	if !ok {
		t.Fatalf("session %s not registered", mine)
	}
	session, ok := v.(SessionWithPrompts)
	if !ok {
		t.Fatalf("a Streamable HTTP session (%T) is not a SessionWithPrompts", v)
	}
	session.SetSessionPrompts(map[string]ServerPrompt{
		"own":    {Prompt: mcp.NewPrompt("own"), Handler: text("the session's own")},
		"shared": {Prompt: mcp.NewPrompt("shared"), Handler: text("the session's shared")},
	})

	get := func(name string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"` + name + `"}}`
	}
	for _, tc := range []struct {
		session, name, want string
	}{
		{mine, "own", `"description":"the session's own"`},
		{mine, "shared", `"description":"the session's shared"`},
		{other, "shared", `"description":"the server's"`},
		{other, "own", `"code":-32602`},
	} {
		got := post(t, tc.session, get(tc.name))
		var resp json.RawMessage
		if err := json.Unmarshal([]byte(got), &resp); err != nil {
			t.Fatalf("prompts/get %s: %q is not JSON: %v", tc.name, got, err)
		}
		if !strings.Contains(got, tc.want) {
			who := "its own session"
			if tc.session == other {
				who = "another session"
			}
			t.Errorf("prompts/get %s on %s: %s, want %s", tc.name, who, got, tc.want)
		}
	}
}
