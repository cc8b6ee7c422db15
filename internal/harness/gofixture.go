package harness

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// GoFixture builds the Go command at rel (relative to the repository,
// e.g. "testdata/upstreams/hostile", the hostile upstream MCP server)
// into a temporary folder of t, readable by everyone, and returns the
// binary's path. The go build cache makes a second build cheap.
func GoFixture(t testing.TB, rel string) string {
	t.Helper()
	dir := t.TempDir()
	_ = os.Chmod(dir, 0o755)
	out := filepath.Join(dir, filepath.Base(rel))
	if err := buildGo(rel, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// GoFixture is GoFixture built once per Binaries: every test that runs
// the command at rel runs the same binary, in the Binaries' folder
// (readable by everyone, removed by Close). The binary is shared, so a
// test must not change it; one that needs a copy of its own copies it. A
// failed build fails every test that asks for it.
func (b *Binaries) GoFixture(t testing.TB, rel string) string {
	t.Helper()
	b.fixMu.Lock()
	defer b.fixMu.Unlock()
	if out, ok := b.fixtures[rel]; ok {
		return out
	}
	dir := filepath.Join(b.dir, "fixtures", strings.ReplaceAll(filepath.ToSlash(rel), "/", "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("build %s: %v", rel, err)
	}
	_ = os.Chmod(dir, 0o755)
	_ = os.Chmod(filepath.Dir(dir), 0o755)
	out := filepath.Join(dir, filepath.Base(rel))
	if err := buildGo(rel, out); err != nil {
		t.Fatal(err)
	}
	b.fixtures[rel] = out
	return out
}

// buildGo runs go build -o out on the package at rel.
func buildGo(rel, out string) error {
	cmd := exec.Command("go", "build", "-o", out, "./"+filepath.ToSlash(rel))
	cmd.Dir = RepoRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %v\n%s", rel, err, b)
	}
	return nil
}
