package loader

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/fetch/oci"
)

// SkillsSpec is one entry of the skills section: a folder of Agent
// Skills (each a folder with a SKILL.md), or an OCI artifact whose tar
// layer holds such folders, that the gateway serves through the MCP
// skills extension as a source of its own (docs/apps-and-skills.md).
//
//	skills:
//	  - {path: skills/}
//	  - {path: /srv/team-skills, name: team, prefix: team}
//	  - {path: oci://ghcr.io/acme/skills:1.2, sha256: ..., verify: {key_file: acme.pub}}
type SkillsSpec struct {
	// Name names the source (metrics, logs, the status page, the lock
	// file); the folder's base name, or the artifact repository's, when
	// left out.
	Name string `koanf:"name"`
	// Path is the folder, relative to the config's folder, or an
	// oci://REGISTRY/REPO:TAG (or @sha256:DIGEST) artifact.
	Path string `koanf:"path"`
	// Prefix goes after skill:// in the URIs of its skills
	// (skill://PREFIX/NAME/SKILL.md); none when left out.
	Prefix string `koanf:"prefix"`
	// SHA256 pins an artifact's tar layer: the hex SHA-256 of its bytes
	// as stored, which is its digest (an artifact only).
	SHA256 string `koanf:"sha256"`
	// Verify, when set, is the Sigstore signature the artifact must
	// carry, as a plugin's (an artifact only).
	Verify *VerifySpec `koanf:"verify"`

	Key string `koanf:"-"` // where it is declared: skills[0]
	Dir string `koanf:"-"` // Path resolved; "" for an artifact
}

// Artifact reports whether s is an oci:// artifact rather than a folder.
func (s SkillsSpec) Artifact() bool { return fetch.Scheme(s.Path) == "oci" }

// fetchSpec is what the fetcher of s's artifact is given.
func (s SkillsSpec) fetchSpec() fetch.Spec {
	p := PluginSpec{Verify: s.Verify}
	return fetch.Spec{What: "skills", Plugin: s.Name, Key: s.Key, Source: s.Path, SHA256: s.SHA256, Verify: p.fetchVerifier()}
}

// FetchSkills gets the artifact spec names (spec.Artifact()) with its
// tar layer's files: pinned by spec.SHA256, checked against spec.Verify,
// cached beside the compiled code like an oci:// plugin's module.
func (c *Compiler) FetchSkills(ctx context.Context, spec SkillsSpec) (*oci.Layer, error) {
	return c.layers.FetchLayer(ctx, spec.fetchSpec())
}

// normalizeArtifact checks an oci:// entry: its reference, its pin and
// its verify section; it is named by its repository's base name.
func (s *SkillsSpec) normalizeArtifact(env *config.Env) {
	ref, err := oci.Parse(s.Path)
	if err != nil {
		env.Bad(s.Key+".path", "%q: %v", s.Path, err)
	} else if s.Name == "" {
		s.Name = path.Base(ref.Context().RepositoryStr())
	}
	if s.SHA256 != "" {
		s.SHA256 = strings.ToLower(strings.TrimPrefix(s.SHA256, "sha256:"))
		if len(s.SHA256) != 64 || strings.Trim(s.SHA256, "0123456789abcdef") != "" {
			env.Bad(s.Key+".sha256", "%q is not a hex SHA-256 (64 hex digits): pin the digest of the artifact's tar layer", s.SHA256)
		}
	}
	if s.Verify != nil {
		v := *s.Verify // a copy: reloads share nothing
		v.normalize(&PluginSpec{Key: s.Key, Path: s.Path}, true, env)
		s.Verify = &v
	}
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
			env.Bad(s.Key+".path", "missing: the folder holding the skills (each a folder with a SKILL.md), or an oci:// artifact of them")
			continue
		case s.Artifact():
			if s.normalizeArtifact(env); s.Name == "" {
				continue // the reference, which names it, is refused
			}
		case strings.Contains(s.Path, "://"):
			env.Bad(s.Key+".path", "%q: skills are read from a local folder or an oci://REGISTRY/REPO:TAG artifact", s.Path)
			continue
		default:
			if s.SHA256 != "" {
				env.Bad(s.Key+".sha256", "pins an oci:// artifact's layer; a folder is read as it is on disk (remove sha256)")
			}
			if s.Verify != nil {
				env.Bad(s.Key+".verify", "checks an oci:// artifact's signature; a folder is read as it is on disk (remove verify)")
			}
			s.Dir = env.Path(s.Path)
			if s.Name == "" {
				s.Name = filepath.Base(s.Dir)
			}
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
		if s.Dir == "" {
			continue // an artifact: fetched when the gateway is built
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
