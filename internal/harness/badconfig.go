package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BadConfigDir holds the configs every wasmgate must refuse, relative to
// the repository: loader checks them all with loader.Load, and
// cmd/wasmgate a few of them through `wasmgate validate`.
const BadConfigDir = "loader/testdata/bad"

// BadConfig is a config file that must be refused, with what the refusal
// must say. Both are read from the comment lines that open the file:
//
//	# want: <text>   the error contains text (one line each, at least one)
//	# not: <text>    the error does not contain text
//	# env: K=V       the config is loaded with K=V in the environment
//
// Paths in the file are relative to it, as in any gateway.yaml.
type BadConfig struct {
	Name string // the file name without .yaml
	Path string
	Want []string
	Not  []string
	Env  []string
}

// BadConfigs reads every *.yaml in dir (see BadConfig); a file without a
// "# want:" line fails the test.
func BadConfigs(t testing.TB, dir string) []BadConfig {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no *.yaml in %s", dir)
	}
	out := make([]BadConfig, 0, len(paths))
	for _, p := range paths {
		out = append(out, ReadBadConfig(t, p))
	}
	return out
}

// ReadBadConfig reads one BadConfig from path.
func ReadBadConfig(t testing.TB, path string) BadConfig {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := BadConfig{Name: strings.TrimSuffix(filepath.Base(path), ".yaml"), Path: path}
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, "#")
		if !ok {
			break // the header ends at the first line that is not a comment
		}
		key, value, ok := strings.Cut(strings.TrimSpace(rest), ":")
		value = strings.TrimSpace(value)
		switch {
		case !ok:
		case key == "want":
			c.Want = append(c.Want, value)
		case key == "not":
			c.Not = append(c.Not, value)
		case key == "env":
			c.Env = append(c.Env, value)
		}
	}
	if len(c.Want) == 0 {
		t.Fatalf("%s: no \"# want:\" line says what the error must contain", path)
	}
	return c
}
