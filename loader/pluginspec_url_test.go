package loader

import (
	"strings"
	"testing"
)

// TestLoadURLSources: URL paths are kept as written (no path resolution,
// no file check, not watched), and name defaults to their last element
// without tag, digest or extension.
func TestLoadURLSources(t *testing.T) {
	digest := "sha256:" + strings.Repeat("ab", 32)
	p := writeFiles(t, `
plugins:
  - path: oci://ghcr.io/tuananh/time-plugin:latest
  - path: oci://127.0.0.1:5000/plugins/calculator@`+digest+`
  - path: oci://ghcr.io/o/qr:1.0@`+digest+`
  - path: https://example.com/releases/download/v1/greeter.wasm?raw=1#x
    sha256: `+strings.ToUpper(strings.Repeat("cd", 32))+`
  - path: http://localhost:8080/storage.wasm
  - name: own
    path: https://example.com/download
  - path: https://cdn.example.com/npm/barcode@1.2.0/dist/barcode.wasm
  - path: mods/local.wasm
`, "mods/local.wasm")
	cfg, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, path string }{
		{"time-plugin", "oci://ghcr.io/tuananh/time-plugin:latest"},
		{"calculator", "oci://127.0.0.1:5000/plugins/calculator@" + digest},
		{"qr", "oci://ghcr.io/o/qr:1.0@" + digest},
		{"greeter", "https://example.com/releases/download/v1/greeter.wasm?raw=1#x"},
		{"storage", "http://localhost:8080/storage.wasm"},
		{"own", "https://example.com/download"},
		{"barcode", "https://cdn.example.com/npm/barcode@1.2.0/dist/barcode.wasm"},
	}
	for i, w := range want {
		if got := cfg.Plugins[i]; got.Name != w.name || got.Path != w.path {
			t.Errorf("plugins[%d] = %q %q, want %q %q", i, got.Name, got.Path, w.name, w.path)
		}
	}
	if got := cfg.Plugins[3].SHA256; got != strings.Repeat("cd", 32) {
		t.Errorf("sha256 = %q, want it lower-cased", got)
	}
	for _, f := range cfg.WatchFiles() {
		if strings.Contains(f, "://") || strings.Contains(f, ":/") {
			t.Errorf("a URL is watched as a file: %s", f)
		}
	}
	if n := len(cfg.WatchFiles()); n < 1 {
		t.Errorf("the local module is not watched: %v", cfg.WatchFiles())
	}
}

// TestLoadURLErrors: a malformed URL is refused at load, naming
// plugins[i].path and saying what is wrong.
func TestLoadURLErrors(t *testing.T) {
	for yaml, want := range map[string]string{
		"path: oci://ghcr.io/tuananh/time-plugin":           `plugins[0].path: "oci://ghcr.io/tuananh/time-plugin": no tag or digest; want oci://REGISTRY/REPO:TAG or oci://REGISTRY/REPO@sha256:DIGEST`,
		"path: oci://tuananh/time-plugin:1":                 `plugins[0].path: "oci://tuananh/time-plugin:1": no registry host (such as ghcr.io) before the repository`,
		"path: oci://ghcr.io/o/p@sha256:abc":                `plugins[0].path: "oci://ghcr.io/o/p@sha256:abc": invalid checksum digest length`,
		"path: http://example.com/p.wasm":                   `plugins[0].path: "http://example.com/p.wasm": plain http is allowed only to a loopback host; use https://`,
		"path: https://u:p@example.com/p.wasm":              `plugins[0].path: "https://u:p@example.com/p.wasm": credentials in the URL are not supported`,
		"path: s3://bucket/p.wasm":                          `plugins[0].path: "s3://bucket/p.wasm": unsupported source scheme "s3" (supported: file paths, http://, https://, oci://)`,
		"dir: oci://ghcr.io/o/p:1":                          `plugins[0].dir: "oci://ghcr.io/o/p:1": dir is a local folder; name a module by URL with path`,
		"path: https://example.com/":                        `plugins[0].name: "": use letters, digits`,
		"{path: 'https://example.com/a b.wasm'}":            `plugins[0].name: "a b": use letters, digits`,
		"path: https://example.com/p.wasm\n    sha256: xyz": `plugins[0].sha256: "xyz" is not a hex SHA-256`,
	} {
		p := writeFiles(t, "plugins:\n  - "+yaml+"\n")
		_, err := Load(p, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\ngot  %v\nwant %s", yaml, err, want)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: more than one error:\n%v", yaml, err)
		}
	}
}
