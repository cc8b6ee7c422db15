package loader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmgate/wasmgate/config"
)

// SkillsSpec is one entry of the skills section: a folder of Agent
// Skills (each a folder with a SKILL.md) that the gateway serves through
// the MCP skills extension as a source of its own (docs/apps-and-skills.md).
//
//	skills:
//	  - {path: skills/}
//	  - {path: /srv/team-skills, name: team, prefix: team}
type SkillsSpec struct {
	// Name names the source (metrics, logs, the status page, the lock
	// file); the folder's base name when left out.
	Name string `koanf:"name"`
	// Path is the folder, relative to the config's folder.
	Path string `koanf:"path"`
	// Prefix goes after skill:// in the URIs of its skills
	// (skill://PREFIX/NAME/SKILL.md); none when left out.
	Prefix string `koanf:"prefix"`

	Key string `koanf:"-"` // where it is declared: skills[0]
	Dir string `koanf:"-"` // Path resolved
}

// Skills is the skills section.
type Skills []SkillsSpec

var _ config.Section = (*Skills)(nil)

// Normalize resolves each folder, names it and watches it: saving a
// SKILL.md, adding or removing a skill reloads.
func (ss *Skills) Normalize(key string, env *config.Env) {
	names := map[string]string{}
	for i := range *ss {
		s := &(*ss)[i]
		s.Key = fmt.Sprintf("%s[%d]", key, i)
		switch {
		case s.Path == "":
			env.Bad(s.Key+".path", "missing: the folder holding the skills (each a folder with a SKILL.md)")
			continue
		case strings.Contains(s.Path, "://"):
			env.Bad(s.Key+".path", "%q: skills are read from a local folder; OCI artifacts of skills are not supported yet", s.Path)
			continue
		}
		s.Dir = env.Path(s.Path)
		if s.Name == "" {
			s.Name = filepath.Base(s.Dir)
		}
		if !config.ValidName(s.Name) {
			env.Bad(s.Key+".name", "%q: use letters, digits, '_', '-' or '.' (1-64 characters)", s.Name)
		}
		if prev, ok := names[s.Name]; ok {
			env.Bad(s.Key+".name", "%q is also the name of %s; give each skills folder its own name", s.Name, prev)
		}
		names[s.Name] = s.Key
		if s.Prefix != "" && !validSkillPrefix(s.Prefix) {
			env.Bad(s.Key+".prefix", "%q: use lowercase letters, digits, '-', '_' or '.' (it becomes the first segment of skill:// URIs)", s.Prefix)
		}
		fi, err := os.Stat(s.Dir)
		switch {
		case err != nil:
			env.Bad(s.Key+".path", "%q: %v", s.Path, err)
		case !fi.IsDir():
			env.Bad(s.Key+".path", "%q is not a folder", s.Path)
		}
		env.WatchTree(s.Dir)
	}
}

// validSkillPrefix reports whether p can be a skill URI's authority.
func validSkillPrefix(p string) bool {
	if len(p) > 64 {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// checkSkills refuses a skills folder named like another source.
func (c *Config) checkSkills(env *config.Env) {
	owners := c.sourceOwners()
	for _, u := range c.Upstreams {
		if _, ok := owners[u.Name]; !ok {
			owners[u.Name] = u.Key
		}
	}
	for _, s := range c.Skills {
		if prev, ok := owners[s.Name]; ok && s.Name != "" {
			env.Bad(s.Key+".name", "%q is also the name of %s; every source needs its own name (metrics, logs and the status page label it)", s.Name, prev)
		}
	}
}
