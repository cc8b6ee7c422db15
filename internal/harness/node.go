package harness

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// NodeModules is tests/node/node_modules, where `make node-deps`
// installs the npm packages the tests use (tests/node/package.json).
func NodeModules() string {
	return filepath.Join(RepoRoot(), "tests", "node", "node_modules")
}

// Node is the path of the node binary on PATH, failing t (not skipping:
// CI installs it) when there is none.
func Node(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: install Node.js 20+, then `make node-deps` (make test does): %v", err)
	}
	return node
}

// NodeModule is the path of rel (slash-separated) inside the npm
// package pkg in NodeModules, e.g. NodeModule(t,
// "@modelcontextprotocol/server-everything", "dist/index.js"), failing t
// (not skipping: CI installs it) when it is not there.
func NodeModule(t testing.TB, pkg, rel string) string {
	t.Helper()
	path := filepath.Join(NodeModules(), filepath.FromSlash(pkg), filepath.FromSlash(rel))
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is not installed: run `make node-deps` (make test does): %v", pkg, err)
	}
	return path
}

// NodeServer is the node binary and the script of an npm MCP server,
// pkg's dist/index.js (as NodeModule), failing t when either is missing.
func NodeServer(t testing.TB, pkg string) (node, script string) {
	t.Helper()
	return Node(t), NodeModule(t, pkg, "dist/index.js")
}

// NodeBin is the path of the command bin that the npm package pkg
// installs in NodeModules' .bin, failing t (not skipping: CI installs
// it) when it is not there.
func NodeBin(t testing.TB, pkg, bin string) string {
	t.Helper()
	path := filepath.Join(NodeModules(), ".bin", bin)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is not installed: run `make node-deps` (make test does): %v", pkg, err)
	}
	return path
}
