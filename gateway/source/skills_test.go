package source

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// skilled is a fake source with a prefix and a curation.
type skilled struct {
	fake
	prefix string
	cur    *config.Curation
}

func (s *skilled) Prefix() string             { return s.prefix }
func (s *skilled) Curation() *config.Curation { return s.cur }

const d0 = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// skillDesc describes skills named names, each a SKILL.md and one file.
func skillDesc(names ...string) abi.Descriptor {
	var d abi.Descriptor
	for _, n := range names {
		md, ref := "skill://"+n+"/SKILL.md", "skill://"+n+"/ref.md"
		d.Resources = append(d.Resources, abi.Resource{Resource: wire.Resource{URI: md, Name: n}}, abi.Resource{Resource: wire.Resource{URI: ref, Name: "ref.md"}})
		d.Skills = append(d.Skills, abi.Skill{URI: md, FrontMatter: json.RawMessage(`{"name":"` + n + `","description":"d"}`),
			Files: []abi.SkillFile{{URI: md, Digest: d0, Size: 1}, {URI: ref, Digest: d0, Size: 2}}})
	}
	return d
}

// TestSkillsPrefixCurationGate: skills are published under the prefix
// (their manifests too); one curated out or withheld by the gate is not
// published and neither are its files, which stay claimed; the selection
// takes a skill with its SKILL.md.
func TestSkillsPrefixCurationGate(t *testing.T) {
	src := &skilled{fake: fake{name: "docs", d: skillDesc("pdf", "git", "secret", "held")}, prefix: "docs",
		cur: &config.Curation{Skills: config.ToolFilter{Exclude: []string{"sec*"}}}}
	x := NewIndex()
	x.Gate = denyGate{"skill://docs/held/SKILL.md": true}
	if errs := x.Add("f", src); len(errs) != 0 {
		t.Fatal(errs)
	}
	if got := strings.Join(x.SkillURIs(), " "); got != "skill://docs/git/SKILL.md skill://docs/pdf/SKILL.md" {
		t.Fatalf("skills %s", got)
	}
	files := x.Skills["skill://docs/pdf/SKILL.md"].Entry.Resources.([]abi.SkillFile)
	if files[1].URI != "skill://docs/pdf/ref.md" {
		t.Errorf("manifest not prefixed: %+v", files)
	}
	for _, u := range []string{"skill://docs/secret/SKILL.md", "skill://docs/secret/ref.md", "skill://docs/held/ref.md"} {
		if _, ok := x.Resources[u]; ok {
			t.Errorf("%s is published: its skill is not", u)
		}
	}
	if _, ok := x.Resources["skill://docs/pdf/ref.md"]; !ok {
		t.Errorf("a published skill's file is not a resource")
	}
	other := &skilled{fake: fake{name: "other", d: skillDesc("secret")}, prefix: "docs"}
	if errs := x.Add("f", other); len(errs) == 0 {
		t.Errorf("another source took a URI of a skill curated out")
	}
	v := x.Select(sel{resource: func(u string) bool { return !strings.HasPrefix(u, "skill://docs/git/") }})
	if len(v.Skills) != 1 || v.Skills["skill://docs/pdf/SKILL.md"] == nil {
		t.Errorf("selection: %v", v.SkillURIs())
	}
}

type sel struct{ resource func(string) bool }

func (s sel) Source(string) bool     { return true }
func (s sel) Tool(string) bool       { return true }
func (s sel) Resource(u string) bool { return s.resource(u) }
func (s sel) Prompt(string) bool     { return true }

// TestSkillChecks: entries the extension calls invalid are refused,
// naming the skill, and their files not published.
func TestSkillChecks(t *testing.T) {
	ok := skillDesc("pdf").Skills[0]
	for _, c := range []struct {
		name string
		edit func(s *abi.Skill)
		want string
	}{
		{"not SKILL.md", func(s *abi.Skill) { s.URI = "skill://pdf/README.md" }, "does not end in /SKILL.md"},
		{"no description", func(s *abi.Skill) { s.FrontMatter = json.RawMessage(`{"name":"pdf"}`) }, "name and description"},
		{"bad name", func(s *abi.Skill) { s.FrontMatter = json.RawMessage(`{"name":"PDF","description":"d"}`) }, "lowercase"},
		{"name not folder", func(s *abi.Skill) { s.FrontMatter = json.RawMessage(`{"name":"other","description":"d"}`) }, "is not its name"},
		{"outside", func(s *abi.Skill) { s.Files = append(s.Files, abi.SkillFile{URI: "skill://x/a", Digest: d0}) }, "not in the skill's folder"},
		{"twice", func(s *abi.Skill) { s.Files = append(s.Files, s.Files[1]) }, "listed twice"},
		{"no SKILL.md", func(s *abi.Skill) { s.Files = s.Files[1:] }, "do not list its SKILL.md"},
		{"digest", func(s *abi.Skill) { s.Files[1].Digest = "md5:00" }, "digest"},
		{"too big", func(s *abi.Skill) { s.Files[1].Size = 17 << 20 }, "more than the extension's"},
	} {
		s := ok
		s.Files = append([]abi.SkillFile(nil), ok.Files...)
		c.edit(&s)
		d := skillDesc()
		d.Skills = []abi.Skill{s}
		d.Resources = skillDesc("pdf").Resources
		x := NewIndex()
		errs := x.Add("f", &skilled{fake: fake{name: "u", d: d}})
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want) || len(x.Skills) != 0 {
			t.Errorf("%s: %v, want one error with %q", c.name, errs, c.want)
		}
		if _, ok := x.Resources["skill://pdf/ref.md"]; ok {
			t.Errorf("%s: a refused skill's file is published", c.name)
		}
	}
}
