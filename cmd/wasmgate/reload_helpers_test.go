package main

// Helpers shared by the hot-reload end-to-end tests (reload_*_test.go).
// Every such test runs a gateway on a gateway.yaml in its own temp folder,
// with copies of the modules it serves there, so that it can save the
// config and replace modules the ways users and editors do.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// rlEnv is a test's folder: dir/gateway.yaml and dir/plugins/*.wasm.
type rlEnv struct {
	t       testing.TB
	dir     string
	cfg     string
	plugins string
}

func newRLEnv(t testing.TB) *rlEnv {
	t.Helper()
	dir := t.TempDir()
	e := &rlEnv{t: t, dir: dir, cfg: filepath.Join(dir, "gateway.yaml"), plugins: filepath.Join(dir, "plugins")}
	if err := os.Mkdir(e.plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

// module copies a built fixture ("examples/plugins/calculator") to
// plugins/<name>.wasm and returns its path.
func (e *rlEnv) module(name, fixture string) string {
	e.t.Helper()
	p := filepath.Join(e.plugins, name+".wasm")
	rlWriteFile(e.t, p, rlReadFixture(e.t, fixture))
	return p
}

// rlReadFixture returns the bytes of a built fixture module.
func rlReadFixture(t testing.TB, fixture string) []byte {
	t.Helper()
	b, err := os.ReadFile(wasm(t, fixture))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rlWriteFile writes in place, as `cp` or an editor writing through does.
func rlWriteFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// rlSaveAtomic writes a temporary file next to path and renames it over
// path, as vim, JetBrains IDEs and most editors save.
func rlSaveAtomic(t testing.TB, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp~"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// rlItem is one entry of plugins: in YAML flow style, e.g.
// rlItem("name: calculator", "path: "+rlQ(p)).
func rlItem(fields ...string) string {
	return "  - {" + strings.Join(fields, ", ") + "}\n"
}

// q quotes a string for YAML (Go's double-quoted form is valid YAML for
// the paths and words the tests use).
func rlQ(s string) string { return fmt.Sprintf("%q", s) }

// yaml is a complete gateway.yaml on ephemeral ports with the shared
// compilation cache; server holds extra lines under server: (2 spaces).
func (e *rlEnv) yaml(server string, items ...string) string {
	return gatewayYAML(e.t, cfgParts{Server: server, Plugins: strings.Join(items, "")})
}

// rlNoWatch is the server: line turning the file watcher off, for tests
// that trigger every reload themselves (SIGHUP, POST /-/reload).
const rlNoWatch = "  watch: false\n"

// rlReloads returns wasmgate_config_reloads_total by outcome. The initial
// load counts as one success.
func rlReloads(t testing.TB, g *Gateway) (success, failure float64) {
	t.Helper()
	m := g.scrape(t)
	success, _ = metricValue(m, "wasmgate_config_reloads_total", map[string]string{"outcome": "success"})
	failure, _ = metricValue(m, "wasmgate_config_reloads_total", map[string]string{"outcome": "failure"})
	return success, failure
}

func rlReloadCount(t testing.TB, g *Gateway) float64 {
	s, f := rlReloads(t, g)
	return s + f
}

// rlWaitReloads waits until the gateway has attempted more than before
// reloads in total, and returns the new (success, failure) counts.
func rlWaitReloads(t testing.TB, g *Gateway, before float64, what string) (float64, float64) {
	t.Helper()
	var s, f float64
	if !waitFor(60*time.Second, func() bool {
		s, f = rlReloads(t, g)
		return s+f > before
	}) {
		t.Fatalf("%s: no reload within 60s (reloads_total stays %v)", what, before)
	}
	return s, f
}

// rlLastOK is wasmgate_config_last_reload_successful.
func rlLastOK(t testing.TB, g *Gateway) float64 {
	t.Helper()
	v, ok := metricValue(g.scrape(t), "wasmgate_config_last_reload_successful", nil)
	if !ok {
		t.Fatal("/metrics has no wasmgate_config_last_reload_successful")
	}
	return v
}

// rlPostReload POSTs /-/reload and returns the status and body.
func rlPostReload(t testing.TB, g *Gateway) (int, string) {
	t.Helper()
	resp, err := http.Post(g.AdminURL+"/-/reload", "", nil)
	if err != nil {
		t.Fatalf("POST /-/reload: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// rlTools lists the tool names the client sees, sorted.
func rlTools(ctx context.Context, t testing.TB, c *client.Client) []string {
	t.Helper()
	names, err := rlToolsErr(ctx, c)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	return names
}

func rlToolsErr(ctx context.Context, c *client.Client) ([]string, error) {
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	return names, nil
}

// rlWaitTools polls tools/list until it equals want (sorted) or d passes.
func rlWaitTools(ctx context.Context, t testing.TB, c *client.Client, d time.Duration, want ...string) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	var got []string
	if !waitFor(d, func() bool {
		got, _ = rlToolsErr(ctx, c)
		return slices.Equal(got, want)
	}) {
		t.Fatalf("tools/list is %v after %v, want %v", got, d, want)
	}
}

// rlCalc calls calculate with a+b and checks the exact result.
func rlCalc(ctx context.Context, t testing.TB, c *client.Client, a, b int) {
	t.Helper()
	rlCalcTool(ctx, t, c, "calculate", a, b)
}

// rlCalcTool calls the calculator's tool exposed as name.
func rlCalcTool(ctx context.Context, t testing.TB, c *client.Client, name string, a, b int) {
	t.Helper()
	text, isErr := callTool(ctx, t, c, name, map[string]any{"operation": "add", "a": a, "b": b})
	if isErr || text != fmt.Sprint(a+b) {
		t.Fatalf("%s %d+%d = %q (isError %v), want %d", name, a, b, text, isErr, a+b)
	}
}

// rlNotes counts the notifications a client receives, by method.
type rlNotes struct {
	mu sync.Mutex
	n  map[string]int
}

const (
	rlToolsChanged     = mcp.MethodNotificationToolsListChanged
	rlResourcesChanged = mcp.MethodNotificationResourcesListChanged
	rlPromptsChanged   = mcp.MethodNotificationPromptsListChanged
)

func rlCount(c *client.Client) *rlNotes {
	n := &rlNotes{n: map[string]int{}}
	c.OnNotification(func(x mcp.JSONRPCNotification) {
		n.mu.Lock()
		n.n[x.Method]++
		n.mu.Unlock()
	})
	return n
}

// lists returns the counts of the three list_changed notifications.
func (n *rlNotes) lists() [3]int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return [3]int{n.n[rlToolsChanged], n.n[rlResourcesChanged], n.n[rlPromptsChanged]}
}

func rlFmtLists(v [3]int) string {
	return fmt.Sprintf("tools %d, resources %d, prompts %d", v[0], v[1], v[2])
}

// rlWarmOnce fills the shared compilation cache with the modules the
// harness does not warm (badinfo), using the plain binary: a -race
// gateway compiles a 3 MB module ~10x slower. badinfo's gateway exits with
// an error after compiling (its information export traps), which is fine:
// the compiled module is in the cache by then.
var rlWarmOnce sync.Once

func rlWarmExtra(t testing.TB) {
	t.Helper()
	rlWarmOnce.Do(func() {
		if !raceEnabled {
			return // the gateway under test compiles fast enough itself
		}
		dir := t.TempDir()
		cfg := filepath.Join(dir, "warm.yaml")
		yaml := fmt.Sprintf("server: {cache_dir: %q, watch: false}\ntransports: {http: {listen: \"127.0.0.1:0\"}}\nadmin: {enabled: false}\nplugins:\n  - {name: badinfo, path: %q}\n",
			cacheDirPath, wasm(t, "testdata/plugins/badinfo"))
		rlWriteFile(t, cfg, []byte(yaml))
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, plainBinPath, "serve", "--config", cfg)
		cmd.Env = cleanEnviron()
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "badinfo") {
			t.Logf("warming the cache with badinfo: %v\n%s", err, out)
		}
	})
}

// rlStderrSince returns what the gateway logged after offset bytes.
func rlStderrSince(g *Gateway, offset int) string {
	s := g.Stderr()
	if offset > len(s) {
		return ""
	}
	return s[offset:]
}

// rlStartPlain is startGateway with the binary built without -race. The
// leak test uses it: leaks do not depend on race instrumentation, and a
// -race gateway spends ~0.4 s loading each plugin from the compilation
// cache (wazero's loader is Go code), which would make 200 reloads take a
// minute. The -race gateway's reload paths are exercised by the other
// reload tests.
func rlStartPlain(t testing.TB, cfg string) *Gateway {
	t.Helper()
	return startGatewayBin(t, plainBinPath, cfg, nil)
}
