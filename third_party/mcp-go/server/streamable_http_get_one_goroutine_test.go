package server

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestStreamableHTTPGetStreamOneGoroutine: a session's GET stream is
// served by the request's own goroutine, with no goroutine of
// handleGet's besides (an idle session holding its stream open costs
// one goroutine), and still delivers the session's notifications and
// the heartbeat.
func TestStreamableHTTPGetStreamOneGoroutine(t *testing.T) {
	s := NewMCPServer("test", "1.0.0")
	ts := httptest.NewServer(NewStreamableHTTPServer(s, WithHeartbeatInterval(20*time.Millisecond)))
	t.Cleanup(ts.Close)
	id := initializeSession20251125(t, ts.URL)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(HeaderKeySessionID, id)
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET stream: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: status %d, want 200", resp.StatusCode)
	}
	if err := s.SendNotificationToSpecificClient(id, "notifications/test", map[string]any{"n": 1}); err != nil {
		t.Fatalf("notification: %v", err)
	}
	r := bufio.NewReader(resp.Body)
	readUntil := func(want string) {
		t.Helper()
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("reading the stream for %s: %v", want, err)
			}
			if strings.Contains(line, want) {
				return
			}
		}
	}
	readUntil(`"notifications/test"`)
	readUntil(`"method":"ping"`) // the heartbeat

	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	if n := strings.Count(stacks, "(*StreamableHTTPServer).handleGet.func"); n != 0 {
		t.Fatalf("%d goroutines of handleGet's own serve the stream besides the request's, want 0:\n%s", n, stacks)
	}
}
