package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestDocsShowTheOutput: docs/upstreams.md shows what the import prints
// for its Claude Desktop example, as the golden file holds it.
func TestDocsShowTheOutput(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "upstreams.md"))
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "golden", "claude-upstreams-docs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(string(golden), "testdata/claude/upstreams-docs.json", "claude_desktop_config.json")
	if !strings.Contains(string(doc), "```yaml\n"+want+"```") {
		t.Errorf("docs/upstreams.md does not show the import of its Claude Desktop example as it is now:\n%s", want)
	}
	if !strings.HasPrefix(strings.SplitN(string(doc), "\n## ", 3)[1], "Start from the config you have: `wasmgate import`") {
		t.Errorf("docs/upstreams.md does not start with the wasmgate import section")
	}
}

// TestSuggestedSandboxesParse: uncommented, every suggested sandbox of the
// golden files is a sandbox: block the gateway reads (read and write
// lists of absolute or ~/ paths; network false or a list of ports).
func TestSuggestedSandboxesParse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.yaml"))
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			if strings.TrimSpace(l) != "# sandbox:" {
				continue
			}
			block := "sandbox:\n"
			for _, next := range lines[i+1:] {
				rest, ok := strings.CutPrefix(strings.TrimSpace(next), "#   ")
				if !ok {
					break
				}
				block += "  " + rest + "\n"
			}
			var sb struct {
				Sandbox struct {
					Read, Write []string
					Network     any
				}
			}
			if err := yaml.Unmarshal([]byte(block), &sb); err != nil {
				t.Errorf("%s: the suggested sandbox does not parse: %v\n%s", f, err, block)
				continue
			}
			n++
			for _, p := range append(sb.Sandbox.Read, sb.Sandbox.Write...) {
				if !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~/") {
					t.Errorf("%s: path %q is neither absolute nor ~/", f, p)
				}
			}
			switch v := sb.Sandbox.Network.(type) {
			case bool:
				if v {
					t.Errorf("%s: network: true suggested", f)
				}
			case []any:
				if len(v) != 1 || v[0] != 443 {
					t.Errorf("%s: network %v", f, v)
				}
			default:
				t.Errorf("%s: network %v", f, v)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d suggested sandboxes in the golden files", n)
	}
}
