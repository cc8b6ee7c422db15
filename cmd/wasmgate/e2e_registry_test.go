package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/loader/fetch"
)

// TestOCISource serves a plugin pulled from an OCI registry (an image as
// hyper-mcp publishes them: plugin.wasm in a tar layer), follows its tag
// on reload, keeps serving when the registry is down at reload, and
// starts from the module cache with the registry down when the source is
// pinned by digest or sha256.
func TestOCISource(t *testing.T) {
	t.Parallel()
	reg := harness.NewOCIRegistry(t, nil)
	calc := harness.ReadFixture(t, "examples/plugins/calculator")
	calcImage := harness.TarImage(t, map[string][]byte{"plugin.wasm": calc})
	digest := reg.Push(t, "plugins/calculator:1", calcImage)
	env := []string{"DOCKER_CONFIG=" + t.TempDir()}
	e := bins.NewDir(t)
	src := reg.Source("plugins/calculator:1")
	harness.WriteFile(t, e.Config, []byte(e.YAML(harness.NoWatch, harness.Item("name: calculator", "path: "+harness.Q(src)))))

	g := bins.Start(t, harness.Options{Config: e.Config, Env: env})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, 4*time.Minute)
	harness.Calc(ctx, t, c, 2, 3)
	if !strings.Contains(g.Stderr(), "pulled plugin module") {
		t.Errorf("no \"pulled plugin module\" line:\n%s", g.Stderr())
	}

	reload := func(wantOK bool, what string) string {
		t.Helper()
		at := len(g.Stderr())
		okBefore, failBefore := g.Reloads(t)
		code, body := g.PostReload(t)
		ok, fail := g.Reloads(t)
		if wantOK && (code != http.StatusOK || ok != okBefore+1) || !wantOK && (code == http.StatusOK || fail != failBefore+1) {
			t.Fatalf("%s: POST /-/reload = %d %q; reloads_total success %v -> %v, failure %v -> %v", what, code, body, okBefore, ok, failBefore, fail)
		}
		return g.StderrSince(at) + body
	}

	// An unchanged tag is resolved again, and its module comes from the cache.
	if logged := reload(true, "unchanged tag"); strings.Contains(logged, "pulled plugin module") {
		t.Errorf("an unchanged tag was pulled again:\n%s", logged)
	}
	// The tag moves: the reload serves the new module.
	reg.Push(t, "plugins/calculator:1", harness.TarImage(t, map[string][]byte{"plugin.wasm": harness.ReadFixture(t, "examples/plugins/greeter")}))
	reload(true, "tag moved to the greeter")
	harness.WaitTools(ctx, t, c, visible, "say_hello")
	reg.Push(t, "plugins/calculator:1", calcImage)
	reload(true, "tag moved back")
	harness.WaitTools(ctx, t, c, visible, "calculate")

	// Registry down: the reload fails naming the plugin and the source,
	// and the previous module keeps serving.
	reg.Stop()
	logged := reload(false, "registry down")
	for _, w := range []string{`plugin \"calculator\" (plugins[0])`, src, "connection refused"} {
		if !strings.Contains(logged, w) {
			t.Errorf("the reload error does not mention %q:\n%s", w, logged)
		}
	}
	if v := g.LastReloadOK(t); v != 0 {
		t.Errorf("wasmgate_config_last_reload_successful = %v, want 0", v)
	}
	harness.Calc(ctx, t, c, 40, 2)
	if got := harness.Tools(ctx, t, c); strings.Join(got, " ") != "calculate" {
		t.Errorf("tools after the failed reload: %v", got)
	}

	// Restarts with the registry still down load the cached module when
	// the source is pinned, by manifest digest or by sha256.
	for _, item := range []string{
		harness.Item("name: calculator", "path: "+harness.Q(reg.Source("plugins/calculator@"+digest))),
		harness.Item("name: calculator", "path: "+harness.Q(src), "sha256: "+fetch.Sum(calc)),
	} {
		d := bins.NewDir(t)
		harness.WriteFile(t, d.Config, []byte(d.YAML(harness.NoWatch, item)))
		g2 := bins.Start(t, harness.Options{Config: d.Config, Env: env})
		harness.Calc(ctx, t, g2.Client(t), 5, 8)
		if strings.Contains(g2.Stderr(), "pulled plugin module") {
			t.Errorf("%s: pulled with the registry down?\n%s", item, g2.Stderr())
		}
	}
}

// TestHTTPSSource serves a plugin downloaded over https (the gateway
// trusts the test server's certificate through SSL_CERT_FILE), refuses a
// sha256 mismatch, keeps serving when the server is down at reload, and
// starts from the module cache when pinned.
func TestHTTPSSource(t *testing.T) {
	t.Parallel()
	calc := harness.ReadFixture(t, "examples/plugins/calculator")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/releases/v1/calculator.wasm" {
			http.NotFound(w, r)
			return
		}
		w.Write(calc)
	}))
	t.Cleanup(srv.Close)
	env := []string{"SSL_CERT_FILE=" + harness.CertFile(t, srv)}
	src := srv.URL + "/releases/v1/calculator.wasm"
	ctx := harness.Ctx(t, 4*time.Minute)

	// A wrong pin is refused, by validate as by serve.
	bad := bins.NewDir(t)
	wrong := fetch.Sum([]byte("not the calculator"))
	harness.WriteFile(t, bad.Config, []byte(bad.YAML("", harness.Item("path: "+harness.Q(src), "sha256: "+wrong))))
	r := bins.Run(t, harness.RunOptions{Env: env}, "validate", "--config", bad.Config)
	want := `plugin "calculator" (plugins[0].sha256): ` + src + " has sha256 " + fetch.Sum(calc) + ", pinned " + wrong
	if r.Code == 0 || !strings.Contains(r.Stderr, want) {
		t.Errorf("validate with a wrong pin: exit %d, stderr:\n%s\nwant it to say %s", r.Code, r.Stderr, want)
	}

	e := bins.NewDir(t)
	harness.WriteFile(t, e.Config, []byte(e.YAML(harness.NoWatch, harness.Item("path: "+harness.Q(src)))))
	g := bins.Start(t, harness.Options{Config: e.Config, Env: env})
	c := g.SessionClient(t)
	harness.Calc(ctx, t, c, 2, 3)

	srv.Close()
	_, failBefore := g.Reloads(t)
	code, body := g.PostReload(t)
	if _, fail := g.Reloads(t); code == http.StatusOK || fail != failBefore+1 {
		t.Errorf("reload with the server down: %d %q, failures %v -> %v", code, body, failBefore, fail)
	}
	for _, w := range []string{`plugin "calculator" (plugins[0])`, src, "connection refused"} {
		if !strings.Contains(body, w) {
			t.Errorf("the reload error does not mention %q: %s", w, body)
		}
	}
	harness.Calc(ctx, t, c, 40, 2)

	d := bins.NewDir(t)
	harness.WriteFile(t, d.Config, []byte(d.YAML(harness.NoWatch, harness.Item("path: "+harness.Q(src), "sha256: "+fetch.Sum(calc)))))
	g2 := bins.Start(t, harness.Options{Config: d.Config, Env: env})
	harness.Calc(ctx, t, g2.Client(t), 5, 8)
}
