package server

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// postMCP posts body to url on the session sessionID (none when empty)
// with the 2025-11-25 headers.
func postMCP(t *testing.T, url, sessionID, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
	if sessionID != "" {
		req.Header.Set(HeaderKeySessionID, sessionID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", body, err)
	}
	return resp
}

// TestStreamableHTTPRequestNotificationsOnTheRequestStream: the
// notifications a handler sends its client while serving a POST go on
// that POST's stream, ahead of its response, not on the session's GET
// stream (where a client that stops listening for the request's progress
// when its result arrives would lose them).
func TestStreamableHTTPRequestNotificationsOnTheRequestStream(t *testing.T) {
	const sent = 20
	mcpServer := NewMCPServer("test", "1.0.0", WithToolCapabilities(false), WithLogging())
	mcpServer.AddTool(mcp.NewTool("chatty"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for i := range sent {
			if err := mcpServer.SendNotificationToClient(ctx, "notifications/message",
				map[string]any{"level": "info", "data": fmt.Sprintf("step %d", i)}); err != nil {
				return nil, err
			}
		}
		return mcp.NewToolResultText("done"), nil
	})
	ts := httptest.NewServer(NewStreamableHTTPServer(mcpServer))
	t.Cleanup(ts.Close)

	initResp := postMCP(t, ts.URL, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+
		mcp.ProtocolVersion20251125+`","clientInfo":{"name":"test-client","version":"1.0.0"},"capabilities":{}}}`)
	initResp.Body.Close()
	sessionID := initResp.Header.Get(HeaderKeySessionID)
	if initResp.StatusCode != http.StatusOK || sessionID == "" {
		t.Fatalf("initialize: status %d, session id %q", initResp.StatusCode, sessionID)
	}

	// The session's GET stream, open while the tool runs.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	getReq, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	getReq.Header.Set("Accept", "text/event-stream")
	getReq.Header.Set(HeaderKeySessionID, sessionID)
	getReq.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
	getResp, err := http.DefaultClient.Do(getReq)
	if err != nil {
		t.Fatalf("GET stream: %v", err)
	}
	t.Cleanup(func() { getResp.Body.Close() })
	if getResp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: status %d", getResp.StatusCode)
	}
	onGET := make(chan string, sent)
	go func() {
		scanner := bufio.NewScanner(getResp.Body)
		for scanner.Scan() {
			if strings.Contains(scanner.Text(), "notifications/message") {
				onGET <- scanner.Text()
			}
		}
	}()

	resp := postMCP(t, ts.URL, sessionID, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"chatty"}}`)
	defer resp.Body.Close()
	var notifications int
	var result bool
	scanner := bufio.NewScanner(resp.Body)
	for scanner.Scan() {
		line := scanner.Text()
		switch {
		case strings.Contains(line, "notifications/message"):
			if result {
				t.Errorf("notification after the response: %s", line)
			}
			notifications++
		case strings.Contains(line, `"result"`):
			result = true
		}
	}
	if !result {
		t.Fatal("no response on the request's stream")
	}
	if notifications != sent {
		t.Errorf("%d of the %d notifications the tool sent on the request's stream, want all", notifications, sent)
	}
	select {
	case line := <-onGET:
		t.Errorf("a notification of the request on the GET stream: %s", line)
	default:
	}
}
