package harness

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Options say how Start runs `wasmgate serve`.
type Options struct {
	// Config is the path of gateway.yaml.
	Config string
	// Env is added to CleanEnv().
	Env []string
	// Stdio serves MCP on the process's stdin and stdout as well
	// (--stdio): Gateway.Stdin and Gateway.Stdout are the transport.
	Stdio bool
	// Args are more command-line arguments.
	Args []string
	// Plain runs the binary built without -race. The leak test uses it:
	// leaks do not depend on race instrumentation, and a -race gateway
	// spends ~0.4 s loading each plugin from the compilation cache, which
	// would make hundreds of reloads take minutes.
	Plain bool
	// Binary, when set, is run instead of the built binary (a wrapper
	// script that sets limits, say).
	Binary string
	// ReadyDir is the folder of the --ready-file; default a folder of the
	// test's own. A gateway run as another user needs one it can write.
	ReadyDir string
	// Dir is the gateway's working directory (its upstream commands'
	// too, unless they set cwd); default the test's.
	Dir string
}

// Gateway is a running `wasmgate serve` process.
type Gateway struct {
	Cmd       *exec.Cmd
	MCPURL    string         // http://127.0.0.1:port/path, when HTTP is on
	AdminURL  string         // http://127.0.0.1:port, when admin is on
	Ready     ReadyFile      // what the gateway wrote to its --ready-file
	ReadyPath string         // the --ready-file
	Stdin     io.WriteCloser // only with Options.Stdio
	Stdout    io.ReadCloser  // only with Options.Stdio

	stderrMu sync.Mutex
	stderr   strings.Builder
	logged   chan struct{} // closed and replaced when a line is logged
	exited   chan struct{}
	exitErr  error
	killed   atomic.Bool // by Kill: its exit is no failure
}

// Start runs `wasmgate serve --config opts.Config --ready-file F` and
// waits (90 s at most) for the gateway to write F, which says where it
// listens; by then Stderr holds everything it logged before it was
// ready. At the end of the test the gateway is stopped (Stop), and the
// test fails if it did not exit 0 or if the race detector reported a
// race in it; a failed test logs everything the gateway wrote to stderr.
func (b *Binaries) Start(t testing.TB, opts Options) *Gateway {
	t.Helper()
	bin := b.Path
	if opts.Plain {
		bin = b.Plain
	}
	if opts.Binary != "" {
		bin = opts.Binary
	}
	dir := opts.ReadyDir
	if dir == "" {
		dir = t.TempDir()
	}
	readyFile := readyFileIn(dir)
	args := append([]string{"serve", "--config", opts.Config, "--ready-file", readyFile}, opts.Args...)
	if opts.Stdio {
		args = append(args, "--stdio")
	}
	g := &Gateway{ReadyPath: readyFile, exited: make(chan struct{}), logged: make(chan struct{})}
	g.Cmd = exec.Command(bin, args...)
	g.Cmd.SysProcAttr = dieWithTest()
	g.Cmd.Env = append(CleanEnv(), opts.Env...)
	g.Cmd.Dir = opts.Dir
	if opts.Stdio {
		var err error
		if g.Stdin, err = g.Cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		if g.Stdout, err = g.Cmd.StdoutPipe(); err != nil {
			t.Fatal(err)
		}
	}
	logs, w, err := newLogPipe()
	if err != nil {
		t.Fatal(err)
	}
	g.Cmd.Stderr = w
	err = g.Cmd.Start()
	w.Close() // the gateway holds the write end now
	if err != nil {
		logs.r.Close()
		t.Fatal(err)
	}
	go logs.lines(func(line string) {
		g.stderrMu.Lock()
		g.stderr.WriteString(line + "\n")
		close(g.logged)
		g.logged = make(chan struct{})
		g.stderrMu.Unlock()
	})
	go func() {
		g.exitErr = g.Cmd.Wait()
		// What it logged last is read before it counts as exited (a
		// process it started could hold the pipe: not for long).
		select {
		case <-logs.done:
		case <-time.After(10 * time.Second):
		}
		close(g.exited)
	}()
	rf, ended, err := waitReady(readyFile, g.exited, 90*time.Second)
	switch {
	case ended:
		t.Fatalf("wasmgate exited before ready (%v):\n%s", g.exitErr, g.Stderr())
	case err != nil:
		g.Cmd.Process.Kill()
		<-g.exited
		t.Fatalf("wasmgate not ready: %v:\n%s", err, g.Stderr())
	}
	g.Ready, g.MCPURL, g.AdminURL = rf, rf.MCP, strings.TrimSuffix(rf.Admin, "/")
	logs.catchUp(5 * time.Second)
	t.Cleanup(func() {
		if err := g.Stop(t); err != nil && !g.killed.Load() {
			t.Errorf("wasmgate did not exit cleanly: %v", err)
		}
		if strings.Contains(g.Stderr(), "WARNING: DATA RACE") {
			t.Errorf("the race detector found a data race in wasmgate")
		}
		if t.Failed() {
			t.Logf("wasmgate stderr:\n%s", g.Stderr())
		}
	})
	return g
}

// Stderr is everything the gateway logged so far.
func (g *Gateway) Stderr() string {
	g.stderrMu.Lock()
	defer g.stderrMu.Unlock()
	return g.stderr.String()
}

// StderrSince is what the gateway logged after the first offset bytes
// (an offset taken with len(g.Stderr())).
func (g *Gateway) StderrSince(offset int) string {
	s := g.Stderr()
	if offset > len(s) {
		return ""
	}
	return s[offset:]
}

// WaitLog waits up to d for a line containing substr in what the gateway
// logged after offset bytes, and returns the line and whether it came.
func (g *Gateway) WaitLog(offset int, substr string, d time.Duration) (string, bool) {
	timeout := time.After(d)
	for {
		g.stderrMu.Lock()
		s, logged := g.stderr.String(), g.logged
		g.stderrMu.Unlock()
		if offset < len(s) {
			for _, line := range strings.Split(s[offset:], "\n") {
				if strings.Contains(line, substr) {
					return line, true
				}
			}
		}
		select {
		case <-logged:
		case <-g.exited:
			return "", strings.Contains(g.StderrSince(offset), substr)
		case <-timeout:
			return "", false
		}
	}
}

// Stop ends the gateway as its client would and waits for exit; it
// returns the exit error. With stdio, stdin is closed first (that alone
// must stop the process: it may already be on its way out because the
// stdio client closed); then, or without stdio, SIGINT.
func (g *Gateway) Stop(t testing.TB) error {
	select {
	case <-g.exited:
		return g.exitErr
	default:
	}
	if g.Stdin != nil {
		g.Stdin.Close()
		if err, ok := g.Wait(15 * time.Second); ok {
			return err
		}
		t.Errorf("wasmgate --stdio did not exit within 15s of stdin closing")
	}
	_ = g.Cmd.Process.Signal(os.Interrupt)
	select {
	case <-g.exited:
	case <-time.After(30 * time.Second):
		g.Cmd.Process.Kill()
		<-g.exited
		t.Errorf("wasmgate did not stop within 30s of SIGINT")
	}
	return g.exitErr
}

// Kill kills the gateway with SIGKILL (kill -9: nothing drains) and waits
// for it to exit; the test's end does not count that as a failure.
func (g *Gateway) Kill() {
	g.killed.Store(true)
	_ = g.Cmd.Process.Kill()
	<-g.exited
}

// Wait waits up to timeout for the process to exit by itself, and returns
// its exit error and whether it exited.
func (g *Gateway) Wait(timeout time.Duration) (error, bool) {
	select {
	case <-g.exited:
		return g.exitErr, true
	case <-time.After(timeout):
		return nil, false
	}
}

// Alive reports whether the process is still running.
func (g *Gateway) Alive() bool {
	select {
	case <-g.exited:
		return false
	default:
		return true
	}
}

// RunOptions say how Run runs a command to completion.
type RunOptions struct {
	// Plain runs the binary built without -race.
	Plain bool
	// Env is added to CleanEnv().
	Env []string
	// Timeout bounds the run; 0 means 60 s.
	Timeout time.Duration
	// Setup, if not nil, adjusts the command before it starts (its
	// folder, the user it runs as).
	Setup func(*exec.Cmd)
}

// Result is how a command run by Run ended.
type Result struct {
	Code           int // the exit status
	Stdout, Stderr string
}

// Run runs the binary with args to completion (`validate`, `version`, a
// `serve` expected to fail) and returns its exit status and output. A run
// that does not end within the timeout is killed and fails the test.
func (b *Binaries) Run(t testing.TB, opts RunOptions, args ...string) Result {
	t.Helper()
	bin := b.Path
	if opts.Plain {
		bin = b.Plain
	}
	if opts.Timeout == 0 {
		opts.Timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = dieWithTest() // opts.Setup may replace it
	cmd.Env = append(CleanEnv(), opts.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if opts.Setup != nil {
		opts.Setup(cmd)
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("wasmgate %s did not finish within %v", strings.Join(args, " "), opts.Timeout)
	}
	r := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.Code = ee.ExitCode()
	default:
		t.Fatalf("run wasmgate %s: %v", strings.Join(args, " "), err)
	}
	return r
}
