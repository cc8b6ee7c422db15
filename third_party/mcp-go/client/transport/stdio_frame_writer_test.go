package transport

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// frameStdin is a server's stdin that its server stopped reading: Write
// blocks until Close, as on a full pipe. WriteFrame hands frames to
// frames, or, when stuck, waits for its context as a writer with a
// deadline does.
type frameStdin struct {
	stuck  bool
	frames chan string
	closed chan struct{}
}

func (w *frameStdin) Write(p []byte) (int, error) {
	<-w.closed
	return 0, io.ErrClosedPipe
}

func (w *frameStdin) WriteFrame(ctx context.Context, frame []byte) error {
	if w.stuck {
		<-ctx.Done()
		return ctx.Err()
	}
	w.frames <- string(frame)
	return nil
}

func (w *frameStdin) Close() error {
	close(w.closed)
	return nil
}

func TestStdioFrameWriter(t *testing.T) {
	start := func(t *testing.T, stdin *frameStdin) *Stdio {
		t.Helper()
		stdoutReader, stdoutWriter := io.Pipe()
		trans := NewIO(stdoutReader, stdin, io.NopCloser(strings.NewReader("")))
		if err := trans.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			stdoutWriter.Close()
			trans.Close()
		})
		return trans
	}

	t.Run("messages go through WriteFrame", func(t *testing.T) {
		stdin := &frameStdin{frames: make(chan string, 1), closed: make(chan struct{})}
		trans := start(t, stdin)
		go func() {
			_ = trans.SendNotification(t.Context(), mcp.JSONRPCNotification{
				JSONRPC:      "2.0",
				Notification: mcp.Notification{Method: "notifications/initialized"},
			})
		}()
		select {
		case frame := <-stdin.frames:
			if !strings.Contains(frame, `"notifications/initialized"`) || !strings.HasSuffix(frame, "\n") ||
				strings.Count(frame, "\n") != 1 {
				t.Errorf("WriteFrame got %q, want the notification as one line", frame)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the notification was not written through WriteFrame")
		}
	})

	t.Run("a stuck stdin holds no request past its context", func(t *testing.T) {
		stdin := &frameStdin{stuck: true, closed: make(chan struct{})}
		trans := start(t, stdin)
		const requests = 2
		errs := make(chan error, requests)
		for i := range requests {
			go func() {
				ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
				defer cancel()
				_, err := trans.SendRequest(ctx, JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(i + 1)), Method: "ping"})
				errs <- err
			}()
		}
		for range requests {
			select {
			case err := <-errs:
				if err == nil {
					t.Error("a request on a stuck stdin succeeded")
				}
			case <-time.After(5 * time.Second):
				t.Fatal("a request on a stuck stdin did not return when its context ended")
			}
		}
	})
}
