package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestStreamableHTTPNotificationPostGetsNoStream: a POST of a notification
// is answered 202 Accepted with no body even when the session is sent a
// notification while the server handles it; that notification waits for a
// stream the client reads (here, the next request's). Upstream started the
// notification forwarder for a notification's POST too: it took the
// session's notification off the queue and wrote it on the 202's response,
// upgraded to an event stream, whose body a client does not read.
func TestStreamableHTTPNotificationPostGetsNoStream(t *testing.T) {
	s := NewMCPServer("test", "1.0.0")
	ts := httptest.NewServer(NewStreamableHTTPServer(s))
	t.Cleanup(ts.Close)
	id := initializeSession20251125(t, ts.URL)
	s.AddNotificationHandler("notifications/test/ping", func(ctx context.Context, _ mcp.JSONRPCNotification) {
		if err := s.SendNotificationToSpecificClient(id, "notifications/test/pong", nil); err != nil {
			t.Errorf("notification to the session: %v", err)
		}
		time.Sleep(100 * time.Millisecond) // the forwarder, had it started, takes it meanwhile
	})

	post := func(body string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, ts.URL, bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(HeaderKeySessionID, id)
		req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(b)
	}

	resp, body := post(`{"jsonrpc":"2.0","method":"notifications/test/ping"}`)
	if resp.StatusCode != http.StatusAccepted || body != "" {
		t.Fatalf("POST of a notification: status %d, body %q; want 202 and no body", resp.StatusCode, body)
	}
	resp, body = post(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "notifications/test/pong") || !strings.Contains(body, `"id":2`) {
		t.Fatalf("the next request: status %d, body %q; want the session's notification, then the response", resp.StatusCode, body)
	}
	if i, j := strings.Index(body, "notifications/test/pong"), strings.Index(body, `"id":2`); i > j {
		t.Fatalf("the next request: the response came before the notification: %q", body)
	}
}
