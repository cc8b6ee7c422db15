package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// initializeSession20251125 posts a 2025-11-25 initialize to url and returns the
// session id the server assigned.
func initializeSession20251125(t *testing.T, url string) string {
	t.Helper()
	body, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      1,
		"method":  "initialize",
		"params": map[string]any{
			"protocolVersion": mcp.ProtocolVersion20251125,
			"clientInfo":      map[string]any{"name": "test-client", "version": "1.0.0"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: status %d, want 200", resp.StatusCode)
	}
	id := resp.Header.Get(HeaderKeySessionID)
	if id == "" {
		t.Fatal("initialize: no session id in the response")
	}
	return id
}

// getStream opens a GET stream with the session id sessionID and returns
// its status; the stream is closed when the test ends.
func getStream(t *testing.T, url, sessionID string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(HeaderKeySessionID, sessionID)
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET with session id %q: %v", sessionID, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp.StatusCode
}

func TestStreamableHTTP_GETUnknownSessionID(t *testing.T) {
	t.Run("default manager, malformed id", func(t *testing.T) {
		httpServer := NewStreamableHTTPServer(NewMCPServer("test", "1.0.0"))
		ts := httptest.NewServer(httpServer)
		t.Cleanup(ts.Close)

		const id = "forged"
		if got := getStream(t, ts.URL, id); got != http.StatusNotFound {
			t.Errorf("GET with session id %q: status %d, want %d", id, got, http.StatusNotFound)
		}
		if _, ok := httpServer.activeSessions.Load(id); ok {
			t.Errorf("GET with session id %q registered a session under it", id)
		}
	})

	t.Run("stateful manager", func(t *testing.T) {
		manager := &InsecureStatefulSessionIdManager{}
		httpServer := NewStreamableHTTPServer(NewMCPServer("test", "1.0.0"), WithSessionIdManager(manager))
		ts := httptest.NewServer(httpServer)
		t.Cleanup(ts.Close)

		// A well-formed id the manager never issued, and one it issued
		// and terminated, name no session: 404, and nothing is
		// registered under them.
		ended := manager.Generate()
		if _, err := manager.Terminate(ended); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"mcp-session-4f2b6a3e-1c8d-4e1f-9a57-0d6b2c3e4f5a", ended} {
			if got := getStream(t, ts.URL, id); got != http.StatusNotFound {
				t.Errorf("GET with session id %q: status %d, want %d", id, got, http.StatusNotFound)
			}
			if _, ok := httpServer.activeSessions.Load(id); ok {
				t.Errorf("GET with session id %q registered a session under it", id)
			}
		}

		// The id of an initialized session opens the stream.
		id := initializeSession20251125(t, ts.URL)
		if got := getStream(t, ts.URL, id); got != http.StatusOK {
			t.Errorf("GET with the session's id: status %d, want %d", got, http.StatusOK)
		}
	})
}
