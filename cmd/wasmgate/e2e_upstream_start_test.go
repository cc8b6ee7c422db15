package main

// Issue 48, item 4: an upstream that never answers initialize. The
// operator's trial paired `npx -y` with `sandbox: {network: false}`: npx
// printed why it could not fetch the package to stderr and waited, and
// `validate` said only "did not answer initialize within 30s". A start
// timeout now carries the last lines the server printed to stderr and,
// when the server runs in a sandbox, points at the sandbox notes.

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func TestUpstreamStartTimeoutShowsStderr(t *testing.T) {
	t.Parallel()
	// start_timeout is 5s: a loaded machine (-race, parallel tests) must
	// have run the server far enough to print what it prints.
	// What npx prints when the sandbox keeps it off the network, then it
	// waits (npx retries for minutes).
	const server = `echo "npm error code ENOTFOUND" >&2; echo "npm error errno EACCES connect" >&2; echo "npm error network request failed" >&2; cat > /dev/null`
	cfg := harness.WriteConfig(t, upstreamYAML(t, `  - name: files
    command: [/usr/bin/sh, -c, '`+server+`']
    sandbox: {read: [/usr], network: false}
    limits: {start_timeout: 5s}
`))
	r := bins.Run(t, harness.RunOptions{}, "validate", "--config", cfg)
	for _, want := range []string{
		`upstream "files": did not answer initialize within 5s (limits.start_timeout)`,
		`npm error code ENOTFOUND`,
		`npm error network request failed`,
		`docs/upstreams.md#sandbox-for-local-servers`,
	} {
		if r.Code == 0 || !strings.Contains(r.Stderr, want) {
			t.Errorf("validate: exit %d, stderr does not say %q:\n%s", r.Code, want, r.Stderr)
		}
	}

	// Without a sandbox: the stderr lines, no sandbox hint; a reload that
	// fails so leaves the gateway serving.
	base := bins.YAML(harness.Parts{Server: harness.NoWatch,
		Plugins: "  - name: calculator\n    path: " + harness.Wasm(t, "examples/plugins/calculator") + "\n"})
	gcfg := harness.WriteConfig(t, base)
	g := bins.Start(t, harness.Options{Config: gcfg})
	ctx := harness.Ctx(t, time.Minute)
	c := g.SessionClient(t)
	harness.RenameOver(t, gcfg, []byte(base+`upstreams:
  - name: slow
    command: [/usr/bin/sh, -c, 'echo "loading the model, this takes a while" >&2; cat > /dev/null']
    limits: {start_timeout: 5s}
`))
	code, body := g.PostReload(t)
	if code != http.StatusInternalServerError || !strings.Contains(body, `upstream "slow": did not answer initialize within 5s`) ||
		!strings.Contains(body, "loading the model, this takes a while") {
		t.Errorf("reload (%d) does not show the server's stderr:\n%s", code, body)
	}
	if strings.Contains(body, "sandbox") {
		t.Errorf("reload of an unsandboxed upstream mentions the sandbox:\n%s", body)
	}
	harness.Calc(ctx, t, c, 20, 22)
}

// Issue 48, item 6: server-everything over Streamable HTTP asks for the
// client's roots as soon as a client that declares roots connects,
// outside any call. The gateway refuses it, as documented; that is a
// WARN (rate limited, counted), never an ERROR.
func TestUpstreamRootsRefusalIsNotAnError(t *testing.T) {
	t.Parallel()
	url := everythingHTTP(t)
	cfg := harness.WriteConfig(t, upstreamYAML(t, fmt.Sprintf(`  - name: every
    url: %s
    prefix: ev
`, url)))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, time.Minute)
	c := listeningClient(t, g, client.WithRootsHandler(rootsLister{}))
	if _, ok := g.WaitLog(0, `msg="upstream request refused" upstream=every request=roots`, 20*time.Second); !ok {
		t.Fatalf("no WARN for the refused roots request:\n%s", g.Stderr())
	}
	harness.Calc(ctx, t, c, 2, 3)
	time.Sleep(500 * time.Millisecond) // any later line about it
	if log := g.Stderr(); strings.Contains(log, "level=ERROR") {
		t.Errorf("an expected, documented refusal logged an ERROR:\n%s", log)
	}
	if v := g.Scrape(t).Sum("wasmgate_upstream_requests_refused_total", map[string]string{"upstream": "every", "reason": "no_call"}); v < 1 {
		t.Errorf("wasmgate_upstream_requests_refused_total{reason=no_call} = %v, want >= 1", v)
	}
}

// rootsLister is a client that declares roots and lists one.
type rootsLister struct{}

func (rootsLister) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///tmp", Name: "tmp"}}}, nil
}

// Issue 48, item 7: an upstream removed by a reload leaves no
// wasmgate_upstream_up series behind (its process stopping after the
// swap must not set it again).
func TestUpstreamUpGoneAfterRemoval(t *testing.T) {
	t.Parallel()
	node, script := everything(t)
	base := bins.YAML(harness.Parts{Server: harness.NoWatch,
		Plugins: "  - name: calculator\n    path: " + harness.Wasm(t, "examples/plugins/calculator") + "\n"})
	cfg := harness.WriteConfig(t, base+fmt.Sprintf(`upstreams:
  - name: every
    command: [%q, %q, stdio]
    prefix: ev
`, node, script))
	g := bins.Start(t, harness.Options{Config: cfg})
	if v, ok := g.Scrape(t).Value("wasmgate_upstream_up", map[string]string{"upstream": "every"}); !ok || v != 1 {
		t.Fatalf("wasmgate_upstream_up{upstream=every} = %v (exported %v), want 1", v, ok)
	}
	harness.RenameOver(t, cfg, []byte(base))
	g.MustReload(t, "reload without the upstream")
	time.Sleep(2 * time.Second) // the old process stops after the swap
	if v, ok := g.Scrape(t).Value("wasmgate_upstream_up", map[string]string{"upstream": "every"}); ok {
		t.Errorf("wasmgate_upstream_up{upstream=every} = %v is still exported after the upstream was removed", v)
	}
	harness.Calc(harness.Ctx(t, time.Minute), t, g.SessionClient(t), 2, 3)
}
