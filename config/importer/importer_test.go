package importer

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

// TestGolden imports every file of testdata and compares the YAML with
// testdata/golden. Each result must parse as YAML, hold no secret of its
// input, and give every server a valid, unique name.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*/*.json")
	if err != nil || len(files) < 15 {
		t.Fatalf("testdata: %v, %d files", err, len(files))
	}
	for _, f := range files {
		dir := filepath.Base(filepath.Dir(f))
		if dir == "fuzz" || dir == "golden" {
			continue
		}
		name := dir + "-" + strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Parse(filepath.ToSlash(f), data, FormatAuto, Options{Home: "/home/user"})
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]Format{"claude": FormatClaude, "vscode": FormatVSCode, "cursor": FormatCursor, "serverjson": FormatServerJSON}[dir]; r.Format != want {
				t.Errorf("detected %s, want %s", r.Format, want)
			}
			AssignNames([]*Result{r}, nil)
			if !ValidNames([]*Result{r}) {
				t.Errorf("invalid names")
			}
			var out bytes.Buffer
			if err := Render(&out, []*Result{r}); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Upstreams []map[string]any `yaml:"upstreams"`
			}
			if err := yaml.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatalf("the output is not YAML: %v\n%s", err, out.String())
			}
			if len(doc.Upstreams) != len(r.Servers) {
				t.Errorf("the YAML has %d upstreams, want %d", len(doc.Upstreams), len(r.Servers))
			}
			for _, secret := range []string{"ghp_16C7e42F292c6912E7710c838347Ae178B4a", "xoxb-your-bot-token", "YOUR_API_KEY_HERE", "<token>"} {
				if strings.Contains(out.String(), secret) {
					t.Errorf("the output holds the secret %q:\n%s", secret, out.String())
				}
			}
			golden := filepath.Join("testdata", "golden", name+".yaml")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if out.String() != string(want) {
				t.Errorf("%s differs (go test -update rewrites it):\ngot:\n%s\nwant:\n%s", golden, out.String(), want)
			}
		})
	}
}
