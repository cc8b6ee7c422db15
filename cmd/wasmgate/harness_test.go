package main

// The end-to-end tests in this package drive the real wasmgate binary,
// built once by TestMain (with -race, so races in the server fail the run),
// serving real WASM modules built from examples/plugins and
// testdata/plugins by `make plugins`.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	binPath  string // the wasmgate binary under test
	repoRoot string
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	_, file, _, _ := runtime.Caller(0)
	repoRoot = filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
	dir, err := os.MkdirTemp("", "wasmgate-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binPath = filepath.Join(dir, "wasmgate")
	args := []string{"build", "-o", binPath}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, ".")
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build wasmgate:", err)
		return 1
	}
	return m.Run()
}

// wasm returns the path of a built module, e.g. wasm(t, "examples/plugins/calculator").
// A missing module fails the test: run `make plugins` (make test does).
func wasm(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(repoRoot, rel+".wasm")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: build the plugins with `make plugins` (make test does): %v", p, err)
	}
	return p
}

// writeConfig writes a gateway.yaml into a fresh temp dir and returns its path.
func writeConfig(t testing.TB, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gateway.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// examplesConfig is a config serving the three examples on an ephemeral
// port, plus extra YAML appended under plugins: (indented by the caller).
func examplesConfig(t testing.TB, extraPlugins string) string {
	return fmt.Sprintf(`
server:
  cache_dir: %s
  shutdown_timeout: 5s
transports:
  http:
    listen: 127.0.0.1:0
admin:
  listen: 127.0.0.1:0
plugins:
  - name: calculator
    path: %s
  - name: storage
    path: %s
  - name: greeter
    path: %s
%s`, sharedCacheDir(t), wasm(t, "examples/plugins/calculator"), wasm(t, "examples/plugins/storage"), wasm(t, "examples/plugins/greeter"), extraPlugins)
}

var cacheOnce sync.Once
var cacheDirPath string

// sharedCacheDir is one compilation cache for the whole test binary, so
// each gateway start does not recompile the same modules.
func sharedCacheDir(t testing.TB) string {
	cacheOnce.Do(func() {
		d, err := os.MkdirTemp("", "wasmgate-cache-")
		if err != nil {
			t.Fatal(err)
		}
		cacheDirPath = d
	})
	return cacheDirPath
}

// Gateway is a running wasmgate serve process.
type Gateway struct {
	Cmd      *exec.Cmd
	MCPURL   string // http://127.0.0.1:port/mcp
	AdminURL string // http://127.0.0.1:port
	stderrMu sync.Mutex
	stderr   strings.Builder
	exited   chan struct{}
	exitErr  error
	Stdin    io.WriteCloser // only with stdio
	Stdout   io.ReadCloser  // only with stdio
}

var (
	httpAddrRE  = regexp.MustCompile(`msg="MCP Streamable HTTP listening" addr=(\S+) path=(\S+)`)
	adminAddrRE = regexp.MustCompile(`msg="admin listening" addr=(\S+)`)
)

// startGateway runs `wasmgate serve --config cfg [extra...]` and waits for
// "wasmgate ready". It is stopped with SIGTERM at the end of the test.
func startGateway(t testing.TB, cfg string, env []string, extra ...string) *Gateway {
	t.Helper()
	g := &Gateway{exited: make(chan struct{})}
	args := append([]string{"serve", "--config", cfg}, extra...)
	g.Cmd = exec.Command(binPath, args...)
	g.Cmd.Env = append(os.Environ(), env...)
	stdio := false
	for _, a := range extra {
		if a == "--stdio" {
			stdio = true
		}
	}
	if stdio {
		var err error
		if g.Stdin, err = g.Cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		if g.Stdout, err = g.Cmd.StdoutPipe(); err != nil {
			t.Fatal(err)
		}
	}
	pr, pw := io.Pipe()
	g.Cmd.Stderr = pw
	if err := g.Cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		once := sync.Once{}
		for sc.Scan() {
			line := sc.Text()
			g.stderrMu.Lock()
			g.stderr.WriteString(line + "\n")
			g.stderrMu.Unlock()
			if m := httpAddrRE.FindStringSubmatch(line); m != nil {
				g.MCPURL = "http://" + m[1] + m[2]
			}
			if m := adminAddrRE.FindStringSubmatch(line); m != nil {
				g.AdminURL = "http://" + m[1]
			}
			if strings.Contains(line, `msg="wasmgate ready"`) {
				once.Do(func() { close(ready) })
			}
		}
	}()
	go func() {
		g.exitErr = g.Cmd.Wait()
		pw.Close()
		close(g.exited)
	}()
	select {
	case <-ready:
	case <-g.exited:
		t.Fatalf("wasmgate exited before ready (%v):\n%s", g.exitErr, g.Stderr())
	case <-time.After(60 * time.Second):
		g.Cmd.Process.Kill()
		t.Fatalf("wasmgate not ready after 60s:\n%s", g.Stderr())
	}
	t.Cleanup(func() {
		g.Stop(t)
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

// Stop sends SIGTERM and waits for exit; it returns the exit error.
func (g *Gateway) Stop(t testing.TB) error {
	select {
	case <-g.exited:
		return g.exitErr
	default:
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

// Wait waits for the process to exit by itself.
func (g *Gateway) Wait(timeout time.Duration) (error, bool) {
	select {
	case <-g.exited:
		return g.exitErr, true
	case <-time.After(timeout):
		return nil, false
	}
}

// freePort returns a loopback address with a port free right now.
func freePort(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
