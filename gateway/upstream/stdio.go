package upstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// stdinWriter is a stdio server's stdin as the transport writes it
// (transport.FrameWriter): each JSON-RPC message is handed to a goroutine
// of its own that writes it whole, so a call waits for its message only
// as long as its context lets it, and messages never interleave nor are
// left half written (the stream stays usable after a call gave up).
//
// A server that takes none of its stdin for stall (limits.timeout) while
// a message waits to be written has stopped reading it: the writer stops,
// every message waiting fails with a *stdinStalled, and onStall ends the
// session (the supervisor starts it again).
//
// A message of at most pipeAtomic bytes, when no other is being written,
// is written by its caller at once if the pipe takes it whole without
// waiting (tryWrite): most calls' requests, which so need neither the
// writer's goroutine nor a deadline. One the pipe has no room for goes to
// the writer as any other.
type stdinWriter struct {
	f       *os.File        // a pipe, nonblocking: writes have deadlines
	raw     syscall.RawConn // f's, for tryWrite; nil: every message goes to the writer
	stall   time.Duration
	onStall func(error)
	mu      sync.Mutex // held while a message is written: messages never interleave

	frames chan *frame   // to the writer; unbuffered: the waiting callers are the queue
	quit   chan struct{} // closed by close
	done   chan struct{} // closed when the writer stopped; err says why
	err    error         // set before done is closed
	stop   sync.Once     // closes quit and f
}

var _ transport.FrameWriter = (*stdinWriter)(nil)

// frame is one message, and the outcome of writing it.
type frame struct {
	b   []byte
	res chan error // buffered: the writer never waits on a caller that left
}

// newStdinWriter writes to f; run starts it.
func newStdinWriter(f *os.File, stall time.Duration) *stdinWriter {
	w := &stdinWriter{f: f, stall: stall, frames: make(chan *frame), quit: make(chan struct{}), done: make(chan struct{})}
	if raw, err := f.SyscallConn(); err == nil {
		w.raw = raw
	}
	return w
}

// run is the writer's goroutine (its owner, the upstream, waits for it);
// it returns when close is called or a write fails.
func (w *stdinWriter) run() {
	for {
		select {
		case fr := <-w.frames:
			w.mu.Lock()
			err := w.write(fr.b)
			w.mu.Unlock()
			fr.res <- err
			if err != nil {
				w.err = err
				close(w.done)
				var st *stdinStalled
				if errors.As(err, &st) && w.onStall != nil {
					w.onStall(err)
				}
				return
			}
		case <-w.quit:
			w.err = errors.New("its stdin is closed")
			close(w.done)
			return
		}
	}
}

// write writes b whole, or fails: the pipe accepting none of it for
// w.stall is a *stdinStalled. It writes at most pipeAtomic bytes at a
// time, each with its own deadline: a pipe takes such a write whole or
// not at all, so a write that times out is a server that read nothing
// for w.stall (one larger write would count as progress the bytes that
// filled the pipe at once).
func (w *stdinWriter) write(b []byte) error {
	for len(b) > 0 {
		chunk := b[:min(len(b), pipeAtomic)]
		_ = w.f.SetWriteDeadline(time.Now().Add(w.stall)) // fails only on a file without deadlines: then no stall is detected
		n, err := w.f.Write(chunk)
		b = b[n:]
		switch {
		case err == nil:
		case errors.Is(err, os.ErrDeadlineExceeded) && n > 0: // not a pipe: some went in
		case errors.Is(err, os.ErrDeadlineExceeded):
			return &stdinStalled{after: w.stall}
		default:
			return fmt.Errorf("writing to its stdin: %w", err)
		}
	}
	return nil
}

// pipeAtomic is PIPE_BUF on Linux: a write to a pipe of at most that
// many bytes is atomic.
const pipeAtomic = 4096

// WriteFrame writes one message: it returns once the message is written,
// the writer stopped, or ctx ended. A message ctx gave up on is still
// written whole if the writer took it already (*stdinPending says
// which).
func (w *stdinWriter) WriteFrame(ctx context.Context, b []byte) error {
	if ok, err := w.tryWrite(b); ok {
		return err
	}
	fr := &frame{b: b, res: make(chan error, 1)}
	select {
	case w.frames <- fr:
	case <-w.done:
		return w.err
	case <-ctx.Done():
		return &stdinPending{err: ctx.Err(), queued: true}
	}
	select {
	case err := <-fr.res:
		return err
	case <-ctx.Done():
		return &stdinPending{err: ctx.Err()}
	}
}

// tryWrite writes b, a message of at most pipeAtomic bytes, if no other
// is being written, the writer has not stopped, and the pipe takes some
// of it at once (a write of at most PIPE_BUF bytes to a pipe takes all or
// nothing); it reports whether it did, and how that ended. Otherwise
// nothing was written: b goes to the writer, which waits for room (and
// sees a stall).
func (w *stdinWriter) tryWrite(b []byte) (bool, error) {
	if w.raw == nil || len(b) > pipeAtomic || !w.mu.TryLock() {
		return false, nil
	}
	defer w.mu.Unlock()
	select {
	case <-w.done:
		return false, nil // the writer says why
	default:
	}
	n := 0
	if err := w.raw.Write(func(fd uintptr) bool {
		n, _ = writeNow(fd, b)
		return true // never wait: the writer does that
	}); err != nil || n <= 0 {
		return false, nil
	}
	if n == len(b) {
		return true, nil
	}
	// Not a pipe after all: the rest as the writer writes; a message
	// left half written is a broken stream, which ends the session.
	if err := w.write(b[n:]); err != nil {
		w.close()
		return true, err
	}
	return true, nil
}

// Write writes p as one message (io.Writer, for the transport's sake: it
// writes through WriteFrame).
func (w *stdinWriter) Write(p []byte) (int, error) {
	if err := w.WriteFrame(context.Background(), p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close is close (io.Closer: the transport closes its stdin).
func (w *stdinWriter) Close() error {
	w.close()
	return nil
}

// close stops the writer and closes the pipe: a server reading it sees
// its end; a write in progress fails.
func (w *stdinWriter) close() {
	w.stop.Do(func() {
		close(w.quit)
		_ = w.f.Close()
	})
}

// stdinStalled is a stdio server that took none of its stdin for after,
// with a message waiting: it stopped reading it.
type stdinStalled struct{ after time.Duration }

func (e *stdinStalled) Error() string {
	return fmt.Sprintf("stopped reading its stdin (it read nothing for %s, limits.timeout)", e.after)
}

// stdinPending is a message whose caller's context ended before the
// server read it: queued behind others, or being written.
type stdinPending struct {
	err    error // the context's
	queued bool
}

func (e *stdinPending) Error() string {
	if e.queued {
		return fmt.Sprintf("%v (its request was waiting to be written to the server's stdin)", e.err)
	}
	return fmt.Sprintf("%v (its request was still being written to the server's stdin)", e.err)
}

func (e *stdinPending) Unwrap() error { return e.err }

// stdinFailure says what went wrong when err (a call's) is about the
// stdin of stdio upstream name: the server stopped reading it (stalled),
// or the call's request was not written when the call ended. It is ""
// for any other error.
func stdinFailure(name string, err error) (msg string, stalled bool) {
	var st *stdinStalled
	if errors.As(err, &st) {
		return fmt.Sprintf("upstream %q %v; restarting it", name, st), true
	}
	var p *stdinPending
	if errors.As(err, &p) {
		return fmt.Sprintf("upstream %q is not reading its stdin", name), false
	}
	return "", false
}

// restartReason is the reason label of wasmgate_upstream_restarts_total
// for a session that ended because of why (nil: it could not be started).
func restartReason(why error) string {
	var st *stdinStalled
	switch {
	case why == nil:
		return "start_failed"
	case errors.As(why, &st):
		return "stdin_stalled"
	}
	return "ended"
}

// maxStderrLine bounds one line of a stdio server's stderr in the log:
// the rest of a longer line is dropped (and counted in the log line).
const maxStderrLine = 64 << 10

// stderrLines reads r to its end and calls emit with each line (without
// its end of line). A line longer than max is cut to its first max
// bytes, dropped saying how many bytes it lost; the lines after it are
// read as usual.
func stderrLines(r io.Reader, max int, emit func(line []byte, dropped int)) {
	br := bufio.NewReaderSize(r, 4<<10)
	line := make([]byte, 0, 4<<10)
	dropped := 0
	for {
		chunk, err := br.ReadSlice('\n')
		end := err == nil // a whole line read
		if end {
			chunk = chunk[:len(chunk)-1]
		}
		take := min(max-len(line), len(chunk))
		line = append(line, chunk[:take]...)
		dropped += len(chunk) - take
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case end || len(line) > 0 || dropped > 0:
			if dropped == 0 && len(line) > 0 && line[len(line)-1] == '\r' {
				line = line[:len(line)-1]
			}
			emit(line, dropped)
		}
		if err != nil {
			return
		}
		line, dropped = line[:0], 0
	}
}

// stderrTail keeps the last lines a stdio server wrote to stderr, so
// that a start that failed can say what the server said (npx's
// "ENOTFOUND", a missing module, a usage message).
type stderrTail struct {
	mu    sync.Mutex
	lines [tailLines]string // a ring
	next  int
	n     int
}

const (
	tailLines   = 8   // lines kept
	tailLineMax = 240 // bytes kept of each
)

func (t *stderrTail) add(line []byte) {
	s := strings.ToValidUTF8(string(line[:min(len(line), tailLineMax)]), "?")
	if len(line) > tailLineMax {
		s += "…"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines[t.next] = s
	t.next = (t.next + 1) % tailLines
	t.n = min(t.n+1, tailLines)
}

// String is the lines kept, oldest first, quoted and joined; "" when the
// server wrote nothing.
func (t *stderrTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == 0 {
		return ""
	}
	q := make([]string, 0, t.n)
	for i := range t.n {
		q = append(q, strconv.Quote(t.lines[(t.next-t.n+i+tailLines)%tailLines]))
	}
	return strings.Join(q, ", ")
}
