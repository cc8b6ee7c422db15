package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestStreamableHTTPSessionAllocation: a streamable HTTP session holds no
// buffer for notifications or server requests it has not been sent.
// Upstream's session allocated a channel of 100 notifications and three of
// 10 server requests by value, about 9.5 KiB, for every session, idle or not.
func TestStreamableHTTPSessionAllocation(t *testing.T) {
	const n = 1000
	counter := new(atomic.Int64)
	sessions := make([]*streamableHttpSession, n)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range sessions {
		sessions[i] = newStreamableHttpSession(fmt.Sprint("s", i), nil, nil, nil, nil, counter)
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(sessions)
	per := float64(after.TotalAlloc-before.TotalAlloc) / n
	t.Logf("%.0f bytes allocated per session", per)
	if per > 2048 {
		t.Fatalf("a new session allocates %.0f bytes, want at most 2048", per)
	}
}

// TestStreamableHTTPNotificationQueue: the session's queue keeps the
// channel's behaviour: notifications sent before the GET stream opens wait
// for it, in order, up to 100, and the 101st is refused as blocked; the
// queue's memory goes when it is drained; a notification sent on the
// channel NotificationChannel returns, made while the stream waits,
// reaches the stream.
func TestStreamableHTTPNotificationQueue(t *testing.T) {
	s := NewMCPServer("test", "1.0.0")
	ts := httptest.NewServer(NewStreamableHTTPServer(s))
	t.Cleanup(ts.Close)
	id := initializeSession20251125(t, ts.URL)

	for i := range notificationQueueSize {
		if err := s.SendNotificationToSpecificClient(id, "notifications/test", map[string]any{"n": i}); err != nil {
			t.Fatalf("notification %d: %v", i, err)
		}
	}
	err := s.SendNotificationToSpecificClient(id, "notifications/test", map[string]any{"n": notificationQueueSize})
	if !errors.Is(err, ErrNotificationChannelBlocked) {
		t.Fatalf("notification %d with the queue full: %v, want %v", notificationQueueSize, err, ErrNotificationChannelBlocked)
	}

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
	r := bufio.NewReader(resp.Body)
	next := func() string {
		t.Helper()
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("reading the stream: %v", err)
			}
			if strings.HasPrefix(line, "data: ") {
				return line
			}
		}
	}
	for i := range notificationQueueSize {
		if line := next(); !strings.Contains(line, fmt.Sprintf(`"n":%d}`, i)) {
			t.Fatalf("event %d: %s", i, line)
		}
	}

	v, ok := s.sessions.Load(id)
	if !ok {
		t.Fatal("the session is not registered")
	}
	session := v.(*streamableHttpSession)
	q := &session.queuedNotifications
	q.mu.Lock()
	held := cap(q.items)
	q.mu.Unlock()
	if held != 0 {
		t.Fatalf("the drained queue still holds room for %d notifications", held)
	}

	// The stream waits now; the legacy channel is made, then sent on.
	time.Sleep(20 * time.Millisecond)
	session.NotificationChannel() <- mcp.JSONRPCNotification{
		JSONRPC:      mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: "notifications/legacy"},
	}
	if line := next(); !strings.Contains(line, "notifications/legacy") {
		t.Fatalf("legacy channel's event: %s", line)
	}
	if err := s.SendNotificationToSpecificClient(id, "notifications/after", nil); err != nil {
		t.Fatalf("notification after the legacy one: %v", err)
	}
	if line := next(); !strings.Contains(line, "notifications/after") {
		t.Fatalf("event after the legacy one: %s", line)
	}
}
