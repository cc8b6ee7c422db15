package fetch

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScheme(t *testing.T) {
	for in, want := range map[string]string{
		"/srv/plugins/echo.wasm":   "",
		"echo.wasm":                "",
		`C:\plugins\echo.wasm`:     "",
		"/srv/oci://x/echo.wasm":   "",
		"://x":                     "",
		"1oci://x":                 "",
		"oci://ghcr.io/a/b:1":      "oci",
		"HTTPS://example.com/a.wm": "https",
		"git+ssh://host/repo":      "git+ssh",
	} {
		if got := Scheme(in); got != want {
			t.Errorf("Scheme(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "echo.wasm")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	const sum = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" // sha256("hello")
	reg := Registry{"": File{}}

	m, err := reg.Fetch(ctx, Spec{Plugin: "echo", Key: "plugins[0]", Source: path, SHA256: sum})
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Data) != "hello" || m.SHA256 != sum || len(m.Watch) != 1 || m.Watch[0] != path {
		t.Errorf("Fetch = %q %s %v", m.Data, m.SHA256, m.Watch)
	}

	_, err = reg.Fetch(ctx, Spec{Plugin: "echo", Key: "plugins[0]", Source: path, SHA256: strings.Repeat("0", 64)})
	want := `plugin "echo" (plugins[0].sha256): ` + path + " has sha256 " + sum + ", pinned " + strings.Repeat("0", 64)
	if err == nil || err.Error() != want {
		t.Errorf("pin mismatch: got %v, want %s", err, want)
	}

	missing := filepath.Join(dir, "gone.wasm")
	_, err = reg.Fetch(ctx, Spec{Plugin: "gone", Key: "plugins[1]", Source: missing})
	want = `plugin "gone" (plugins[1]): read ` + missing + ": no such file or directory"
	if err == nil || err.Error() != want {
		t.Errorf("missing file: got %v, want %s", err, want)
	}

	_, err = reg.Fetch(ctx, Spec{Plugin: "x", Key: "plugins[2]", Source: "oci://ghcr.io/a/x:1"})
	want = `plugin "x" (plugins[2]): oci://ghcr.io/a/x:1: unsupported source scheme "oci" (only file paths are supported)`
	if err == nil || err.Error() != want {
		t.Errorf("unknown scheme: got %v, want %s", err, want)
	}
}

func TestRegistryCheck(t *testing.T) {
	reg := Registry{"": File{}, "oci": File{}, "https": File{}}
	if err := reg.Check("/srv/echo.wasm"); err != nil {
		t.Errorf("path: %v", err)
	}
	err := reg.Check("s3://bucket/echo.wasm")
	want := `unsupported source scheme "s3" (supported: file paths, https://, oci://)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "modules")
	c := NewCache(dir)
	data := []byte("hello")
	sum := Sum(data)
	if _, ok := c.Module(sum); ok {
		t.Fatal("empty cache has the module")
	}
	if err := c.PutModule(data, sum); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Module(sum); !ok || string(got) != "hello" {
		t.Fatalf("Module = %q, %v", got, ok)
	}
	digest := "sha256:" + strings.Repeat("ab", 32)
	if err := c.PutLink("oci", digest, sum); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Link("oci", digest); !ok || got != sum {
		t.Errorf("Link = %q, %v", got, ok)
	}
	for _, bad := range []struct{ kind, digest string }{
		{"oci", "sha512:" + strings.Repeat("ab", 32)}, {"oci", "sha256:../../x"}, {"../x", digest}, {"sha256", digest},
	} {
		if err := c.PutLink(bad.kind, bad.digest, sum); err != nil {
			t.Errorf("PutLink(%q, %q): %v", bad.kind, bad.digest, err)
		}
		if _, ok := c.Link(bad.kind, bad.digest); ok {
			t.Errorf("Link(%q, %q) found something", bad.kind, bad.digest)
		}
	}
	// A damaged module is not served, and is removed.
	p := filepath.Join(dir, "sha256", sum)
	if err := os.WriteFile(p, []byte("hellO"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Module(sum); ok {
		t.Error("damaged module served")
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("damaged module kept: %v", err)
	}
	// No temporary files left behind.
	entries, _ := os.ReadDir(filepath.Join(dir, "sha256"))
	for _, e := range entries {
		t.Errorf("left in the cache: %s", e.Name())
	}
	// The zero cache keeps nothing.
	var none Cache
	if err := none.PutModule(data, sum); err != nil {
		t.Error(err)
	}
	if _, ok := none.Module(sum); ok {
		t.Error("zero cache has a module")
	}
}

func TestSecureTransport(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:80": true, "127.0.0.1": true, "127.1.2.3:5000": true, "[::1]:5000": true, "::1": true,
		"10.0.0.1": false, "192.168.1.1:5000": false, "example.com": false, "localhost.example.com": false, "": false,
	} {
		if got := Loopback(host); got != want {
			t.Errorf("Loopback(%q) = %v", host, got)
		}
	}
	var reached []string
	rt := SecureTransport(roundTripper(func(r *http.Request) (*http.Response, error) {
		reached = append(reached, r.URL.String())
		return &http.Response{StatusCode: 200, Body: http.NoBody}, nil
	}))
	for url, ok := range map[string]bool{
		"https://example.com/x": true, "http://127.0.0.1:5000/v2/": true, "http://localhost/x": true,
		"http://example.com/x": false, "http://10.0.0.1:5000/v2/": false, "ftp://127.0.0.1/x": false,
	} {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		_, err := rt.RoundTrip(req)
		if ok && err != nil || !ok && (err == nil || !strings.Contains(err.Error(), "only https is allowed (plain http only to a loopback host)")) {
			t.Errorf("%s: %v", url, err)
		}
	}
	if len(reached) != 3 {
		t.Errorf("reached %v, want the three allowed", reached)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
