package harness

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Parts are the pieces of a test gateway.yaml. Each is YAML already
// indented for where it goes: Server under server: (2 spaces), HTTP under
// transports.http: (4 spaces), Plugins as list items under plugins:,
// Sections at the top level after plugins (auth:, policy:, audit:).
type Parts struct {
	Server   string
	HTTP     string
	Plugins  string
	Sections string
}

// YAML is a gateway.yaml listening on ephemeral loopback ports (HTTP and
// admin) with the shared compilation cache and a 5 s shutdown timeout.
// Both listeners are enabled explicitly, so that they also run next to
// stdio (Options.Stdio), which alone serves only stdio. Tests edit this
// text: "admin:\n  listen: 127.0.0.1:0" and, without Parts.HTTP, the HTTP
// listen line followed by "admin" stay as they are.
func (b *Binaries) YAML(p Parts) string {
	return fmt.Sprintf(`server:
  cache_dir: %q
  shutdown_timeout: 5s
%stransports:
  http:
    enabled: true
    listen: 127.0.0.1:0
%sadmin:
  listen: 127.0.0.1:0
  enabled: true
plugins:
%s%s`, b.CacheDir, p.Server, p.HTTP, p.Plugins, p.Sections)
}

// ExamplesYAML is YAML serving the three example plugins, plus extra items
// under plugins:.
func (b *Binaries) ExamplesYAML(t testing.TB, extraPlugins string) string {
	return b.YAML(Parts{Plugins: ExamplePlugins(t) + extraPlugins})
}

// ExamplePlugins are the plugins: items of the three example plugins.
func ExamplePlugins(t testing.TB) string {
	return fmt.Sprintf(`  - name: calculator
    path: %s
  - name: storage
    path: %s
  - name: greeter
    path: %s
`, Wasm(t, "examples/plugins/calculator"), Wasm(t, "examples/plugins/storage"), Wasm(t, "examples/plugins/greeter"))
}

// WriteConfig writes yaml as gateway.yaml in a fresh temporary folder and
// returns its path.
func WriteConfig(t testing.TB, yaml string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "gateway.yaml")
	WriteFile(t, p, []byte(yaml))
	return p
}

// Item is one entry of plugins: in YAML flow style, e.g.
// Item("name: calculator", "path: "+Q(p)).
func Item(fields ...string) string {
	return "  - {" + strings.Join(fields, ", ") + "}\n"
}

// Q quotes a string for YAML (Go's double-quoted form is valid YAML for
// the paths and words the tests use).
func Q(s string) string { return fmt.Sprintf("%q", s) }

// NoWatch is the server: line turning the file watcher off, for tests that
// trigger every reload themselves (SIGHUP, POST /-/reload).
const NoWatch = "  watch: false\n"

// FreePort returns a loopback address whose port is free right now.
func FreePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// WriteFile writes data to path in place, as `cp` or an editor writing
// through does.
func WriteFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// RenameOver writes data to a temporary file next to path and renames it
// over path, as vim, JetBrains IDEs and most editors save.
func RenameOver(t testing.TB, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp~"
	WriteFile(t, tmp, data)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// ReadFixture returns the bytes of a built module (see Wasm).
func ReadFixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(Wasm(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Dir is a test's own folder for a gateway that reloads:
// Path/gateway.yaml (Config) and copies of modules in Path/plugins
// (Plugins), so that the test can save the config and replace modules
// without touching the repository.
type Dir struct {
	Path    string
	Config  string
	Plugins string

	t testing.TB
	b *Binaries
}

// NewDir makes a Dir in a fresh temporary folder.
func (b *Binaries) NewDir(t testing.TB) *Dir {
	t.Helper()
	path := t.TempDir()
	d := &Dir{Path: path, Config: filepath.Join(path, "gateway.yaml"), Plugins: filepath.Join(path, "plugins"), t: t, b: b}
	if err := os.Mkdir(d.Plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// Module copies a built module (relative to the repository, without
// .wasm) to plugins/<name>.wasm and returns its path.
func (d *Dir) Module(name, rel string) string {
	d.t.Helper()
	p := filepath.Join(d.Plugins, name+".wasm")
	WriteFile(d.t, p, ReadFixture(d.t, rel))
	return p
}

// YAML is Binaries.YAML with server lines (2 spaces, e.g. NoWatch) and the
// given plugins: items (see Item).
func (d *Dir) YAML(server string, items ...string) string {
	return d.b.YAML(Parts{Server: server, Plugins: strings.Join(items, "")})
}
