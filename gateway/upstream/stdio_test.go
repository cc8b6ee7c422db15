package upstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// TestStderrLines: a line longer than max is cut, saying how many bytes
// were dropped, and the lines after it come as usual (a CRLF's CR goes,
// a last line without a newline too).
func TestStderrLines(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	in := "a\n" + long + "\nshort\r\n\ntail"
	type got struct {
		line    string
		dropped int
	}
	var out []got
	stderrLines(strings.NewReader(in), 1<<10, func(line []byte, dropped int) {
		out = append(out, got{string(line), dropped})
	})
	want := []got{{"a", 0}, {long[:1<<10], len(long) - 1<<10}, {"short", 0}, {"", 0}, {"tail", 0}}
	if len(out) != len(want) {
		t.Fatalf("%d lines, want %d: %.200v", len(out), len(want), out)
	}
	for i := range want {
		if out[i] != want[i] {
			t.Errorf("line %d = %.40q dropped %d, want %.40q dropped %d", i, out[i].line, out[i].dropped, want[i].line, want[i].dropped)
		}
	}
}

// TestStdinWriterStall: with nothing read, a message larger than the pipe
// fails within about stall as *stdinStalled, onStall hears of it, and
// later messages fail at once with the same error.
func TestStdinWriterStall(t *testing.T) {
	r, wf, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w := newStdinWriter(wf, 300*time.Millisecond)
	stalled := make(chan error, 1)
	w.onStall = func(err error) { stalled <- err; w.close() }
	go w.run()
	defer w.close()
	start := time.Now()
	err = w.WriteFrame(context.Background(), bytes.Repeat([]byte("a"), 256<<10))
	var st *stdinStalled
	if !errors.As(err, &st) || time.Since(start) > 3*time.Second {
		t.Fatalf("a 256 KiB message nobody reads: %v after %v, want a stall after about 300ms", err, time.Since(start))
	}
	if e := <-stalled; !errors.As(e, &st) {
		t.Fatalf("onStall got %v", e)
	}
	if err := w.WriteFrame(context.Background(), []byte("{}\n")); !errors.As(err, &st) {
		t.Fatalf("a message after the stall: %v, want the stall", err)
	}
}

// TestStdinWriterGivesUpWhole: a caller whose context ends while its
// message is being written returns at once (*stdinPending, wrapping the
// context's error); the message is still written whole, and the next one
// after it, so the stream stays whole.
func TestStdinWriterGivesUpWhole(t *testing.T) {
	r, wf, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w := newStdinWriter(wf, time.Minute)
	go w.run()
	first := append(bytes.Repeat([]byte("a"), 200<<10), '\n')
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = w.WriteFrame(ctx, first)
	var p *stdinPending
	if !errors.As(err, &p) || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("WriteFrame past its context: %v after %v", err, time.Since(start))
	}
	done := make(chan error, 1)
	go func() { done <- w.WriteFrame(context.Background(), []byte("{}\n")) }()
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(r)
		got <- b
	}()
	if err := <-done; err != nil {
		t.Fatalf("the message after: %v", err)
	}
	w.close()
	if b := <-got; !bytes.Equal(b, append(first, "{}\n"...)) {
		t.Fatalf("the pipe got %d bytes, want both messages whole (%d)", len(b), len(first)+3)
	}
}

// TestStdinWriterAtOnce: a small message, when the pipe has room and no
// other is being written, is written by its caller itself, with the
// writer's goroutine not running at all; once the pipe is full, a small
// message waits for the writer, which writes it whole when the server
// reads again.
func TestStdinWriterAtOnce(t *testing.T) {
	r, wf, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w := newStdinWriter(wf, time.Minute)
	defer w.close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	if err := w.WriteFrame(ctx, msg); err != nil {
		t.Fatalf("a small message with no writer running: %v, want it written at once by its caller", err)
	}
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("the pipe got %q, %v; want %q", got, err, msg)
	}

	// Fill the pipe: the next small message must wait, and go through
	// the writer.
	filled := 0
	raw, _ := wf.SyscallConn()
	for {
		n := 0
		_ = raw.Write(func(fd uintptr) bool { n, _ = writeNow(fd, bytes.Repeat([]byte("x"), 4096)); return true })
		if n <= 0 {
			break
		}
		filled += n
	}
	short, cancelShort := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancelShort()
	var p *stdinPending
	if err := w.WriteFrame(short, msg); !errors.As(err, &p) || !p.queued {
		t.Fatalf("a small message into a full pipe, no writer running: %v, want it queued for the writer until its context ended", err)
	}
	go w.run()
	done := make(chan error, 1)
	go func() { done <- w.WriteFrame(context.Background(), msg) }()
	all := make([]byte, filled+len(msg))
	if _, err := io.ReadFull(r, all); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the message the writer wrote: %v", err)
	}
	if !bytes.Equal(all[filled:], msg) || bytes.Count(all[:filled], []byte("x")) != filled {
		t.Fatalf("the pipe got %q after the filling, want %q", all[filled:], msg)
	}
}

func TestStderrTail(t *testing.T) {
	var tail stderrTail
	if got := tail.String(); got != "" {
		t.Fatalf("empty tail = %q", got)
	}
	for i := range tailLines + 3 {
		tail.add([]byte(fmt.Sprintf("line %d", i)))
	}
	tail.add(bytes.Repeat([]byte("x"), tailLineMax+10))
	got := tail.String()
	if strings.Contains(got, `"line 3"`) || !strings.Contains(got, `"line 4", "line 5"`) || strings.Contains(got, strings.Repeat("x", tailLineMax+1)) || !strings.HasSuffix(got, `…"`) {
		t.Fatalf("tail = %s", got)
	}
}
