// Package harness runs the real wasmgate binary for tests: it builds the
// binary once per test binary (Build, from TestMain), starts gateways on
// configs the tests write (Binaries.Start) and stops them at the end of
// each test, connects mcp-go clients to them over Streamable HTTP and
// stdio, scrapes their /metrics, and edits config and module files the
// ways editors and deploy tools do to drive hot reloads.
//
// Start-up cost: wazero's compiler is pure Go, so a -race binary compiles
// a 3 MB module about ten times slower than a plain one (~15 s instead of
// ~1.5 s). Build therefore also builds a plain binary and uses it once to
// fill a compilation cache every gateway shares (server.cache_dir, see
// Binaries.YAML); -race gateways then start in well under a second.
//
// The modules the tests serve are built by `make plugins`
// (scripts/build-plugins.sh) from examples/plugins and testdata/plugins; a
// missing one fails the test that needs it (Wasm).
package harness

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// fixtures are the modules Build compiles into the shared cache by
// default: every module the tests serve except badinfo, whose gateway
// fails on purpose (see WarmCache).
func fixtures() []string {
	return []string{
		"examples/plugins/calculator",
		"examples/plugins/storage",
		"examples/plugins/greeter",
		"testdata/plugins/seaflea",
		"testdata/plugins/hostile",
		"testdata/plugins/kvquota",
		"testdata/plugins/fetch",
		"testdata/plugins/notes",
		"testdata/plugins/fsescape",
		"testdata/plugins/noisy",
		"testdata/plugins/goodbye",
		"testdata/plugins/hyperv1",
		"testdata/plugins/hyperv2",
		"testdata/plugins/appprobe",
		"examples/plugins/shout_v1",
		"examples/plugins/shout_v2",
	}
}

// alone are the modules Build compiles into the shared cache by default
// each in a gateway of its own, which may fail once it has compiled the
// module: interceptors and rankers served as plugins, which they are not
// (see Binaries.WarmCache), badinfo, whose information export traps, and
// plugins that need an environment of their test's. Without them, every
// test serving one compiles it in its -race gateway (~15 s, and much
// more when parallel tests do so at once).
func alone() []string {
	return []string{
		"testdata/plugins/badinfo",
		"testdata/plugins/conformance",
		"testdata/plugins/leaky",
		"examples/rankers/keyword",
		"examples/interceptors/argguard",
		"examples/interceptors/describe",
		"examples/interceptors/injection",
		"examples/interceptors/pass",
		"examples/interceptors/redact",
		"examples/interceptors/redact-rs",
		"testdata/interceptors/hostile",
	}
}

// BuildOptions say which binaries Build makes.
type BuildOptions struct {
	// Package is the import path of the command; "" means
	// github.com/wasmgate/wasmgate/cmd/wasmgate.
	Package string
	// Race builds the binary under test with -race, so that races in the
	// server fail the test (see Gateway). Pass the race detector's state
	// of the test binary (a constant set by build-tagged files).
	Race bool
	// Version is stamped into the binaries (-X main.version), so that
	// tests can check the version the gateway reports is its own.
	Version string
	// Warm are the modules compiled into the shared cache before the
	// tests run, relative to the repository without .wasm; nil means
	// every module the wasmgate tests serve (examples/plugins/*,
	// testdata/plugins/{seaflea,hostile,kvquota}).
	Warm []string
	// WarmAlone are modules compiled into the shared cache each in a
	// gateway of its own, which may fail after compiling (interceptors
	// and rankers, which are no plugins); nil means the ones the wasmgate
	// tests use, none of them the empty slice.
	WarmAlone []string
}

// Binaries are the wasmgate binaries built for one test binary and the
// compilation cache every gateway they start shares. Build makes them in
// TestMain; Close removes them after m.Run.
type Binaries struct {
	// Path is the binary under test: built with -race when Race.
	Path string
	// Plain is the same source built without -race (the same file as Path
	// when not Race). `wasmgate validate` compiles without a cache, so
	// tests run it with Plain.
	Plain string
	// CacheDir is the compilation cache of every gateway Binaries.YAML
	// configures.
	CacheDir string
	// Race and Version are the BuildOptions the binaries were built with.
	Race    bool
	Version string

	dir    string
	warmMu sync.Mutex
	warmed map[string]bool // modules WarmCache compiled

	fixMu    sync.Mutex
	fixtures map[string]string // Go fixtures GoFixture built, by rel
}

// Build builds the binaries into a fresh temporary folder (readable by
// everyone: a test may run the binary as an unprivileged user) and fills
// the compilation cache with opts.Warm. A cache that cannot be filled is a
// warning on stderr: the tests still run, only slower.
func Build(opts BuildOptions) (*Binaries, error) {
	if opts.Package == "" {
		opts.Package = "github.com/wasmgate/wasmgate/cmd/wasmgate"
	}
	if opts.Warm == nil {
		opts.Warm = fixtures()
	}
	if opts.WarmAlone == nil {
		opts.WarmAlone = alone()
	}
	dir, err := os.MkdirTemp("", "wasmgate-e2e-")
	if err != nil {
		return nil, fmt.Errorf("build wasmgate: %w", err)
	}
	_ = os.Chmod(dir, 0o755)
	b := &Binaries{
		Path:     filepath.Join(dir, "wasmgate"),
		Plain:    filepath.Join(dir, "wasmgate-norace"),
		CacheDir: filepath.Join(dir, "cache"),
		Race:     opts.Race,
		Version:  opts.Version,
		dir:      dir,
		warmed:   map[string]bool{},
		fixtures: map[string]string{},
	}
	ldflags := "-X main.version=" + opts.Version
	builds := [][]string{{"build", "-ldflags", ldflags, "-o", b.Plain, opts.Package}}
	if opts.Race {
		builds = append(builds, []string{"build", "-race", "-ldflags", ldflags, "-o", b.Path, opts.Package})
	}
	errs := make([]error, len(builds))
	var wg sync.WaitGroup
	for i, args := range builds {
		wg.Go(func() {
			cmd := exec.Command("go", args...)
			cmd.Dir = RepoRoot()
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			errs[i] = cmd.Run()
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("build %s: %w", opts.Package, err)
	}
	if !opts.Race {
		b.Path = b.Plain
	}
	if err := b.warm(opts.Warm); err != nil {
		fmt.Fprintln(os.Stderr, "warning: could not pre-fill the compilation cache:", err)
	}
	if opts.Race {
		b.warmAlone(opts.WarmAlone)
	}
	return b, nil
}

// warmAlone compiles each module of rels that is built into the shared
// cache with the plain binary, in a gateway of its own (GOMAXPROCS of them
// at once), and records it as warmed for WarmCache. A gateway that fails
// is expected (see alone); one that does not end is stopped.
func (b *Binaries) warmAlone(rels []string) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, rel := range rels {
		p := filepath.Join(RepoRoot(), rel+".wasm")
		if _, err := os.Stat(p); err != nil {
			continue // the tests that need it will say so
		}
		b.warmed[rel] = true
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			dir := filepath.Join(b.dir, fmt.Sprintf("warm-%d", i))
			if err := os.Mkdir(dir, 0o755); err != nil {
				fmt.Fprintln(os.Stderr, "warning: warming the cache with", rel+":", err)
				return
			}
			y := fmt.Sprintf("server: {cache_dir: %q, watch: false}\ntransports: {http: {listen: \"127.0.0.1:0\"}}\nadmin: {enabled: false}\nplugins:\n  - {name: %s, path: %q}\n",
				b.CacheDir, filepath.Base(rel), p)
			if log, ended, err := b.serveOnce(dir, y, 2*time.Minute); err != nil && !ended {
				fmt.Fprintf(os.Stderr, "warning: warming the cache with %s: %v\n%s", rel, err, log)
			}
		})
	}
	wg.Wait()
}

// Close removes the binaries and the cache.
func (b *Binaries) Close() error { return os.RemoveAll(b.dir) }

// warm compiles every module of rels that is built into the shared cache
// with the plain binary: `serve` until ready, then SIGINT.
func (b *Binaries) warm(rels []string) error {
	var y strings.Builder
	fmt.Fprintf(&y, "server: {cache_dir: %q}\ntransports: {http: {listen: \"127.0.0.1:0\"}}\nadmin: {listen: \"127.0.0.1:0\"}\nplugins:\n", b.CacheDir)
	n := 0
	for _, rel := range rels {
		p := filepath.Join(RepoRoot(), rel+".wasm")
		if _, err := os.Stat(p); err != nil {
			continue // the tests that need it will say so
		}
		// Each under its name as prefix, so that no two claim a name.
		fmt.Fprintf(&y, "  - {name: %s, path: %q, prefix: %s}\n", filepath.Base(rel), p, filepath.Base(rel))
		n++
	}
	if n == 0 {
		return errors.New("no plugin is built; run `make plugins`")
	}
	if log, _, err := b.serveOnce(b.dir, y.String(), 10*time.Minute); err != nil {
		return fmt.Errorf("warm-up gateway never got ready (%v):\n%s", err, log)
	}
	return nil
}

// serveOnce runs the plain binary's `serve` on yaml (written to
// dir/warm.yaml, its ready file in dir) until it is ready, then stops it
// with SIGINT, or until it exits by itself (ended); within d. It returns
// what the gateway logged, and an error unless it got ready.
func (b *Binaries) serveOnce(dir, yaml string, d time.Duration) (log string, ended bool, err error) {
	cfg := filepath.Join(dir, "warm.yaml")
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		return "", false, err
	}
	readyFile := readyFileIn(dir)
	cmd := exec.Command(b.Plain, "serve", "--config", cfg, "--ready-file", readyFile)
	cmd.SysProcAttr = dieWithTest()
	cmd.Env = CleanEnv()
	var stderr SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return "", false, err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	_, ended, err = waitReady(readyFile, exited, d)
	_ = cmd.Process.Signal(os.Interrupt)
	<-exited
	return stderr.String(), ended, err
}

// WarmCache compiles a module Build did not warm (relative to the
// repository, without .wasm) into the shared cache with the plain binary,
// once per Binaries, when the binary under test is a -race build (a plain
// gateway compiles fast enough itself). The gateway may fail after
// compiling, as badinfo's does (its information export traps): the
// compiled module is in the cache by then.
func (b *Binaries) WarmCache(t testing.TB, rel string) {
	t.Helper()
	if !b.Race {
		return
	}
	b.warmMu.Lock()
	defer b.warmMu.Unlock()
	if b.warmed[rel] {
		return
	}
	b.warmed[rel] = true
	name := filepath.Base(rel)
	cfg := filepath.Join(t.TempDir(), "warm.yaml")
	WriteFile(t, cfg, fmt.Appendf(nil, "server: {cache_dir: %q, watch: false}\ntransports: {http: {listen: \"127.0.0.1:0\"}}\nadmin: {enabled: false}\nplugins:\n  - {name: %s, path: %q}\n",
		b.CacheDir, name, Wasm(t, rel)))
	r := b.Run(t, RunOptions{Plain: true, Timeout: 60 * time.Second}, "serve", "--config", cfg)
	if r.Code == 0 || !strings.Contains(r.Stderr, name) {
		t.Logf("warming the cache with %s: exit %d\n%s", name, r.Code, r.Stderr)
	}
}

// RepoRoot is the repository's root folder.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Wasm returns the path of a built module, e.g.
// Wasm(t, "examples/plugins/calculator"). A missing module fails the
// test: run `make plugins` (make test does); a missing Rust module (rel
// has a src/lib.rs) names the Rust toolchain it needs too.
func Wasm(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(RepoRoot(), rel+".wasm")
	if _, err := os.Stat(p); err != nil {
		if _, rs := os.Stat(filepath.Join(RepoRoot(), rel, "src", "lib.rs")); rs == nil {
			t.Fatalf("%s is missing: `make plugins` builds it with rustc for wasm32-unknown-unknown "+
				"(Debian: apt-get install rustc libstd-rust-dev-wasm32): %v", p, err)
		}
		t.Fatalf("%s is missing: build the plugins with `make plugins` (make test does): %v", p, err)
	}
	return p
}

// CleanEnv is os.Environ without WASMGATE_* variables, so that the
// environment the tests run in cannot override the configs they write.
func CleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WASMGATE_") {
			out = append(out, kv)
		}
	}
	return out
}
