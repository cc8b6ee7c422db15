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
