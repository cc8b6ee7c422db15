package server

import (
	"bufio"
	"context"
	"io"
	"log"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestStdioMessageHooks: begin and end bracket the handling of every
// message read (a tools/call, another request, a notification, a
// handler that panics), so that two running at once are seen as two.
func TestStdioMessageHooks(t *testing.T) {
	var running, most, begun, ended atomic.Int64
	release := make(chan struct{})
	var blocked sync.WaitGroup
	blocked.Add(2)
	mcpServer := NewMCPServer("test", "1.0.0", WithToolCapabilities(false))
	mcpServer.AddTool(mcp.NewTool("block"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		blocked.Done()
		<-release
		return mcp.NewToolResultText("done"), nil
	})
	mcpServer.AddTool(mcp.NewTool("panic"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("boom")
	})
	stdioServer := NewStdioServer(mcpServer)
	stdioServer.SetErrorLogger(log.New(io.Discard, "", 0))
	stdioServer.SetMessageHooks(func() {
		begun.Add(1)
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
	}, func() {
		running.Add(-1)
		ended.Add(1)
	})

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- stdioServer.Listen(ctx, inR, outW); outW.Close() }()
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close() })
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(msg string) {
		t.Helper()
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	read := func(want string) {
		t.Helper()
		select {
		case l := <-lines:
			if !strings.Contains(l, want) {
				t.Fatalf("read %s, want it to contain %s", l, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no answer containing %s", want)
		}
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	read(`"id":1`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block"}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"block"}}`)
	blocked.Wait()
	if n := running.Load(); n != 2 {
		t.Errorf("running while two calls block: %d, want 2", n)
	}
	close(release)
	read(`"done"`)
	read(`"done"`)
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"panic"}}`)
	read(`"id":4`)
	send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	read(`"id":5`)

	// The notification's end may come after the answers above.
	deadline := time.Now().Add(5 * time.Second)
	for running.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := running.Load(); n != 0 {
		t.Errorf("running after every answer: %d, want 0", n)
	}
	if b, e := begun.Load(), ended.Load(); b != 6 || e != 6 {
		t.Errorf("begin called %d times and end %d, want 6 each (initialize, the notification, four requests)", b, e)
	}
	if m := most.Load(); m < 2 {
		t.Errorf("most running at once: %d, want 2 or more", m)
	}
}
