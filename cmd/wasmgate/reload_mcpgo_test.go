package main

import (
	"context"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestReloadNotificationsReachBusySessions isolates, without wasmgate, the
// cause of the list_changed notifications TestReloadUnderLoad sees lost:
// mcp-go's Streamable HTTP server (the one gateway.HTTPHandler serves)
// with sessions listening on their GET stream, half of them idle and half
// calling a tool back to back, and the server sending bursts of three
// notifications, as one reload that changes the tools, resources and
// prompts lists does. Every session must receive every notification.
//
// With mcp-go v1.2.1 the idle sessions get all of them and the busy ones
// lose a few percent: a POST in flight on a session runs a forwarder that
// takes notifications off the session's queue (competing with the GET
// stream), and one it takes as the POST completes is dropped
// (server/streamable_http.go, the forwarder's "if the done chan is
// closed, as the request is terminated, just return" without an event
// store).
func TestReloadNotificationsReachBusySessions(t *testing.T) {
	t.Parallel()
	const sessions, bursts = 8, 60
	s := server.NewMCPServer("mcp-go", "1", server.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("noop"), func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(time.Millisecond) // about what calculate takes
		return mcp.NewToolResultText("ok"), nil
	})
	ts := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	ctx := harness.Ctx(t, time.Minute)

	counts := make([]atomic.Int64, 2*sessions)
	var stop atomic.Bool
	var wg sync.WaitGroup
	defer func() {
		stop.Store(true)
		wg.Wait()
	}()
	for i := range 2 * sessions {
		c, err := client.NewStreamableHttpClient(ts.URL+"/mcp", transport.WithContinuousListening())
		if err != nil {
			t.Fatal(err)
		}
		c.OnNotification(func(mcp.JSONRPCNotification) { counts[i].Add(1) })
		harness.Init(t, c, harness.ProtoSessions)
		if i < sessions {
			continue // idle
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				req := mcp.CallToolRequest{}
				req.Params.Name = "noop"
				cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				_, _ = c.CallTool(cctx, req)
				cancel()
			}
		}()
	}
	time.Sleep(300 * time.Millisecond) // GET streams open
	for range bursts {
		s.SendNotificationToAllClients(mcp.MethodNotificationToolsListChanged, nil)
		s.SendNotificationToAllClients(mcp.MethodNotificationResourcesListChanged, nil)
		s.SendNotificationToAllClients(mcp.MethodNotificationPromptsListChanged, nil)
		time.Sleep(20 * time.Millisecond)
	}
	want := int64(3 * bursts)
	harness.WaitFor(5*time.Second, func() bool {
		for i := range counts {
			if counts[i].Load() < want {
				return false
			}
		}
		return true
	})
	stop.Store(true)
	wg.Wait()
	for i := range counts {
		kind := "idle"
		if i >= sessions {
			kind = "busy (calling a tool back to back)"
		}
		if got := counts[i].Load(); got != want {
			t.Errorf("%s session %d received %d of %d notifications", kind, i, got, want)
		}
	}
}
