package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// eofSignalReader closes eof when its reader reports the end of input.
type eofSignalReader struct {
	r    io.Reader
	once sync.Once
	eof  chan struct{}
}

func (r *eofSignalReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if errors.Is(err, io.EOF) {
		r.once.Do(func() { close(r.eof) })
	}
	return n, err
}

// listenStdio serves mcpServer on a pipe whose reader is wrapped by stdin,
// sends it a tools/call of tool and waits until started reports the call
// running. It returns the client's ends of the pipes and Listen's result.
func listenStdio(t *testing.T, ctx context.Context, mcpServer *MCPServer, stdin *eofSignalReader, started <-chan struct{}, tool string) (io.WriteCloser, *bufio.Reader, <-chan error) {
	t.Helper()
	stdinReader, stdinWriter := io.Pipe()
	stdin.r = stdinReader
	outReader, outWriter := io.Pipe()
	stdioServer := NewStdioServer(mcpServer)
	stdioServer.SetErrorLogger(log.New(io.Discard, "", 0))
	listenDone := make(chan error, 1)
	go func() {
		listenDone <- stdioServer.Listen(ctx, stdin, outWriter)
		outWriter.Close()
	}()
	t.Cleanup(func() { stdinWriter.Close(); outReader.Close() })
	go func() {
		_, _ = io.WriteString(stdinWriter, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`"}}`+"\n")
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatalf("the tool %s never started", tool)
	}
	return stdinWriter, bufio.NewReader(outReader), listenDone
}

// TestStdioEOFDrainsRunningRequests: at the end of input a request already
// read still finishes and answers, and only the end of the context passed
// to Listen cancels what is still running.
func TestStdioEOFDrainsRunningRequests(t *testing.T) {
	t.Run("EOF drains", func(t *testing.T) {
		// How long the tool keeps working after the end of input: it
		// fails if its context is cancelled meanwhile, which Listen did
		// right at EOF before (within microseconds of the read).
		const work = 200 * time.Millisecond
		started := make(chan struct{}, 1)
		stdin := &eofSignalReader{eof: make(chan struct{})}
		mcpServer := NewMCPServer("test", "1.0.0", WithToolCapabilities(false))
		mcpServer.AddTool(mcp.NewTool("drain"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			<-stdin.eof
			select {
			case <-ctx.Done():
				return nil, errors.New("cancelled at the end of input")
			case <-time.After(work):
				return mcp.NewToolResultText("finished"), nil
			}
		})

		w, stdout, listenDone := listenStdio(t, t.Context(), mcpServer, stdin, started, "drain")
		if err := w.Close(); err != nil { // the client closes stdin
			t.Fatal(err)
		}
		line, err := stdout.ReadString('\n')
		if err != nil {
			t.Fatalf("no response after the end of input: %v", err)
		}
		var resp struct {
			Result *mcp.CallToolResult `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &resp); err != nil {
			t.Fatalf("decoding %s: %v", line, err)
		}
		if resp.Result == nil || resp.Result.IsError || len(resp.Result.Content) != 1 {
			t.Fatalf("response after the end of input: %s, want the result \"finished\"", line)
		}
		if text, ok := resp.Result.Content[0].(mcp.TextContent); !ok || text.Text != "finished" {
			t.Fatalf("response after the end of input: %s, want the result \"finished\"", line)
		}
		select {
		case err := <-listenDone:
			if err != nil {
				t.Errorf("Listen: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Listen did not return once the request finished")
		}
	})

	t.Run("the caller's context ends the rest", func(t *testing.T) {
		started := make(chan struct{}, 1)
		cancelled := make(chan struct{})
		stdin := &eofSignalReader{eof: make(chan struct{})}
		mcpServer := NewMCPServer("test", "1.0.0", WithToolCapabilities(false))
		mcpServer.AddTool(mcp.NewTool("block"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		})

		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		w, stdout, listenDone := listenStdio(t, ctx, mcpServer, stdin, started, "block")
		go func() { _, _ = io.Copy(io.Discard, stdout) }()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		<-stdin.eof
		cancel()
		select {
		case <-cancelled:
		case <-time.After(5 * time.Second):
			t.Fatal("the call was not cancelled when Listen's context ended")
		}
		select {
		case err := <-listenDone:
			// The context may end before Listen has taken the end of
			// input in: then it says so.
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("Listen: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Listen did not return when its context ended")
		}
	})
}
