package harness

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// ReadyFile is what `wasmgate serve --ready-file PATH` writes once the
// gateway is ready: where it listens (cmd/wasmgate/readyfile.go; a
// listener that is off is left out).
type ReadyFile struct {
	PID   int    `json:"pid"`
	MCP   string `json:"mcp"`   // http://host:port/path
	Admin string `json:"admin"` // http://host:port/
	Stdio bool   `json:"stdio"`
}

// readyFileIn is the ready file's path for a gateway started in a
// folder of its own.
func readyFileIn(dir string) string { return filepath.Join(dir, "ready.json") }

// waitReady waits up to d for the gateway to write its ready file at
// path, and reads it. It gives up as soon as exited is closed, and then
// reports ended: the gateway ended before it was ready.
func waitReady(path string, exited <-chan struct{}, d time.Duration) (rf ReadyFile, ended bool, err error) {
	deadline := time.Now().Add(d)
	for {
		// Written to a temporary file and renamed: a file that is there
		// is complete.
		if data, err := os.ReadFile(path); err == nil {
			if err := json.Unmarshal(data, &rf); err != nil {
				return rf, false, fmt.Errorf("the ready file %s holds %q: %v", path, data, err)
			}
			return rf, false, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return rf, false, err
		}
		select {
		case <-exited:
			return rf, true, errors.New("exited before ready")
		default:
		}
		if time.Now().After(deadline) {
			return rf, false, fmt.Errorf("no ready file after %v", d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// logPipe is the read end of the pipe a gateway logs to, read line by
// line, which can tell whether every byte written so far has been
// handed to the line callback: so that, once the gateway is ready,
// Gateway.Stderr holds everything it logged before.
type logPipe struct {
	r         *os.File
	read      atomic.Int64 // bytes read from the pipe
	delivered atomic.Int64 // bytes of the lines handed to the callback
	done      chan struct{}
}

// newLogPipe returns a pipe whose write end the process logs to (the
// caller closes its copy once the process started).
func newLogPipe() (*logPipe, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	return &logPipe{r: r, done: make(chan struct{})}, w, nil
}

func (p *logPipe) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.read.Add(int64(n))
	return n, err
}

// lines calls fn with each line (without its newline, a last
// unterminated line too) until the pipe ends, then closes it.
func (p *logPipe) lines(fn func(string)) {
	defer close(p.done)
	defer p.r.Close()
	br := bufio.NewReaderSize(p, 64<<10)
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 {
			n := len(line)
			if line[n-1] == '\n' {
				line = line[:n-1]
			}
			fn(line)
			p.delivered.Add(int64(n))
		}
		if err != nil {
			if err != io.EOF {
				io.Copy(io.Discard, p)
			}
			return
		}
	}
}

// caughtUp reports whether every byte written to the pipe so far was
// delivered as a line: nothing waits in the pipe, nothing in the buffer.
func (p *logPipe) caughtUp() bool {
	select {
	case <-p.done:
		return true
	default:
	}
	var queued int
	var ierr error
	sc, err := p.r.SyscallConn()
	if err != nil {
		return true
	}
	if err := sc.Control(func(fd uintptr) { queued, ierr = pipeQueued(fd) }); err != nil || ierr != nil {
		return true // the pipe is closing
	}
	return queued == 0 && p.read.Load() == p.delivered.Load()
}

// catchUp waits up to d for caughtUp.
func (p *logPipe) catchUp(d time.Duration) {
	for end := time.Now().Add(d); !p.caughtUp() && time.Now().Before(end); {
		time.Sleep(2 * time.Millisecond)
	}
}
