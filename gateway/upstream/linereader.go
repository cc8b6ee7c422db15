// The line reader: a stdio server's stdout as the transport reads it,
// bounded by limits.max_message per line, remembering the first line that
// is not a JSON-RPC message.

package upstream

import (
	"bufio"
	"bytes"
	"fmt"
	"sync"
)

// lineReader passes a stdio server's stdout on, refusing a line longer
// than max (the session ends) and remembering the first line that is not
// a JSON-RPC message, for the error that says why initialize failed.
type lineReader struct {
	r     *bufio.Reader
	max   int
	onEnd func()

	mu      sync.Mutex
	buf     []byte
	bad     string
	tooLong bool
	n       int // bytes of the current line so far
}

func (l *lineReader) Read(p []byte) (int, error) {
	for len(l.buf) == 0 {
		chunk, err := l.r.ReadSlice('\n')
		if len(chunk) > 0 {
			if l.n == 0 {
				l.check(chunk)
			}
			l.n += len(chunk)
			if l.n > l.max {
				l.mu.Lock()
				l.tooLong = true
				l.mu.Unlock()
				l.end()
				return 0, fmt.Errorf("a message longer than limits.max_message (%d bytes)", l.max)
			}
			if chunk[len(chunk)-1] == '\n' {
				l.n = 0
			}
			l.buf = chunk // valid until the next ReadSlice, after it is copied out
		}
		if err != nil && err != bufio.ErrBufferFull {
			if len(l.buf) > 0 {
				break
			}
			l.end()
			return 0, err
		}
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

func (l *lineReader) check(line []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] == '{' {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bad == "" {
		if len(t) > 80 {
			t = append(t[:80:80], "…"...)
		}
		l.bad = string(t)
	}
}

func (l *lineReader) end() {
	if l.onEnd != nil {
		l.onEnd()
	}
}

// problem is what was wrong with the stdout, if anything.
func (l *lineReader) problem() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.tooLong:
		return fmt.Errorf("it wrote a message longer than limits.max_message (%d bytes)", l.max)
	case l.bad != "":
		return fmt.Errorf("it wrote a line that is not JSON-RPC: %q (an MCP server over stdio may write only JSON-RPC messages to stdout; logs go to stderr)", l.bad)
	}
	return nil
}
