package importer

import (
	"os"
	"strings"
	"testing"
)

func docsResult(t *testing.T) []*Result {
	t.Helper()
	src, err := os.ReadFile("testdata/claude/upstreams-docs.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Parse("claude_desktop_config.json", src, FormatAuto, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs := []*Result{r}
	AssignNames(rs, nil)
	return rs
}

const mine = `# my gateway: keep this
server:
  transports:
    http: {enabled: true, listen: "127.0.0.1:8080"} # the listener
plugins:
  - name: calculator # the example
    path: plugins/calculator.wasm
# the upstreams I run
upstreams:
  # a remote one
  - name: tickets
    url: https://tickets.example.com/mcp # the team's
# after everything
`

func TestMergeKeepsComments(t *testing.T) {
	out, err := Merge([]byte(mine), docsResult(t), false)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{"# my gateway: keep this", "# the listener", "# the example", "# the upstreams I run", "# a remote one", "# the team's", "# after everything",
		"- name: tickets", "- name: filesystem", "- name: github", "- name: remote", "bearer_env: REMOTE_TOKEN"} {
		if !strings.Contains(got, want) {
			t.Errorf("the merged file lacks %q:\n%s", want, got)
		}
	}
	taken, err := TakenNames(out)
	if err != nil {
		t.Fatal(err)
	}
	for name, where := range map[string]string{"calculator": "plugins[0]", "tickets": "upstreams[0]", "filesystem": "upstreams[1]", "github": "upstreams[2]", "remote": "upstreams[3]"} {
		if taken[name] != where {
			t.Errorf("%s is at %q, want %s:\n%s", name, taken[name], where, got)
		}
	}
	if strings.Index(got, "# after everything") < strings.Index(got, "- name: remote") {
		t.Errorf("the file's last comment moved above the new upstreams:\n%s", got)
	}
}

func TestMergeRefusesATakenName(t *testing.T) {
	rs := docsResult(t)
	for _, tc := range []struct{ file, replaceErr string }{
		{"upstreams:\n  - name: github\n    url: https://gh.example.com/mcp\n", ""},
		{"plugins:\n  - name: github\n    path: gh.wasm\n", "replaces upstreams only"},
		{"relay:\n  sites:\n    - name: remote\n", "replaces upstreams only"},
	} {
		_, err := Merge([]byte(tc.file), rs, false)
		if err == nil || !strings.Contains(err.Error(), "already names") || !strings.Contains(err.Error(), "--replace") {
			t.Errorf("%q: err %v, want a refusal naming the entry and --replace", tc.file, err)
		}
		out, err := Merge([]byte(tc.file), rs, true)
		switch {
		case tc.replaceErr == "" && err != nil:
			t.Errorf("%q with replace: %v", tc.file, err)
		case tc.replaceErr != "" && (err == nil || !strings.Contains(err.Error(), tc.replaceErr)):
			t.Errorf("%q with replace: err %v, want %q", tc.file, err, tc.replaceErr)
		case tc.replaceErr == "":
			if strings.Contains(string(out), "gh.example.com") || strings.Count(string(out), "name: github") != 1 {
				t.Errorf("replace kept the old upstream:\n%s", out)
			}
		}
	}
}

func TestMergeShapes(t *testing.T) {
	rs := docsResult(t)
	for _, file := range []string{"", "plugins: []\n", "upstreams: []\n", "upstreams:\n", "# only a comment\n"} {
		out, err := Merge([]byte(file), rs, false)
		if err != nil {
			t.Errorf("%q: %v", file, err)
			continue
		}
		taken, _ := TakenNames(out)
		if taken["remote"] != "upstreams[2]" {
			t.Errorf("%q: merged into\n%s", file, out)
		}
	}
	for file, want := range map[string]string{
		"upstreams: {a: 1}\n": "not a list",
		"- a\n":               "want a mapping",
		"a: [\n":              "not YAML",
	} {
		if _, err := Merge([]byte(file), rs, false); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", file, err, want)
		}
	}
}
