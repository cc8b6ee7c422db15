package fetch

import (
	"context"
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
