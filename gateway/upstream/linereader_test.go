package upstream

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

// TestLineReader: JSON-RPC lines pass through unchanged; the first line
// that is not one is remembered; a line longer than max ends the stream
// (and calls onEnd) instead of growing a buffer.
func TestLineReader(t *testing.T) {
	in := "{\"jsonrpc\":\"2.0\"}\nnot json at all\n{\"a\":1}\n"
	l := &lineReader{r: bufio.NewReaderSize(strings.NewReader(in), 16), max: 1 << 10}
	out, err := io.ReadAll(l)
	if err != nil || string(out) != in {
		t.Fatalf("read %q, %v; want the input unchanged", out, err)
	}
	if p := l.problem(); p == nil || !strings.Contains(p.Error(), `"not json at all"`) {
		t.Fatalf("problem = %v, want the non-JSON line named", p)
	}

	ended := false
	long := "{\"x\":\"" + strings.Repeat("y", 5000) + "\"}\n"
	l = &lineReader{r: bufio.NewReaderSize(strings.NewReader("{}\n"+long), 64), max: 1 << 10, onEnd: func() { ended = true }}
	out, err = io.ReadAll(l)
	if err == nil || !strings.Contains(err.Error(), "limits.max_message") || !ended {
		t.Fatalf("a %d-byte line with max 1KiB: err %v, ended %v", len(long), err, ended)
	}
	if len(out) > 2<<10 {
		t.Fatalf("%d bytes passed before the refusal, want at most about max", len(out))
	}
	if p := l.problem(); p == nil || !strings.Contains(p.Error(), "longer than limits.max_message") {
		t.Fatalf("problem = %v", p)
	}
}
