package transport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestStreamableHTTPCloseCancelsRequestsWithoutWatchers: Close cancels
// the requests in flight, and a request in flight costs no goroutine of
// the transport's own to watch for Close.
func TestStreamableHTTPCloseCancelsRequestsWithoutWatchers(t *testing.T) {
	const inFlight = 3
	arrived := make(chan struct{}, inFlight)
	stop := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		arrived <- struct{}{}
		select { // answers only when the client gives up
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer ts.Close()
	defer close(stop)

	trans, err := NewStreamableHTTP(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := trans.Start(t.Context()); err != nil {
		t.Fatal(err)
	}

	errs := make(chan error, inFlight)
	for i := range inFlight {
		go func() {
			_, err := trans.SendRequest(context.Background(), JSONRPCRequest{
				JSONRPC: "2.0",
				ID:      mcp.NewRequestId(int64(i + 1)),
				Method:  "tools/list",
			})
			errs <- err
		}()
	}
	for range inFlight {
		select {
		case <-arrived:
		case <-time.After(5 * time.Second):
			t.Fatal("the requests did not reach the server")
		}
	}

	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	if n := strings.Count(stacks, ".contextAwareOfClientClose."); n != 0 {
		t.Errorf("%d goroutines in contextAwareOfClientClose with %d requests in flight, want 0", n, inFlight)
	}

	if err := trans.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for range inFlight {
		select {
		case err := <-errs:
			if err == nil {
				t.Error("a request in flight at Close succeeded, want an error")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Close did not cancel the requests in flight")
		}
	}
}
