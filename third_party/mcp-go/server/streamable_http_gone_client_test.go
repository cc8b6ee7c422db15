package server

import (
	"bufio"
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

// TestStreamableHTTPGoneClientKeepsNotifications: when a client cancels a
// call (its connection closes), a notification the session is sent before
// the call returns is not written on that call's response, which nobody
// reads: the session's GET stream, opened afterwards, gets it. Through
// handlePost and through the tools/call fast path (ServeToolCall).
// Upstream drained the session's queue into the gone client's response
// (and its forwarder could take the notification there first): it was
// lost.
func TestStreamableHTTPGoneClientKeepsNotifications(t *testing.T) {
	for _, fast := range []bool{false, true} {
		name := "handlePost"
		if fast {
			name = "ServeToolCall"
		}
		t.Run(name, func(t *testing.T) {
			s := NewMCPServer("test", "1.0.0")
			sessionID := make(chan string, 1)
			started := make(chan struct{})
			s.AddTool(mcp.NewTool("wait"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				close(started)
				id := <-sessionID
				<-ctx.Done() // the client is gone
				if err := s.SendNotificationToSpecificClient(id, "notifications/test/kept", nil); err != nil {
					t.Errorf("notification to the session: %v", err)
				}
				return mcp.NewToolResultText("too late"), nil
			})
			sh := NewStreamableHTTPServer(s)
			served := make(chan struct{})
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				wait := r.Header.Get("X-Test-Wait") != ""
				if wait {
					defer close(served)
				}
				if fast && r.Method == http.MethodPost {
					body, _ := io.ReadAll(r.Body)
					if sh.ServeToolCall(w, r, body) {
						return
					}
					r.Body = io.NopCloser(bytes.NewReader(body))
				}
				sh.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close)
			id := initializeSession20251125(t, ts.URL)
			sessionID <- id

			ctx, cancel := context.WithCancel(context.Background())
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL,
				strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{}}}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set(HeaderKeySessionID, id)
			req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
			req.Header.Set("X-Test-Wait", "1")
			go func() {
				<-started
				cancel()
			}()
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
				t.Fatalf("the cancelled call was answered %d", resp.StatusCode)
			}
			select {
			case <-served:
			case <-time.After(10 * time.Second):
				t.Fatal("the cancelled call was not done with after 10 s")
			}

			gctx, gcancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer gcancel()
			get, err := http.NewRequestWithContext(gctx, http.MethodGet, ts.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			get.Header.Set("Accept", "text/event-stream")
			get.Header.Set(HeaderKeySessionID, id)
			get.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20251125)
			resp, err := http.DefaultClient.Do(get)
			if err != nil {
				t.Fatalf("GET stream: %v", err)
			}
			defer resp.Body.Close()
			r := bufio.NewReader(resp.Body)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					t.Fatalf("the GET stream ended without the notification sent as the call was cancelled: %v", err)
				}
				if strings.HasPrefix(line, "data: ") {
					if !strings.Contains(line, "notifications/test/kept") {
						t.Fatalf("the GET stream's first event: %s", line)
					}
					return
				}
			}
		})
	}
}

// brokenStream is a GET stream's writer whose connection broke after the
// headers: every write fails.
type brokenStream struct{ header http.Header }

func (b *brokenStream) Header() http.Header       { return b.header }
func (b *brokenStream) WriteHeader(int)           {}
func (b *brokenStream) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
func (b *brokenStream) Flush()                    {}
func (b *brokenStream) CanStream() bool           { return true }

// TestStreamableHTTPGetStreamKeepsUnwrittenNotification: a notification
// the GET stream took but could not write (its connection broke) goes
// back on the session's queue for its next stream. Upstream dropped it.
func TestStreamableHTTPGetStreamKeepsUnwrittenNotification(t *testing.T) {
	s := NewMCPServer("test", "1.0.0")
	sh := NewStreamableHTTPServer(s)
	session := newStreamableHttpSession("s1", nil, nil, nil, nil, &sh.requestIDCounter)
	session.queuedNotifications.offer(mcp.JSONRPCNotification{
		JSONRPC:      mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: "notifications/test/kept"},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sh.serveGetStream(&brokenStream{header: http.Header{}}, &HTTPRequest{Method: http.MethodGet, Header: http.Header{}, Context: ctx}, session)
	nt, ok := session.queuedNotifications.take()
	if !ok || nt.Method != "notifications/test/kept" {
		t.Fatalf("after the stream broke, the session's queue holds %v (%v), want the notification it could not write", nt.Method, ok)
	}
}
