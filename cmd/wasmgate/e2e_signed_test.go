package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/fetch/oci"
	"github.com/wasmgate/wasmgate/loader/fetch/sigstore/sigstoretest"
)

// TestSignedHTTPSSource: a plugin downloaded over https with
// verify.key_file loads when <url>.sigstore.json is a signature by that
// key; a reload whose module is signed by another key, whose module no
// longer matches its bundle, or whose bundle is gone fails with the
// reason, and the previous plugin keeps serving; validate refuses the
// same; a pinned gateway restarted with the server down loads the
// verified module from the cache.
func TestSignedHTTPSSource(t *testing.T) {
	t.Parallel()
	calc := harness.ReadFixture(t, "examples/plugins/calculator")
	greeter := harness.ReadFixture(t, "examples/plugins/greeter")
	key, other := sigstoretest.NewKey(t), sigstoretest.NewKey(t)
	var mu sync.Mutex
	files := map[string][]byte{}
	set := func(module, bundle []byte) {
		mu.Lock()
		defer mu.Unlock()
		files["/releases/tools.wasm"] = module
		if bundle == nil {
			delete(files, "/releases/tools.wasm.sigstore.json")
		} else {
			files["/releases/tools.wasm.sigstore.json"] = bundle
		}
	}
	set(calc, key.Sign(t, calc))
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body, ok := files[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	env := []string{"SSL_CERT_FILE=" + harness.CertFile(t, srv)}
	src := srv.URL + "/releases/tools.wasm"
	ctx := harness.Ctx(t, 4*time.Minute)

	e := bins.NewDir(t)
	pub := key.WritePublic(t, filepath.Dir(e.Config), "tools.pub")
	item := harness.Item("name: tools", "path: "+harness.Q(src), "verify: {key_file: tools.pub}")
	harness.WriteFile(t, e.Config, []byte(e.YAML(harness.NoWatch, item)))
	g := bins.Start(t, harness.Options{Config: e.Config, Env: env})
	c := g.SessionClient(t)
	harness.Calc(ctx, t, c, 2, 3)

	prefix := `plugin "tools" (plugins[0].verify): signature check failed: ` + src + ": "
	for _, step := range []struct {
		what           string
		module, bundle []byte
		want           string
	}{
		{"signed by another key", greeter, other.Sign(t, greeter),
			"bundle " + src + ".sigstore.json: signed by a key other than verify.key_file (" + pub + ")"},
		{"module changed, bundle not", greeter, key.Sign(t, calc),
			"bundle " + src + ".sigstore.json: the bundle signs sha256:" + fetch.Sum(calc) + ", but the module is sha256:" + fetch.Sum(greeter)},
		{"no bundle", greeter, nil,
			"no Sigstore bundle at " + src + ".sigstore.json (GET: 404 Not Found)"},
	} {
		set(step.module, step.bundle)
		_, failBefore := g.Reloads(t)
		code, body := g.PostReload(t)
		if _, fail := g.Reloads(t); code == http.StatusOK || fail != failBefore+1 {
			t.Fatalf("%s: POST /-/reload = %d %q, failures %v -> %v", step.what, code, body, failBefore, fail)
		}
		if !strings.Contains(body, prefix+step.want) {
			t.Errorf("%s: the reload error is\n%s\nwant it to contain\n%s", step.what, body, prefix+step.want)
		}
		// The verified calculator keeps serving.
		harness.Calc(ctx, t, c, 40, 2)
		if got := harness.Tools(ctx, t, c); strings.Join(got, " ") != "calculate" {
			t.Errorf("%s: tools after the failed reload: %v", step.what, got)
		}
	}

	// validate says the same, without a gateway.
	set(greeter, other.Sign(t, greeter))
	r := bins.Run(t, harness.RunOptions{Env: env}, "validate", "--config", e.Config)
	if want := "signed by a key other than verify.key_file (" + pub + ")"; r.Code == 0 || !strings.Contains(r.Stderr, want) {
		t.Errorf("validate: exit %d, stderr:\n%s\nwant it to say %s", r.Code, r.Stderr, want)
	}

	// A signed greeter: the reload serves it.
	set(greeter, key.Sign(t, greeter))
	g.MustReload(t, "reload with a good signature")
	harness.WaitTools(ctx, t, c, visible, "say_hello")

	// Pinned, verified and cached: a restart with the server down loads
	// it offline (the cached bundle is checked again under the key).
	srv.Close()
	d := bins.NewDir(t)
	key.WritePublic(t, filepath.Dir(d.Config), "tools.pub")
	harness.WriteFile(t, d.Config, []byte(d.YAML(harness.NoWatch,
		harness.Item("name: tools", "path: "+harness.Q(src), "sha256: "+fetch.Sum(greeter), "verify: {key_file: tools.pub}"))))
	g2 := bins.Start(t, harness.Options{Config: d.Config, Env: env})
	harness.WaitTools(ctx, t, g2.Client(t), visible, "say_hello")

	// Under another key the cached module is not trusted: the bundle
	// would have to be fetched again, and the server is down.
	o := bins.NewDir(t)
	other.WritePublic(t, filepath.Dir(o.Config), "tools.pub")
	harness.WriteFile(t, o.Config, []byte(o.YAML(harness.NoWatch,
		harness.Item("name: tools", "path: "+harness.Q(src), "sha256: "+fetch.Sum(greeter), "verify: {key_file: tools.pub}"))))
	r = bins.Run(t, harness.RunOptions{Env: env}, "validate", "--config", o.Config)
	if want := "no Sigstore bundle at " + src + ".sigstore.json"; r.Code == 0 || !strings.Contains(r.Stderr, want) {
		t.Errorf("validate offline under another key: exit %d, stderr:\n%s\nwant it to say %s", r.Code, r.Stderr, want)
	}
}

// TestSignedOCISource: an oci:// plugin with verify.key_file and no
// verify.bundle loads when a referrer of its manifest is a Sigstore
// bundle (as cosign sign stores it) by that key; the tag moved to an
// unsigned image fails the reload, naming the manifest, and the verified
// plugin keeps serving; with the registry gone, a restart pinned by
// digest loads the verified module from the cache.
func TestSignedOCISource(t *testing.T) {
	t.Parallel()
	reg := harness.NewOCIRegistry(t, nil)
	calc := harness.ReadFixture(t, "examples/plugins/calculator")
	greeter := harness.ReadFixture(t, "examples/plugins/greeter")
	key := sigstoretest.NewKey(t)
	digest := reg.Push(t, "plugins/tools:1", harness.WasmImage(t, calc))
	reg.Attach(t, "plugins/tools", digest, oci.BundleArtifactType, key.SignDigest(t, reg.Host+"/plugins/tools", strings.TrimPrefix(digest, "sha256:")))
	env := []string{"DOCKER_CONFIG=" + t.TempDir()}
	src := reg.Source("plugins/tools:1")
	ctx := harness.Ctx(t, 4*time.Minute)

	e := bins.NewDir(t)
	key.WritePublic(t, filepath.Dir(e.Config), "tools.pub")
	harness.WriteFile(t, e.Config, []byte(e.YAML(harness.NoWatch, harness.Item("name: tools", "path: "+harness.Q(src), "verify: {key_file: tools.pub}"))))
	g := bins.Start(t, harness.Options{Config: e.Config, Env: env})
	c := g.SessionClient(t)
	harness.Calc(ctx, t, c, 2, 3)

	unsigned := reg.Push(t, "plugins/tools:1", harness.WasmImage(t, greeter))
	code, body := g.PostReload(t)
	want := `plugin "tools" (plugins[0].verify): signature check failed: ` + src + ": no Sigstore bundle among the OCI referrers of " + unsigned
	if code == http.StatusOK || !strings.Contains(body, want) {
		t.Errorf("reload to an unsigned image: %d %s\nwant it to contain %s", code, body, want)
	}
	harness.Calc(ctx, t, c, 40, 2)

	reg.Stop()
	d := bins.NewDir(t)
	key.WritePublic(t, filepath.Dir(d.Config), "tools.pub")
	harness.WriteFile(t, d.Config, []byte(d.YAML(harness.NoWatch, harness.Item("name: tools", "path: "+harness.Q(reg.Source("plugins/tools@"+digest)), "verify: {key_file: tools.pub}"))))
	g2 := bins.Start(t, harness.Options{Config: d.Config, Env: env})
	harness.Calc(ctx, t, g2.Client(t), 5, 8)
}

// TestSignedKeyChangeReloads: verify.key_file and verify.bundle are
// watched. A local module with its bundle loads; replacing the key with
// one that did not sign it reloads, and the reload fails naming the key
// (the plugin keeps serving); a new bundle by the new key reloads again
// and succeeds.
func TestSignedKeyChangeReloads(t *testing.T) {
	t.Parallel()
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	module, err := os.ReadFile(calc)
	if err != nil {
		t.Fatal(err)
	}
	key, other := sigstoretest.NewKey(t), sigstoretest.NewKey(t)
	dir := filepath.Dir(e.Config)
	pub := key.WritePublic(t, dir, "tools.pub")
	bundle := filepath.Join(dir, "calculator.sigstore.json")
	harness.WriteFile(t, bundle, key.Sign(t, module))
	harness.WriteFile(t, e.Config, []byte(e.YAML("", harness.Item("name: calculator", "path: "+harness.Q(calc),
		"verify: {key_file: tools.pub, bundle: calculator.sigstore.json}"))))
	g := bins.Start(t, harness.Options{Config: e.Config})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, 2*time.Minute)
	harness.Calc(ctx, t, c, 2, 3)

	harness.RenameOver(t, pub, other.PublicPEM(t))
	if !harness.WaitFor(visible, func() bool { _, fail := g.Reloads(t); return fail >= 1 }) {
		t.Fatalf("no failed reload after the key changed:\n%s", g.Stderr())
	}
	if want := "signed by a key other than verify.key_file (" + pub + ")"; !strings.Contains(g.Stderr(), want) {
		t.Errorf("the failed reload does not say %q:\n%s", want, g.Stderr())
	}
	harness.Calc(ctx, t, c, 40, 2)

	okBefore, _ := g.Reloads(t)
	harness.RenameOver(t, bundle, other.Sign(t, module))
	if !harness.WaitFor(visible, func() bool { ok, _ := g.Reloads(t); return ok > okBefore && g.LastReloadOK(t) == 1 }) {
		t.Fatalf("no successful reload after the bundle by the new key:\n%s", g.Stderr())
	}
	harness.Calc(ctx, t, c, 5, 8)
}
