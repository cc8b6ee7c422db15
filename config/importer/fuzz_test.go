package importer

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/wasmgate/wasmgate/config"
)

// addSeeds adds the testdata files of dir as seeds (the corpus under
// testdata/fuzz holds more).
func addSeeds(f *testing.F, dir string) {
	files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// checkImport parses data as format; whatever parses must render to YAML
// that decodes, with valid unique names, and merge into a gateway.yaml
// whose upstreams then hold every server.
func checkImport(t *testing.T, data []byte, format Format) {
	r, err := Parse("fuzz.json", data, format, Options{Home: "/home/user"})
	if err != nil {
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("a multi-line error: %q", err)
		}
		return
	}
	rs := []*Result{r}
	AssignNames(rs, nil)
	seen := map[string]bool{}
	for _, s := range r.Servers {
		if !config.ValidName(s.Name) || seen[s.Name] {
			t.Fatalf("name %q: invalid or repeated", s.Name)
		}
		seen[s.Name] = true
		if (len(s.Command) > 0) == (s.URL != "") {
			t.Fatalf("server %q: want a command or a url", s.Name)
		}
	}
	var out bytes.Buffer
	if err := Render(&out, rs); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Upstreams []struct {
			Name    string   `yaml:"name"`
			Command []string `yaml:"command"`
			URL     string   `yaml:"url"`
		} `yaml:"upstreams"`
	}
	if err := yaml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("the output is not YAML: %v\n%s", err, out.String())
	}
	if len(doc.Upstreams) != len(r.Servers) {
		t.Fatalf("%d upstreams in the YAML, %d servers:\n%s", len(doc.Upstreams), len(r.Servers), out.String())
	}
	for i, u := range doc.Upstreams {
		s := r.Servers[i]
		if u.Name != s.Name || u.URL != s.URL || strings.Join(u.Command, "\x00") != strings.Join(s.Command, "\x00") {
			t.Fatalf("upstream %d reads back as %+v, want %q %q %q", i, u, s.Name, s.Command, s.URL)
		}
	}
	if len(r.Servers) == 0 {
		return
	}
	merged, err := Merge([]byte("# mine\nplugins: []\n"), rs, false)
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	taken, err := TakenNames(merged)
	if err != nil {
		t.Fatalf("the merged file: %v\n%s", err, merged)
	}
	for _, s := range r.Servers {
		if !strings.HasPrefix(taken[s.Name], "upstreams[") {
			t.Fatalf("the merged file lacks %q:\n%s", s.Name, merged)
		}
	}
	if !bytes.HasPrefix(merged, []byte("# mine\n")) {
		t.Fatalf("the merge lost the file's comment:\n%s", merged)
	}
}

func FuzzParseClaude(f *testing.F) {
	addSeeds(f, "claude")
	f.Fuzz(func(t *testing.T, data []byte) { checkImport(t, data, FormatClaude) })
}

func FuzzParseVSCode(f *testing.F) {
	addSeeds(f, "vscode")
	f.Fuzz(func(t *testing.T, data []byte) { checkImport(t, data, FormatVSCode) })
}

func FuzzParseCursor(f *testing.F) {
	addSeeds(f, "cursor")
	f.Fuzz(func(t *testing.T, data []byte) { checkImport(t, data, FormatCursor) })
}

func FuzzParseServerJSON(f *testing.F) {
	addSeeds(f, "serverjson")
	f.Fuzz(func(t *testing.T, data []byte) { checkImport(t, data, FormatServerJSON) })
}

func FuzzParseAuto(f *testing.F) {
	for _, dir := range []string{"claude", "vscode", "cursor", "serverjson"} {
		addSeeds(f, dir)
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkImport(t, data, FormatAuto) })
}

// FuzzJSONC: plain JSON means the same after stripJSONC, and whatever
// stripJSONC accepts is never longer than its input.
func FuzzJSONC(f *testing.F) {
	addSeeds(f, "vscode")
	f.Add([]byte(`{"a": "// not a comment", "b": [1, 2, ], /* c */ "d": "/* nor this */",}`))
	f.Add([]byte(`{"a": "\"//\\"} // end`))
	f.Fuzz(func(t *testing.T, data []byte) {
		plain, err := stripJSONC(data)
		if err != nil {
			return
		}
		if len(plain) > len(data) {
			t.Fatalf("stripped %d bytes into %d", len(data), len(plain))
		}
		var want, got any
		if json.Unmarshal(data, &want) != nil {
			return
		}
		if err := json.Unmarshal(plain, &got); err != nil {
			t.Fatalf("valid JSON %q became invalid %q: %v", data, plain, err)
		}
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if !bytes.Equal(a, b) {
			t.Fatalf("valid JSON %q changed meaning: %s, then %s", data, a, b)
		}
	})
}

// FuzzMerge merges a fixed import into any gateway.yaml: an error or a
// file that parses, keeps the other names and holds the new upstream.
func FuzzMerge(f *testing.F) {
	f.Add([]byte("plugins: []\n"))
	f.Add([]byte("# c\nupstreams: []\n"))
	f.Add([]byte("upstreams:\n  - name: a\n    url: https://a.example.com/mcp # x\n"))
	f.Add([]byte("relay:\n  sites:\n    - name: remote\n"))
	f.Add([]byte(""))
	src, _ := os.ReadFile("testdata/claude/upstreams-docs.json")
	r, err := Parse("c.json", src, FormatClaude, Options{})
	if err != nil {
		f.Fatal(err)
	}
	rs := []*Result{r}
	AssignNames(rs, nil)
	f.Fuzz(func(t *testing.T, gw []byte) {
		before, err := TakenNames(gw)
		out, merr := Merge(gw, rs, true)
		if err != nil {
			if merr == nil {
				t.Fatalf("TakenNames refused the file (%v), Merge did not", err)
			}
			return
		}
		if merr != nil {
			return
		}
		after, err := TakenNames(out)
		if err != nil {
			t.Fatalf("the merged file does not parse: %v\n%s", err, out)
		}
		for name := range before {
			if _, ok := after[name]; !ok {
				t.Fatalf("the merge lost %q:\n%s", name, out)
			}
		}
		for _, s := range r.Servers {
			if !strings.HasPrefix(after[s.Name], "upstreams[") {
				t.Fatalf("the merged file lacks upstream %q:\n%s", s.Name, out)
			}
		}
	})
}
