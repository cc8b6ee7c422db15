package https

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/fetch/sigstore"
	"github.com/wasmgate/wasmgate/loader/fetch/sigstore/sigstoretest"
)

func verifier(t *testing.T, p sigstore.Policy) *sigstore.Verifier {
	t.Helper()
	v, err := sigstore.New(p)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// cached lists the files under the cache folder.
func cached(t *testing.T, dir string) []string {
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, strings.TrimPrefix(p, dir+"/"))
		}
		return nil
	})
	return files
}

// TestSigned: an https:// module with verify.key_file is checked against
// <url>.sigstore.json before it is cached; a tampered module, one signed
// by another key and one without a bundle are refused and leave nothing
// in the cache; a pinned, verified and cached module loads again with the
// server gone, under the same key only.
func TestSigned(t *testing.T) {
	dir := t.TempDir()
	key, other := sigstoretest.NewKey(t), sigstoretest.NewKey(t)
	pub := key.WritePublic(t, dir, "tools.pub")
	otherPub := other.WritePublic(t, dir, "other.pub")
	module := []byte("\x00asm\x01\x00\x00\x00 signed")
	tampered := append(bytes.Clone(module), 0)
	sum := fetch.Sum(module)
	srv, _ := serve(t, true, map[string][]byte{
		"/good.wasm": module, "/good.wasm.sigstore.json": key.Sign(t, module),
		"/tampered.wasm": tampered, "/tampered.wasm.sigstore.json": key.Sign(t, module),
		"/other.wasm": module, "/other.wasm.sigstore.json": other.Sign(t, module),
		"/unsigned.wasm": module,
	})
	ctx := context.Background()
	signed := func(path, pin string, v fetch.Verifier) fetch.Spec {
		s := spec(srv.URL+path, pin)
		s.Verify = v
		return s
	}
	byKey := verifier(t, sigstore.Policy{KeyFile: pub})

	for _, c := range []struct{ path, want string }{
		{"/tampered.wasm", "signature check failed: " + srv.URL + "/tampered.wasm: bundle " + srv.URL + "/tampered.wasm.sigstore.json: the bundle signs sha256:" + sum + ", but the module is sha256:" + fetch.Sum(tampered) + " (another module, or a tampered one)"},
		{"/other.wasm", "signature check failed: " + srv.URL + "/other.wasm: bundle " + srv.URL + "/other.wasm.sigstore.json: signed by a key other than verify.key_file (" + pub + ")"},
		{"/unsigned.wasm", "signature check failed: " + srv.URL + "/unsigned.wasm: no Sigstore bundle at " + srv.URL + "/unsigned.wasm.sigstore.json (GET: 404 Not Found)"},
	} {
		f := newFetcher(t, srv, fetch.Options{})
		_, err := f.Fetch(ctx, signed(c.path, "", byKey))
		want := `plugin "calc" (plugins[0].verify): ` + c.want
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v\nwant %s", c.path, err, want)
		}
		if files := cached(t, f.cache.Dir()); len(files) != 0 {
			t.Errorf("%s: refused, yet cached %v", c.path, files)
		}
	}

	f := newFetcher(t, srv, fetch.Options{})
	m, err := f.Fetch(ctx, signed("/good.wasm", sum, byKey))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.Data, module) {
		t.Fatal("wrong module")
	}
	if files := cached(t, f.cache.Dir()); len(files) != 2 {
		t.Errorf("cache holds %v, want the module and its bundle", files)
	}

	// Offline: a restart with the server gone trusts the cache entry
	// under the same key, re-checking the cached bundle...
	srv.Close()
	restart := newFetcher(t, nil, fetch.Options{CacheDir: f.cache.Dir()})
	if _, err := restart.Fetch(ctx, signed("/good.wasm", sum, verifier(t, sigstore.Policy{KeyFile: pub}))); err != nil {
		t.Fatalf("offline restart: %v", err)
	}
	// ...but not under another key: that needs the bundle again, which
	// cannot be had.
	_, err = restart.Fetch(ctx, signed("/good.wasm", sum, verifier(t, sigstore.Policy{KeyFile: otherPub})))
	if err == nil || !strings.Contains(err.Error(), "no Sigstore bundle at "+srv.URL+"/good.wasm.sigstore.json") {
		t.Errorf("offline, another key: %v", err)
	}
	// A bundle planted under the other key's folder that the other key
	// did not sign is no pass either.
	for _, p := range cached(t, f.cache.Dir()) {
		if strings.HasPrefix(p, "sigstore/") {
			b, _ := os.ReadFile(filepath.Join(f.cache.Dir(), p))
			otherID := filepath.Join(f.cache.Dir(), "sigstore", "planted", sum+fetch.BundleSuffix)
			os.MkdirAll(filepath.Dir(otherID), 0o700)
			os.WriteFile(otherID, b, 0o600)
		}
	}
	if _, err := restart.Fetch(ctx, signed("/good.wasm", sum, verifier(t, sigstore.Policy{KeyFile: otherPub}))); err == nil {
		t.Error("offline, another key, planted bundle: loaded")
	}
}

// TestSignedExplicitBundle: verify.bundle names the bundle (a file, or a
// URL fetched with the module's rules).
func TestSignedExplicitBundle(t *testing.T) {
	dir := t.TempDir()
	key := sigstoretest.NewKey(t)
	pub := key.WritePublic(t, dir, "k.pub")
	module := []byte("\x00asm\x01\x00\x00\x00 explicit")
	bundlePath := filepath.Join(dir, "m.sigstore.json")
	os.WriteFile(bundlePath, key.Sign(t, module), 0o600)
	srv, _ := serve(t, false, map[string][]byte{"/m.wasm": module, "/sigs/m.json": key.Sign(t, module), "/sigs/big.json": bytes.Repeat([]byte(" "), fetch.MaxBundleSize+1)})
	for _, where := range []string{bundlePath, srv.URL + "/sigs/m.json"} {
		f := newFetcher(t, nil, fetch.Options{})
		s := spec(srv.URL+"/m.wasm", "")
		s.Verify = verifier(t, sigstore.Policy{KeyFile: pub, Bundle: where})
		if _, err := f.Fetch(context.Background(), s); err != nil {
			t.Errorf("bundle %s: %v", where, err)
		}
	}
	for _, q := range []string{"", "?chunked=1"} {
		f := newFetcher(t, nil, fetch.Options{})
		s := spec(srv.URL+"/m.wasm", "")
		s.Verify = verifier(t, sigstore.Policy{KeyFile: pub, Bundle: srv.URL + "/sigs/big.json" + q})
		if _, err := f.Fetch(context.Background(), s); err == nil || !strings.Contains(err.Error(), "larger than the 1MiB limit of a Sigstore bundle") {
			t.Errorf("big bundle%s: %v", q, err)
		}
	}
	f := newFetcher(t, nil, fetch.Options{})
	s := spec(srv.URL+"/m.wasm", "")
	s.Verify = verifier(t, sigstore.Policy{KeyFile: pub, Bundle: filepath.Join(dir, "missing.json")})
	if _, err := f.Fetch(context.Background(), s); err == nil || !strings.Contains(err.Error(), "no Sigstore bundle at "+filepath.Join(dir, "missing.json")+" (no such file or directory)") {
		t.Errorf("missing bundle file: %v", err)
	}
}
