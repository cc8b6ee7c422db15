package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/policy"
)

// auditFileLines reads an audit file and checks every line is a whole
// JSON object; it returns the names the lines carry.
func auditFileLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		var m struct {
			Msg, Name, Principal string
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.Msg != "call" || m.Principal != "p" {
			t.Fatalf("%s: not a whole audit line: %q (%v)", path, line, err)
		}
		names = append(names, m.Name)
	}
	return names
}

// TestAuditFileConcurrentAndReopened: lines written at once by many
// callers arrive whole, each once, and reopening the file (a reload after
// a rotation) while they write loses none: every line is in the old file
// or the new one.
func TestAuditFileConcurrentAndReopened(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	a := NewAudit(slog.New(slog.NewTextHandler(io.Discard, nil)))
	a.Apply(loader.Audit{File: path, Arguments: true})
	defer a.Close()

	const writers, each = 16, 300
	c := envelope.Caller{Principal: policy.Principal{Name: "p"}, Transport: envelope.TransportHTTP}
	// Arguments make lines long enough that batches are large.
	args := map[string]any{"text": strings.Repeat("x", 300), "token": "t0p-s3cret-value"}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				a.Observe(context.Background(), &envelope.Call{Caller: c, Kind: "tool", Name: fmt.Sprintf("w%d-%d", w, i), Outcome: "ok", Start: time.Now(), Args: args})
			}
		}()
	}
	// Rotate twice while they write.
	rotated := []string{path + ".1", path + ".2"}
	for _, r := range rotated {
		time.Sleep(5 * time.Millisecond)
		if err := os.Rename(path, r); err != nil {
			t.Fatal(err)
		}
		a.Apply(loader.Audit{File: path, Arguments: true})
	}
	wg.Wait()
	a.Close() // writes what waits

	seen := map[string]int{}
	for _, p := range append(rotated, path) {
		for _, name := range auditFileLines(t, p) {
			seen[name]++
		}
	}
	for w := range writers {
		for i := range each {
			if n := seen[fmt.Sprintf("w%d-%d", w, i)]; n != 1 {
				t.Fatalf("line w%d-%d is in the files %d times, want once", w, i, n)
			}
		}
	}
	if len(seen) != writers*each {
		t.Errorf("%d distinct lines, want %d", len(seen), writers*each)
	}
	for _, p := range append(rotated, path) {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "t0p-s3cret-value") {
			t.Errorf("%s holds an argument under a key named token", p)
		}
	}
}

// TestAuditFileBatches: a line alone reaches the file within flushDelay,
// without a reload or close; lines keep their order.
func TestAuditFileBatches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	a := NewAudit(slog.New(slog.NewTextHandler(io.Discard, nil)))
	a.Apply(loader.Audit{File: path})
	defer a.Close()
	c := envelope.Caller{Principal: policy.Principal{Name: "p"}, Transport: envelope.TransportStdio}
	for i := range 3 {
		a.Observe(context.Background(), &envelope.Call{Caller: c, Kind: "tool", Name: fmt.Sprint("n", i), Outcome: "ok", Start: time.Now()})
	}
	deadline := time.Now().Add(5 * time.Second)
	var names []string
	for time.Now().Before(deadline) {
		if names = auditFileLines(t, path); len(names) == 3 {
			break
		}
		time.Sleep(flushDelay)
	}
	if strings.Join(names, ",") != "n0,n1,n2" {
		t.Errorf("the file holds %v, want [n0 n1 n2]", names)
	}
}

// TestAuditWriteOffCallPath: a call that finds flushSize bytes waiting
// does not write them itself (a write to a slow file would hold the
// call), the flusher writes them at once, and a caller finding maxQueued
// waiting does write, so that a file slower than the calls bounds the
// memory the lines take. The file is a pipe nobody reads until the end,
// so a write to it blocks.
func TestAuditWriteOffCallPath(t *testing.T) {
	r, f, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w := newLineWriter(f)
	// A line of about 1 KiB, as the queue counts it, the same length each
	// time (a fixed time).
	rec := auditRec{t: time.Date(2026, 12, 5, 6, 0, 0, 0, time.UTC), principal: "p", transport: "http", kind: "tool", outcome: "ok"}
	rec.name = strings.Repeat("x", 1024-rec.size())
	line := rec.appendTo(nil, &lineBuf{})
	size := rec.size()
	write := func(n int) <-chan struct{} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range n {
				w.write(rec)
			}
		}()
		return done
	}
	// Past flushSize, the calls go on while the flusher is stuck in the
	// pipe (64 KiB of pipe buffer, then it blocks).
	select {
	case <-write(2 * flushSize / size):
	case <-time.After(10 * time.Second):
		t.Fatal("a call past flushSize blocked on the file's write")
	}
	// The flusher started without waiting for flushDelay: the pipe fills
	// well before it.
	fill := time.Now()
	for {
		w.mu.Lock()
		queued := w.queued
		w.mu.Unlock()
		if queued < 2*flushSize {
			break
		}
		if time.Since(fill) > flushDelay/2 {
			t.Fatalf("%d bytes still queued %v after flushSize was reached", queued, time.Since(fill))
		}
		time.Sleep(time.Millisecond)
	}
	// Up to maxQueued, calls go on; the one past it writes, and blocks.
	blocked := write(maxQueued/size + 1)
	select {
	case <-blocked:
		t.Fatal("calls queued more than maxQueued while the file took nothing")
	case <-time.After(flushDelay * 3):
	}
	// Reading the pipe lets every line through, in order, whole.
	got := make(chan int, 1)
	go func() {
		n, _ := io.Copy(io.Discard, r)
		got <- int(n)
	}()
	select {
	case <-blocked:
	case <-time.After(30 * time.Second):
		t.Fatal("the blocked call did not return once the file took lines")
	}
	w.close()
	f.Close()
	want := (2*flushSize/size + maxQueued/size + 1) * len(line)
	if n := <-got; n != want {
		t.Errorf("%d bytes reached the file, want %d", n, want)
	}
}
