package transport

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

type streamCallKey struct{}

// TestStreamableHTTPStreamNotificationHandler: the stream notification
// handler sees the notifications on a request's response stream with that
// request's context, and those it takes do not reach the notification
// handler.
func TestStreamableHTTPStreamNotificationHandler(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, level := range []string{"take", "pass"} {
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":%q}}\n\n", level)
		}
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	}))
	defer ts.Close()

	var mu sync.Mutex
	var seen, passed []string
	trans, err := NewStreamableHTTP(ts.URL, WithStreamNotificationHandler(func(ctx context.Context, n mcp.JSONRPCNotification) bool {
		data := fmt.Sprint(n.Params.AdditionalFields["data"])
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, fmt.Sprintf("%v:%s", ctx.Value(streamCallKey{}), data))
		return data == "take"
	}))
	if err != nil {
		t.Fatal(err)
	}
	trans.SetNotificationHandler(func(n mcp.JSONRPCNotification) {
		mu.Lock()
		defer mu.Unlock()
		passed = append(passed, fmt.Sprint(n.Params.AdditionalFields["data"]))
	})
	if err := trans.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer trans.Close()

	ctx := context.WithValue(t.Context(), streamCallKey{}, "call-1")
	if _, err := trans.SendRequest(ctx, JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(1)), Method: "tools/call"}); err != nil {
		t.Fatalf("SendRequest: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got, want := fmt.Sprint(seen), "[call-1:take call-1:pass]"; got != want {
		t.Errorf("the stream notification handler saw %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(passed), "[pass]"; got != want {
		t.Errorf("the notification handler saw %s, want %s", got, want)
	}
}
