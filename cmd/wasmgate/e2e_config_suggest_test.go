package main

// Issue 48, item 7: a misspelt key gets the key its writer meant.
// `validate`, and a reload of a running gateway (which keeps serving),
// name the nearest known key of the section.

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func TestUnknownKeySuggestsNearest(t *testing.T) {
	t.Parallel()
	item := func(extra string) string {
		return "  - name: calculator\n    path: " + harness.Wasm(t, "examples/plugins/calculator") + "\n" + extra
	}
	bad := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: item("    limits: {timout: 5s}\n")}))
	r := bins.Run(t, harness.RunOptions{}, "validate", "--config", bad)
	if want := "plugins[0].limits.timout: unknown key (did you mean timeout?)"; r.Code == 0 || !strings.Contains(r.Stderr, want) {
		t.Errorf("validate: exit %d, stderr does not say %q:\n%s", r.Code, want, r.Stderr)
	}

	base := bins.YAML(harness.Parts{Server: harness.NoWatch, Plugins: item("")})
	cfg := harness.WriteConfig(t, base)
	g := bins.Start(t, harness.Options{Config: cfg})
	c := g.SessionClient(t)
	harness.RenameOver(t, cfg, []byte(base+"upsteams: []\n"))
	code, body := g.PostReload(t)
	if want := "upsteams: unknown key (did you mean upstreams?)"; code != http.StatusInternalServerError || !strings.Contains(body, want) {
		t.Errorf("reload (%d) does not say %q:\n%s", code, want, body)
	}
	harness.Calc(harness.Ctx(t, time.Minute), t, c, 20, 22)
}

// TestValidateReportsEveryBadDuration: bad durations in two sections are
// both reported, as docs/operations.md says validate does.
func TestValidateReportsEveryBadDuration(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, "server:\n  shutdown_timeout: 5x\nplugins:\n  - name: calculator\n    path: "+
		harness.Wasm(t, "examples/plugins/calculator")+"\n    limits: {timeout: 3q}\n")
	r := bins.Run(t, harness.RunOptions{}, "validate", "--config", cfg)
	for _, want := range []string{`server.shutdown_timeout: invalid duration "5x"`, `plugins[0].limits.timeout: invalid duration "3q"`} {
		if r.Code == 0 || !strings.Contains(r.Stderr, want) {
			t.Errorf("validate: exit %d, stderr does not say %q:\n%s", r.Code, want, r.Stderr)
		}
	}
}

// TestOverrideTitle (issue 48, item 7): overrides.<tool>.title sets the
// tool's title (MCP's top-level title) that clients show, and a reload
// that changes it is seen in tools/list.
func TestOverrideTitle(t *testing.T) {
	t.Parallel()
	item := func(title string) string {
		return "  - name: calculator\n    path: " + harness.Wasm(t, "examples/plugins/calculator") +
			"\n    overrides:\n      calculate: {title: " + harness.Q(title) + "}\n"
	}
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Server: harness.NoWatch, Plugins: item("Calculator")}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, time.Minute)
	c := g.SessionClient(t)
	if got := listDefs(ctx, t, c)["calculate"].Title; got != "Calculator" {
		t.Errorf("calculate's title = %q, want Calculator", got)
	}
	harness.RenameOver(t, cfg, []byte(bins.YAML(harness.Parts{Server: harness.NoWatch, Plugins: item("Arithmetic")})))
	g.MustReload(t, "reload")
	if got := listDefs(ctx, t, c)["calculate"].Title; got != "Arithmetic" {
		t.Errorf("calculate's title after the reload = %q, want Arithmetic", got)
	}
}

// TestTokenFileErrorHasLine (issue 48, item 7): a token_file that cannot
// be read is read after the file loaded (when auth is built), and its
// error still has the key's line and column, from validate as from a
// reload (which keeps serving).
func TestTokenFileErrorHasLine(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "alice.token")
	plugins := "  - name: calculator\n    path: " + harness.Wasm(t, "examples/plugins/calculator") + "\n"
	text := "plugins:\n" + plugins + "auth:\n  principals:\n    - name: alice\n      token_file: " + harness.Q(missing) + "\n"
	cfg := harness.WriteConfig(t, text)
	r := bins.Run(t, harness.RunOptions{}, "validate", "--config", cfg)
	want := fmt.Sprintf("auth.principals[0].token_file: %q: no such file or directory (line ", missing)
	if r.Code == 0 || !strings.Contains(r.Stderr, want) {
		t.Errorf("validate: exit %d, stderr does not say %q:\n%s", r.Code, want, r.Stderr)
	}

	base := bins.YAML(harness.Parts{Server: harness.NoWatch, Plugins: plugins})
	gcfg := harness.WriteConfig(t, base)
	g := bins.Start(t, harness.Options{Config: gcfg})
	c := g.SessionClient(t)
	harness.RenameOver(t, gcfg, []byte(base+"auth:\n  principals:\n    - name: alice\n      token_file: "+harness.Q(missing)+"\n"))
	code, body := g.PostReload(t)
	if code != http.StatusInternalServerError || !strings.Contains(body, "token_file") || !strings.Contains(body, "(line ") {
		t.Errorf("reload (%d) does not give the token_file's line:\n%s", code, body)
	}
	harness.Calc(harness.Ctx(t, time.Minute), t, c, 20, 22)
}

// TestValidateCountsUpstreams (issue 48, item 7): the summary line counts
// upstreams beside plugins (relay sites are in its relay: part), and validate prints a line
// per upstream as it does per plugin.
func TestValidateCountsUpstreams(t *testing.T) {
	t.Parallel()
	node, _ := everything(t)
	cfg := everythingConfig(t, "prefix: ev")
	r := bins.Run(t, harness.RunOptions{}, "validate", "--config", cfg)
	for _, want := range []string{
		": ok: 1 plugin (calculator), 1 upstream (every), ",
		"\n  upstream \"every\" (upstreams[0]): stdio, command " + filepath.Base(node) + "; ",
	} {
		if r.Code != 0 || !strings.Contains(r.Stdout, want) {
			t.Errorf("validate: exit %d, stdout does not say %q:\n%s%s", r.Code, want, r.Stdout, r.Stderr)
		}
	}
}

// TestStatusPageStateAndTracing (issue 48, item 7): the status page's
// sections (state, trust) read as key and value, not a JSON dump, and
// "In force" says whether calls are traced and where to.
func TestStatusPageStateAndTracing(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins:  "  - name: calculator\n    path: " + harness.Wasm(t, "examples/plugins/calculator") + "\n",
		Sections: "tracing:\n  endpoint: http://127.0.0.1:4318\n  sample_ratio: 0.25\n",
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	resp, err := http.Get(g.AdminURL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(b)
	for _, want := range []string{`id="in-force-tracing"`, "OTLP to <code>http://127.0.0.1:4318</code>", "sampling 0.25",
		`<th>backend</th><td>memory</td>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the status page does not have %q", want)
		}
	}
	if strings.Contains(page, `{&#34;backend`) || strings.Contains(page, `"backend":`) {
		t.Errorf("the state section is a JSON dump")
	}
	if t.Failed() {
		t.Log(page)
	}
}
