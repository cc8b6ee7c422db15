package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// padFrame is a handler in front of the MCP server with a frame of about
// 3 KiB (1 KiB under the race detector, whose frames are larger), as an
// application's middleware has (routing, authentication,
// logging), after growing the goroutine's stack to 32 KiB the way a deep
// call while checking a request does.
//
//go:noinline
func padFrame(next http.Handler, w http.ResponseWriter, r *http.Request) byte {
	var pad [padSize]byte
	growStack(24)
	pad[r.ContentLength&1023] = 1
	next.ServeHTTP(w, r)
	return pad[len(pad)-1]
}

//go:noinline
func growStack(n int) byte {
	var b [1000]byte
	b[n] = byte(n)
	if n > 0 {
		return growStack(n-1) + b[n]
	}
	return b[0]
}

// stackPerStream is the stack memory (after garbage collections) of n
// open GET streams of h, each of its own session, per stream.
func stackPerStream(t *testing.T, h http.Handler, n int) float64 {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = padFrame(h, w, r) }))
	defer ts.Close()
	stacks := func() uint64 {
		for range 3 {
			runtime.GC()
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.StackInuse
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = initializeSession20251125(t, ts.URL)
	}
	before := stacks()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, id := range ids {
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
			t.Fatalf("GET stream: status %d", resp.StatusCode)
		}
	}
	time.Sleep(50 * time.Millisecond) // every handler parked
	return float64(stacks()-before) / float64(n)
}

// TestStreamableHTTPGetStreamStackShrinks: an idle GET stream's goroutine
// keeps few frames live below its wait, so that the garbage collector
// halves a stack that grew while the request was checked. Measured
// against a handler that only holds the stream open, behind the same
// middleware: an idle stream of the MCP server costs no more stack than
// it. When handleGet did its checks in the frame it waits in (over
// 3 KiB), its goroutine kept a 32 KiB stack where the bare one has 16.
func TestStreamableHTTPGetStreamStackShrinks(t *testing.T) {
	const n = 64
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			NewStreamableHTTPServer(NewMCPServer("bare", "1")).ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mcpStreams := stackPerStream(t, NewStreamableHTTPServer(NewMCPServer("test", "1")), n)
	bareStreams := stackPerStream(t, bare, n)
	t.Logf("stack per idle stream: %.0f bytes; a bare held stream: %.0f", mcpStreams, bareStreams)
	if mcpStreams > bareStreams+10<<10 {
		t.Errorf("an idle GET stream holds %.1f KiB of stack, a bare held stream %.1f KiB: its frames keep its stack from shrinking", mcpStreams/1024, bareStreams/1024)
	}
}
