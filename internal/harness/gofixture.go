package harness

import (
	"os"
	"os/exec"
	"path/filepath"
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
	cmd := exec.Command("go", "build", "-o", out, "./"+filepath.ToSlash(rel))
	cmd.Dir = RepoRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", rel, err, b)
	}
	return out
}
