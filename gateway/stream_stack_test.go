package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/mcphttp"
	"github.com/wasmgate/wasmgate/loader"
)

// TestIdleStreamStackShrinks: the goroutine of a session's idle GET
// stream waits with none of the transport's checks below it (they have
// returned before mcp-go waits: transport.shallowStreams) and, without the
// race detector (whose frames are larger), keeps no more stack than one of
// a handler that only holds a stream open, both behind net/http: the
// garbage collector halves the stack the checks grew. When the stream was
// served from inside the checks, their frames kept it at 16 KiB where 8
// do: 27.0 KiB per stream against 15.0 here.
func TestIdleStreamStackShrinks(t *testing.T) {
	const n = 64
	g := openTestGateway(t, "")
	h, _ := g.HTTPHandler(time.Minute, loader.DefaultStreamHeartbeat)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = httpSession(t, h)
	}
	gateway := stackPerStream(t, h, ids, func() {
		buf := make([]byte, 16<<20)
		buf = buf[:runtime.Stack(buf, true)]
		waiting, checked := 0, 0
		for g := range strings.SplitSeq(string(buf), "\n\n") {
			if strings.Contains(g, "server.(*StreamableHTTPServer).serveGetStream") {
				waiting++
				if strings.Contains(g, "gateway/transport.(*checks)") {
					checked++
				}
			}
		}
		if waiting != len(ids) || checked != 0 {
			t.Errorf("%d goroutines wait in a GET stream, %d of them with the transport's checks below: want %d and 0", waiting, checked, len(ids))
		}
	})
	bare := stackPerStream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}), ids, func() {})
	t.Logf("stack per idle GET stream (server and client goroutines): gateway %.1f KiB, a bare held stream %.1f KiB", gateway/1024, bare/1024)
	if !harness.RaceEnabled && gateway > bare+6<<10 {
		t.Errorf("an idle GET stream holds %.1f KiB of stack, a bare held stream %.1f KiB: frames live below its wait keep its stack from shrinking", gateway/1024, bare/1024)
	}
}

// stackPerStream is the stack in use (after collections) per GET stream,
// with a stream open for each of ids to h served over HTTP; parked runs
// while they are open.
func stackPerStream(t *testing.T, h http.Handler, ids []string, parked func()) float64 {
	t.Helper()
	ts := httptest.NewServer(h)
	defer ts.Close()
	stacks := func() uint64 {
		for range 3 {
			runtime.GC()
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.StackInuse
	}
	before := stacks()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	for _, id := range ids {
		req, err := mcphttp.Attach(ts.URL+"/mcp", id, mcphttp.Options{ProtocolVersion: harness.ProtoSessions}).Request(ctx, http.MethodGet, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET stream: %v", err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET stream: status %d", resp.StatusCode)
		}
	}
	time.Sleep(50 * time.Millisecond) // every handler parked
	per := float64(stacks()-before) / float64(len(ids))
	parked()
	return per
}
