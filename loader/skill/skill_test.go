package skill

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

func TestParseFrontMatter(t *testing.T) {
	fm, err := ParseFrontMatter([]byte("---\r\nname: git-workflow\ndescription: Follow the team's Git rules\nlicense: Apache-2.0\nmetadata:\n  version: \"2\"\n---\n# Git\n"))
	if err != nil {
		t.Fatal(err)
	}
	if fm.Name != "git-workflow" || fm.Description != "Follow the team's Git rules" {
		t.Fatalf("got %+v", fm)
	}
	var all map[string]any
	if err := json.Unmarshal(fm.JSON, &all); err != nil {
		t.Fatal(err)
	}
	if all["license"] != "Apache-2.0" || all["metadata"].(map[string]any)["version"] != "2" {
		t.Fatalf("front matter not passed through: %s", fm.JSON)
	}
}

func TestParseFrontMatterErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"# no header\n", "no front matter"},
		{"", "no front matter"},
		{"---\nname: x\n", "not closed"},
		{"---\n- a\n---\n", "not a YAML mapping"},
		{"---\ndescription: d\n---\n", "name missing"},
		{"---\nname: Bad_Name\ndescription: d\n---\n", "lowercase letters"},
		{"---\nname: -x\ndescription: d\n---\n", "hyphen"},
		{"---\nname: a--b\ndescription: d\n---\n", "two hyphens"},
		{"---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\n", "longer than 64"},
		{"---\nname: ok\n---\n", "description missing"},
		{"---\nname: ok\ndescription: \"  \"\n---\n", "description missing"},
		{"---\nname: ok\ndescription: " + strings.Repeat("d", 1025) + "\n---\n", "more than 1024"},
		{"---\nname: ok\ndescription: d\n? [a]\n: b\n---\n", "cannot unmarshal"},
		{"---\nname: [\n---\n", "front matter"},
	} {
		_, err := ParseFrontMatter([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error with %q", c.in, err, c.want)
		}
	}
}

func TestRead(t *testing.T) {
	fsys := fstest.MapFS{
		"git-workflow/SKILL.md":             {Data: []byte("---\nname: git-workflow\ndescription: Git\n---\nUse refs/GUIDE.md\n")},
		"git-workflow/refs/GUIDE.md":        {Data: []byte("guide")},
		"git-workflow/.DS_Store":            {Data: []byte("junk")},
		"acme/billing/refunds/SKILL.md":     {Data: []byte("---\nname: refunds\ndescription: Refunds\n---\n")},
		"acme/billing/refunds/a/b/email.md": {Data: []byte("mail")},
		"broken/SKILL.md":                   {Data: []byte("no header")},
		"mismatch/SKILL.md":                 {Data: []byte("---\nname: other\ndescription: d\n---\n")},
	}
	skills, errs := Read(fsys, "skills", "conf/skills")
	if len(skills) != 2 {
		t.Fatalf("got %d skills, want 2: %+v", len(skills), skills)
	}
	if s := skills[0]; s.Path != "acme/billing/refunds" || s.Name() != "refunds" || len(s.Files) != 2 || s.Files[0].Path != "SKILL.md" || s.Files[1].Path != "a/b/email.md" {
		t.Fatalf("refunds: %+v", s)
	}
	if s := skills[1]; s.Path != "git-workflow" || len(s.Files) != 2 || s.Files[1].Path != "refs/GUIDE.md" || s.Files[1].Digest != Digest([]byte("guide")) {
		t.Fatalf("git-workflow: %+v", s)
	}
	if len(errs) != 2 {
		t.Fatalf("errors: %v", errs)
	}
	var p *Problem
	if !errors.As(errs[0], &p) || p.File != "conf/skills/broken/SKILL.md" || !strings.Contains(errs[0].Error(), "no front matter") {
		t.Errorf("broken: %v", errs[0])
	}
	if !strings.Contains(errs[1].Error(), "conf/skills/mismatch/SKILL.md") || !strings.Contains(errs[1].Error(), "differs from its folder") {
		t.Errorf("mismatch: %v", errs[1])
	}
}

func TestReadRootSkill(t *testing.T) {
	fsys := fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: solo\ndescription: d\n---\n")}}
	skills, errs := Read(fsys, "solo", "solo")
	if len(errs) != 0 || len(skills) != 1 || skills[0].Path != "solo" {
		t.Fatalf("%+v %v", skills, errs)
	}
}

func TestReadLimits(t *testing.T) {
	fsys := fstest.MapFS{"big/SKILL.md": {Data: []byte("---\nname: big\ndescription: d\n---\n")}}
	for i := range MaxFiles {
		fsys[fmt.Sprintf("big/f/%d.txt", i)] = &fstest.MapFile{Data: []byte{byte(i)}}
	}
	_, errs := Read(fsys, "r", "r")
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "more than 512 files") {
		t.Fatalf("%v", errs)
	}
}

func FuzzParseFrontMatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: b\n---\nbody",
		"---\r\nname: git-workflow\r\ndescription: x\r\nmetadata: {a: 1}\r\n---\r\n",
		"---\nname: a\ndescription: b\nlist: [1, 2.5, .inf]\n---\n",
		"\xef\xbb\xbf---\n---\n",
		"---\n&a [*a]\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fm, err := ParseFrontMatter(data)
		if err != nil {
			return
		}
		if CheckName(fm.Name) != nil || fm.Description == "" {
			t.Fatalf("accepted %+v", fm)
		}
		var back map[string]any
		if err := json.Unmarshal(fm.JSON, &back); err != nil || back["name"] != fm.Name || back["description"] != fm.Description {
			t.Fatalf("front matter JSON %s: %v", fm.JSON, err)
		}
	})
}
