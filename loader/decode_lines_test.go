package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deepConfig is a gateway.yaml whose plugins list starts near the top and
// runs for dozens of lines; edit changes the line with number n (1-based).
func deepConfig(t *testing.T, edit func(lines []string) []string) (path string, lines []string) {
	t.Helper()
	dir := t.TempDir()
	mod := filepath.Join(dir, "m.wasm")
	if err := os.WriteFile(mod, []byte("\x00asm"), 0o644); err != nil {
		t.Fatal(err)
	}
	lines = []string{"server:", "  name: deep", "plugins:"}
	for i := range 20 {
		lines = append(lines,
			fmt.Sprintf("  - name: p%d", i),
			"    path: "+mod,
			"    limits:",
			"      timeout: 5s")
	}
	lines = edit(lines)
	path = filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, lines
}

func TestYAMLErrorLines(t *testing.T) {
	// Line 74 is plugins[17].limits (3 + 17*4 + 3).
	tests := []struct {
		name string
		edit func(l []string) []string
		env  []string
		want string
	}{
		{"bad indent deep in the list", func(l []string) []string { l[73] = "   limits:"; return l },
			nil, "invalid YAML: line 74: did not find expected '-' indicator (at \"   limits:\")"},
		{"unterminated flow sequence", func(l []string) []string { l[74] = "      timeout: [5s"; return l },
			nil, "invalid YAML: line 75:"},
		{"mapping value in a scalar", func(l []string) []string { l[72] = "    path: /x.wasm: y"; return l },
			nil, "invalid YAML: line 73: mapping values are not allowed in this context"},
		{"bad value", func(l []string) []string { l[74] = "      timeout: 5x"; return l },
			nil, "plugins[17].limits.timeout: invalid duration \"5x\" (write e.g. 5s, 250ms, 1m) (line 75, column 7)"},
		{"unknown key", func(l []string) []string { l[73] = "    limitz:"; return l },
			nil, "plugins[17].limitz: unknown key (did you mean limits?) (line 74, column 5)"},
		{"bad name (Normalize)", func(l []string) []string { l[71] = "  - name: \"bad name\""; return l },
			nil, "plugins[17].name: \"bad name\": use letters, digits, '_', '-' or '.' (1-64 characters) (line 72, column 5)"},
		{"a key only the environment sets has no line", func(l []string) []string { return l },
			[]string{"WASMGATE_SERVER__SHUTDOWN_TIMEOUT=5x"}, "server.shutdown_timeout: invalid duration \"5x\" (write e.g. 5s, 250ms, 1m) (set by environment variable WASMGATE_SERVER__SHUTDOWN_TIMEOUT)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, lines := deepConfig(t, tt.edit)
			_, err := Load(path, tt.env)
			if err == nil {
				t.Fatalf("Load succeeded:\n%s", strings.Join(lines, "\n"))
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load error:\n  %v\nwant it to contain\n  %s", err, tt.want)
			}
			if tt.env != nil && strings.Contains(err.Error(), "(line ") {
				t.Errorf("an error about an environment override names a line: %v", err)
			}
		})
	}
}

// A multi-line quoted value is not mistaken for the error's line.
func TestYAMLErrorLineAfterMultilineScalar(t *testing.T) {
	path, _ := deepConfig(t, func(l []string) []string {
		l[1] = "  name: \"deep"
		l = append(l[:2], append([]string{"    gateway\""}, l[2:]...)...)
		l[75] = "   limits:" // was line 74, now 75 and mis-indented
		return l
	})
	_, err := Load(path, nil)
	if err == nil || !strings.Contains(err.Error(), "line 76: did not find expected '-' indicator") {
		t.Fatalf("Load error %v, want line 76", err)
	}
}
