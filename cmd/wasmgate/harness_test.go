package main

// The end-to-end tests in this package drive the real wasmgate binary,
// built once by TestMain (with -race when the tests run with -race, so races
// in the server fail the run), serving real WASM modules built from
// examples/plugins and testdata/plugins by `make plugins`
// (scripts/build-plugins.sh).
//
// Start-up cost: wazero's compiler is pure Go, so a -race binary compiles a
// 3 MB module about ten times slower than a plain one (~15 s instead of
// ~1.5 s here). TestMain therefore also builds a plain binary and uses it
// once to fill a compilation cache shared by every gateway the tests start
// (server.cache_dir); the -race gateways then start in well under a second.
// The plain binary also runs `wasmgate validate`, which compiles without a
// cache.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// testVersion is stamped into the binaries under test (-X main.version), so
// that tests can check the version the gateway reports is really its own.
const testVersion = "v0.0.0-e2e.1"

var (
	binPath      string // the wasmgate binary under test (-race when testing with -race)
	plainBinPath string // the same, built without -race (validate, cache warm-up)
	repoRoot     string
	cacheDirPath string // the compilation cache every gateway shares
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
	// Readable by everyone: one test runs the binary as an unprivileged user.
	_ = os.Chmod(dir, 0o755)
	binPath = filepath.Join(dir, "wasmgate")
	plainBinPath = filepath.Join(dir, "wasmgate-norace")
	cacheDirPath = filepath.Join(dir, "cache")

	ldflags := "-X main.version=" + testVersion
	builds := [][]string{{"build", "-ldflags", ldflags, "-o", plainBinPath, "."}}
	if raceEnabled {
		builds = append(builds, []string{"build", "-race", "-ldflags", ldflags, "-o", binPath, "."})
	}
	errs := make([]error, len(builds))
	var wg sync.WaitGroup
	for i, args := range builds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("go", args...)
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			errs[i] = cmd.Run()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, "build wasmgate:", err)
		return 1
	}
	if !raceEnabled {
		binPath = plainBinPath
	}
	if err := warmCache(); err != nil {
		// Not fatal: the tests still run, only slower.
		fmt.Fprintln(os.Stderr, "warning: could not pre-fill the compilation cache:", err)
	}
	return m.Run()
}

// fixtures are every module the tests serve, relative to the repository.
var fixtures = []string{
	"examples/plugins/calculator",
	"examples/plugins/storage",
	"examples/plugins/greeter",
	"testdata/plugins/seaflea",
	"testdata/plugins/hostile",
	"testdata/plugins/kvquota",
	"testdata/plugins/fsescape",
}

// warmCache compiles every fixture once with the plain binary into the
// shared cache: `serve` until ready, then SIGINT.
func warmCache() error {
	var b strings.Builder
	fmt.Fprintf(&b, "server: {cache_dir: %q}\ntransports: {http: {listen: \"127.0.0.1:0\"}}\nadmin: {listen: \"127.0.0.1:0\"}\nplugins:\n", cacheDirPath)
	n := 0
	for _, f := range fixtures {
		p := filepath.Join(repoRoot, f+".wasm")
		if _, err := os.Stat(p); err != nil {
			continue // the tests that need it will say so
		}
		fmt.Fprintf(&b, "  - {name: %s, path: %q}\n", filepath.Base(f), p)
		n++
	}
	if n == 0 {
		return errors.New("no plugin is built; run `make plugins`")
	}
	cfg := filepath.Join(filepath.Dir(cacheDirPath), "warm.yaml")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o644); err != nil {
		return err
	}
	cmd := exec.Command(plainBinPath, "serve", "--config", cfg)
	cmd.Env = cleanEnviron()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var log strings.Builder
	ready := false
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), `msg="wasmgate ready"`) {
			ready = true
			break
		}
	}
	_ = cmd.Process.Signal(os.Interrupt)
	go io.Copy(io.Discard, stderr)
	_ = cmd.Wait()
	if !ready {
		return fmt.Errorf("warm-up gateway never got ready:\n%s", log.String())
	}
	return nil
}

// cleanEnviron is os.Environ without WASMGATE_* variables, so that the
// environment the tests run in cannot override the configs they write.
func cleanEnviron() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WASMGATE_") {
			out = append(out, kv)
		}
	}
	return out
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
	return gatewayYAML(t, cfgParts{Plugins: examplePlugins(t) + extraPlugins})
}

// examplePlugins is the plugins: list entries of the three examples.
func examplePlugins(t testing.TB) string {
	return fmt.Sprintf(`  - name: calculator
    path: %s
  - name: storage
    path: %s
  - name: greeter
    path: %s
`, wasm(t, "examples/plugins/calculator"), wasm(t, "examples/plugins/storage"), wasm(t, "examples/plugins/greeter"))
}

// cfgParts are the pieces of a test gateway.yaml. Each is YAML already
// indented for where it goes: Server under server: (2 spaces), HTTP under
// transports.http: (4 spaces), Plugins as list items under plugins:.
type cfgParts struct {
	Server  string
	HTTP    string
	Plugins string
}

// gatewayYAML is a config listening on ephemeral loopback ports (HTTP and
// admin) with the shared compilation cache.
func gatewayYAML(t testing.TB, p cfgParts) string {
	return fmt.Sprintf(`server:
  cache_dir: %q
  shutdown_timeout: 5s
%stransports:
  http:
    listen: 127.0.0.1:0
%sadmin:
  listen: 127.0.0.1:0
plugins:
%s`, sharedCacheDir(t), p.Server, p.HTTP, p.Plugins)
}

// sharedCacheDir is one compilation cache for the whole test binary, so
// each gateway start does not recompile the same modules.
func sharedCacheDir(t testing.TB) string { return cacheDirPath }

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

// startGateway runs `wasmgate serve --config cfg [extra...]` with env added
// to a clean environment, and waits for "wasmgate ready". At the end of the
// test it is stopped with SIGINT, and the test fails if it did not exit 0
// or if the race detector reported a race in it.
func startGateway(t testing.TB, cfg string, env []string, extra ...string) *Gateway {
	t.Helper()
	return startGatewayBin(t, binPath, cfg, env, extra...)
}

// startGatewayBin is startGateway with another build of the binary.
func startGatewayBin(t testing.TB, bin, cfg string, env []string, extra ...string) *Gateway {
	t.Helper()
	g := &Gateway{exited: make(chan struct{})}
	args := append([]string{"serve", "--config", cfg}, extra...)
	g.Cmd = exec.Command(bin, args...)
	g.Cmd.Env = append(cleanEnviron(), env...)
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
		io.Copy(io.Discard, pr)
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
	case <-time.After(90 * time.Second):
		g.Cmd.Process.Kill()
		t.Fatalf("wasmgate not ready after 90s:\n%s", g.Stderr())
	}
	t.Cleanup(func() {
		if err := g.Stop(t); err != nil {
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

// Stop ends the gateway as its client would and waits for exit; it returns
// the exit error. With stdio, stdin is closed first (that alone must stop
// the process: it may already be on its way out because the stdio client
// closed); then, or without stdio, SIGINT.
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

// Wait waits for the process to exit by itself.
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

// httpGet fetches url and returns the status and body.
func httpGet(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

// scrape returns the gateway's /metrics in the Prometheus text format.
func (g *Gateway) scrape(t testing.TB) string {
	t.Helper()
	code, body := httpGet(t, g.AdminURL+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: status %d:\n%s", code, body)
	}
	return body
}

var sampleRE = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)`)
var labelRE = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// metricValue returns the value of the sample of name whose labels include
// every label given (others may be present), and whether one exists.
func metricValue(text, name string, labels map[string]string) (float64, bool) {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		m := sampleRE.FindStringSubmatch(line)
		if m == nil || m[1] != name {
			continue
		}
		have := map[string]string{}
		for _, l := range labelRE.FindAllStringSubmatch(m[3], -1) {
			have[l[1]] = l[2]
		}
		match := true
		for k, v := range labels {
			if have[k] != v {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		v, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			continue
		}
		return v, true
	}
	return 0, false
}

// toolCalls is wasmgate_tool_calls_total for tool and outcome (0 if absent).
func toolCalls(metrics, tool, outcome string) float64 {
	v, _ := metricValue(metrics, "wasmgate_tool_calls_total", map[string]string{"tool": tool, "outcome": outcome})
	return v
}

// waitFor polls cond every 20ms until it is true or d has passed.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
