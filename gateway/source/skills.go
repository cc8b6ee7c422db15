package source

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/skill"
)

// Skill is a published skill (the skills extension,
// io.modelcontextprotocol/skills): its entry as clients see it, under its
// source's prefix. Its files are published resources of the same source.
type Skill struct {
	Src   Source
	Own   abi.Skill  // as the source describes it, with its own URIs
	URI   string     // the exposed URI of its SKILL.md
	Name  string     // its front matter's name
	Entry SkillEntry // what skills/list and skills/get answer
}

// SkillEntry is the extension's Skill: the URI of the SKILL.md, its front
// matter verbatim, and its files (their exposed URIs, digests and sizes)
// or "dynamic".
type SkillEntry struct {
	URI         string          `json:"uri"`
	FrontMatter json.RawMessage `json:"frontmatter"`
	Resources   any             `json:"resources"` // []abi.SkillFile or "dynamic"
}

// SkillURIs are the exposed SKILL.md URIs of x's skills, sorted.
func (x *Index) SkillURIs() []string { return slices.Sorted(maps.Keys(x.Skills)) }

// addSkills publishes src's skills. It returns the source's own URIs of
// the files of skills it does not publish (curated out by skills.exclude
// or include, or withheld by the gate): those files are not published as
// resources either, so a skill's text that changed is not readable until
// it is approved.
func (x *Index) addSkills(file string, src Source, where string, skills []abi.Skill,
	free func(kind, id string) (bool, error), take func(kind, id string), report func(error)) (hidden map[string]bool, errs []error) {
	hidden = map[string]bool{}
	hide := func(s abi.Skill) {
		hidden[s.URI] = true
		for _, f := range s.Files {
			hidden[f.URI] = true
		}
	}
	cur := curationOf(src)
	for _, s := range skills {
		name, err := checkSkill(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: skill %q: %w", file, where, s.URI, err))
			hide(s)
			continue
		}
		uri := ExposedURI(src.Prefix(), s.URI)
		if mine, err := free("skill", uri); mine || err != nil {
			if err != nil {
				report(err)
				hide(s)
			}
			continue
		}
		take("skill", uri) // curated out or withheld, it stays the source's
		if !cur.AllowsSkill(name) {
			hide(s)
			continue
		}
		e := SkillEntry{URI: uri, FrontMatter: s.FrontMatter, Resources: "dynamic"}
		if !s.Dynamic {
			files := make([]abi.SkillFile, len(s.Files))
			for i, f := range s.Files {
				files[i] = abi.SkillFile{URI: ExposedURI(src.Prefix(), f.URI), Digest: f.Digest, Size: f.Size}
			}
			e.Resources = files
		}
		if !x.admit(src, "skill", uri, e) {
			hide(s)
			continue
		}
		x.Skills[uri] = &Skill{Src: src, Own: s, URI: uri, Name: name, Entry: e}
	}
	return hidden, errs
}

// checkSkill checks what the extension asks of a skill's entry and
// returns its name: a SKILL.md URI whose last folder is the name, front
// matter with name and description, and (unless dynamic) a manifest
// within the extension's limits that lists the SKILL.md, each file under
// the skill's folder, once, with a well-formed digest.
func checkSkill(s abi.Skill) (string, error) {
	dir, ok := strings.CutSuffix(s.URI, "/"+skill.FileName)
	if !ok {
		return "", fmt.Errorf("uri does not end in /%s", skill.FileName)
	}
	var fm struct {
		Name        *string `json:"name"`
		Description *string `json:"description"`
	}
	if err := json.Unmarshal(s.FrontMatter, &fm); err != nil || fm.Name == nil || fm.Description == nil {
		return "", fmt.Errorf("frontmatter is not an object with the strings name and description")
	}
	name := *fm.Name
	if err := skill.CheckName(name); err != nil {
		return "", err
	}
	if last := dir[strings.LastIndexAny(dir, "/")+1:]; last != name {
		return "", fmt.Errorf("the last segment of its path, %q, is not its name %q", last, name)
	}
	if s.Dynamic {
		return name, nil
	}
	if len(s.Files) > skill.MaxFiles {
		return "", fmt.Errorf("%d files, more than the extension's %d", len(s.Files), skill.MaxFiles)
	}
	var total int64
	seen := map[string]bool{}
	for _, f := range s.Files {
		if seen[f.URI] {
			return "", fmt.Errorf("file %q listed twice", f.URI)
		}
		seen[f.URI] = true
		if !strings.HasPrefix(f.URI, dir+"/") {
			return "", fmt.Errorf("file %q is not in the skill's folder", f.URI)
		}
		if !validDigest(f.Digest) || f.Size < 0 {
			return "", fmt.Errorf("file %q: digest %q is not sha256: and 64 lowercase hex digits", f.URI, f.Digest)
		}
		total += f.Size
	}
	if !seen[s.URI] {
		return "", fmt.Errorf("its files do not list its %s", skill.FileName)
	}
	if total > skill.MaxBytes {
		return "", fmt.Errorf("files of %d bytes, more than the extension's %d", total, skill.MaxBytes)
	}
	return name, nil
}

func validDigest(d string) bool {
	hex, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for _, c := range hex {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
