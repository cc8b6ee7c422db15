package main

// Issue 48, item 4: an upstream that never answers initialize. The
// operator's trial paired `npx -y` with `sandbox: {network: false}`: npx
// printed why it could not fetch the package to stderr and waited, and
// `validate` said only "did not answer initialize within 30s". A start
// timeout now carries the last lines the server printed to stderr and,
// when the server runs in a sandbox, points at the sandbox notes.

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func TestUpstreamStartTimeoutShowsStderr(t *testing.T) {
	// What npx prints when the sandbox keeps it off the network, then it
	// waits (npx retries for minutes).
	const server = `echo "npm error code ENOTFOUND" >&2; echo "npm error errno EACCES connect" >&2; echo "npm error network request failed" >&2; cat > /dev/null`
	cfg := harness.WriteConfig(t, upstreamYAML(t, `  - name: files
    command: [/usr/bin/sh, -c, '`+server+`']
    sandbox: {read: [/usr], network: false}
    limits: {start_timeout: 2s}
`))
	r := bins.Run(t, harness.RunOptions{}, "validate", "--config", cfg)
	for _, want := range []string{
		`upstream "files": did not answer initialize within 2s (limits.start_timeout)`,
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
    limits: {start_timeout: 2s}
`))
	code, body := g.PostReload(t)
	if code != http.StatusInternalServerError || !strings.Contains(body, `upstream "slow": did not answer initialize within 2s`) ||
		!strings.Contains(body, "loading the model, this takes a while") {
		t.Errorf("reload (%d) does not show the server's stderr:\n%s", code, body)
	}
	if strings.Contains(body, "sandbox") {
		t.Errorf("reload of an unsandboxed upstream mentions the sandbox:\n%s", body)
	}
	harness.Calc(ctx, t, c, 20, 22)
}
