// Package skillset serves the skills section: each folder of Agent Skills,
// or OCI artifact of them, is a source whose skills (the MCP skills extension) and their files
// (skill:// resources) the index publishes like any source's, under its
// prefix, through curation, policy and the lock file.
package skillset

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/component"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/internal/plural"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/fetch/oci"
	"github.com/wasmgate/wasmgate/loader/lockfile"
	"github.com/wasmgate/wasmgate/loader/skill"
	"github.com/wasmgate/wasmgate/wire"
)

// Scheme is the URI scheme of the skills a folder serves.
const Scheme = "skill://"

// readTimeout bounds a read (from memory: it never nears it).
const readTimeout = 5 * time.Second

// Source is one skills folder (or artifact) as it was read when its
// snapshot was built.
type Source struct {
	spec     loader.SkillsSpec
	sha256   string // an artifact's layer digest (hex); "" for a folder
	desc     abi.Descriptor
	files    map[string][]byte // by the source's own URI
	problems []string          // the skills left out, each naming its SKILL.md
}

var (
	_ source.Source          = (*Source)(nil)
	_ source.Kinded          = (*Source)(nil)
	_ source.ProblemReporter = (*Source)(nil)
	_ source.Pinner          = (*Source)(nil)
)

// Read reads the folder spec names. A skill that cannot be served (a
// SKILL.md without front matter, a bad name) is left out, reported by
// Problems; the others are served.
func Read(spec loader.SkillsSpec) *Source {
	skills, errs := skill.Read(os.DirFS(spec.Dir), path.Base(spec.Dir), spec.Path)
	s := newSource(spec, skills)
	for _, err := range errs {
		s.problems = append(s.problems, fmt.Sprintf("%s: skill left out: %v", spec.Key, err))
	}
	s.desc.Warnings = s.problems
	return s
}

// ReadLayer reads the skills of an artifact's layer, fetched for spec,
// as Read reads a folder's. A SKILL.md at the layer's root is the skill
// named by the folder the layer was packed from, else by the repository.
func ReadLayer(spec loader.SkillsSpec, l *oci.Layer) *Source {
	root := l.Root
	if root == "" {
		root = spec.Name
		if ref, err := oci.Parse(spec.Path); err == nil {
			root = path.Base(ref.Context().RepositoryStr())
		}
	}
	skills, errs := skill.Read(l, root, "")
	s := newSource(spec, skills)
	s.sha256 = l.SHA256
	for _, err := range errs {
		s.problems = append(s.problems, fmt.Sprintf("%s: skill left out: %s: %v", spec.Key, spec.Path, err))
	}
	s.desc.Warnings = s.problems
	return s
}

// newSource serves skills.
func newSource(spec loader.SkillsSpec, skills []skill.Skill) *Source {
	s := &Source{spec: spec, files: map[string][]byte{}}
	for _, sk := range skills {
		root := Scheme + sk.Path + "/"
		as := abi.Skill{URI: root + skill.FileName, FrontMatter: sk.FrontMatter.JSON}
		for _, f := range sk.Files {
			uri := root + f.Path
			size := int64(len(f.Data))
			r := wire.Resource{URI: uri, Name: f.Path, MimeType: skill.MIMEType(f.Path, f.Data), Size: &size}
			if f.Path == skill.FileName {
				r.Name, r.Description = sk.Name(), sk.FrontMatter.Description
			}
			s.desc.Resources = append(s.desc.Resources, abi.Resource{Resource: r})
			s.files[uri] = f.Data
			as.Files = append(as.Files, abi.SkillFile{URI: uri, Digest: f.Digest, Size: size})
		}
		s.desc.Skills = append(s.desc.Skills, as)
	}
	return s
}

func (s *Source) Name() string               { return s.spec.Name }
func (s *Source) Key() string                { return s.spec.Key }
func (s *Source) Prefix() string             { return s.spec.Prefix }
func (s *Source) Descriptor() abi.Descriptor { return s.desc }
func (s *Source) Timeout() time.Duration     { return readTimeout }

// Kind is "skills folder", or "skills artifact" for an oci:// one.
func (s *Source) Kind() string {
	if s.spec.Artifact() {
		return "skills artifact"
	}
	return "skills folder"
}

// Pins is what the lock file pins of the source beyond its skills: an
// artifact's layer digest, as a plugin's module digest, so a tag moved
// to other skills is handled per trust.on_change like a changed module.
func (s *Source) Pins() (*lockfile.Source, error) {
	return &lockfile.Source{Kind: s.Kind(), Declared: s.Key(), Module: s.sha256}, nil
}

// Problems are the skills left out, each naming its SKILL.md.
func (s *Source) Problems() []string { return s.problems }

// CallTool fails: a skills folder has no tools.
func (s *Source) CallTool(context.Context, string, json.RawMessage) (*mcp.CallToolResult, error) {
	return nil, &source.Failure{Kind: source.FailError, Msg: "a skills folder has no tools"}
}

// GetPrompt fails: a skills folder has no prompts.
func (s *Source) GetPrompt(context.Context, string, map[string]string) ([]mcp.PromptMessage, error) {
	return nil, &source.Failure{Kind: source.FailError, Msg: "a skills folder has no prompts"}
}

// ReadResource is a file of a skill, as it was read: text when it is
// UTF-8, else base64.
func (s *Source) ReadResource(_ context.Context, r abi.Resource, uri string, _ map[string]string) ([]mcp.ResourceContents, error) {
	data, ok := s.files[uri]
	if !ok {
		return nil, &source.Failure{Kind: source.FailError, Msg: fmt.Sprintf("no file %s in skills folder %q", uri, s.spec.Name)}
	}
	if utf8.Valid(data) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: r.MimeType, Text: string(data)}}, nil
	}
	return []mcp.ResourceContents{mcp.BlobResourceContents{URI: uri, MIMEType: r.MimeType, Blob: base64.StdEncoding.EncodeToString(data)}}, nil
}

// Fetcher gets the skills artifacts of the skills section
// (loader.Compiler does).
type Fetcher interface {
	FetchSkills(ctx context.Context, spec loader.SkillsSpec) (*oci.Layer, error)
}

// Component provisions the sources of the skills section.
type Component struct {
	log     *slog.Logger
	fetch   Fetcher
	sources []*Source
}

var (
	_ component.Component      = (*Component)(nil)
	_ component.SourceProvider = (*Component)(nil)
	_ component.Applier        = (*Component)(nil)
)

// New is an empty component; log receives the skills left out, fetch
// gets the artifacts.
func New(log *slog.Logger, fetch Fetcher) *Component { return &Component{log: log, fetch: fetch} }

func (c *Component) Name() string { return "skills" }

// Provision reads every folder and fetches every artifact of cfg's
// skills section. An artifact that cannot be fetched (unreachable, its
// pin or signature refused, its layer malformed) fails the Provision,
// so the serving snapshot keeps serving.
func (c *Component) Provision(ctx context.Context, cfg *loader.Config) error {
	c.sources = nil
	var errs []error
	for _, spec := range cfg.Skills {
		if !spec.Artifact() {
			c.sources = append(c.sources, Read(spec))
			continue
		}
		if c.fetch == nil {
			errs = append(errs, fmt.Errorf("%s: %s: no fetcher of skills artifacts", cfg.File, spec.Key))
			continue
		}
		l, err := c.fetch.FetchSkills(ctx, spec)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", cfg.File, err))
			continue
		}
		c.sources = append(c.sources, ReadLayer(spec, l))
	}
	return errors.Join(errs...)
}

// Apply logs what each folder serves and the skills it left out, once
// its snapshot serves.
func (c *Component) Apply(context.Context) {
	for _, s := range c.sources {
		if s.spec.Artifact() {
			c.log.Info("skills artifact", "source", s.Name(), "key", s.Key(), "artifact", s.spec.Path, "sha256", s.sha256, "skills", plural.N(len(s.desc.Skills), "skill"))
		} else {
			c.log.Info("skills folder", "source", s.Name(), "key", s.Key(), "dir", s.spec.Dir, "skills", plural.N(len(s.desc.Skills), "skill"))
		}
		for _, p := range s.problems {
			c.log.Warn("skill left out", "source", s.Name(), "problem", p)
		}
	}
}

// Sources are the folders' sources, in config order.
func (c *Component) Sources() []source.Source {
	out := make([]source.Source, len(c.sources))
	for i, s := range c.sources {
		out[i] = s
	}
	return out
}

func (c *Component) Cleanup(context.Context) {}

// Report is one line per folder for `wasmgate validate`: the skills it
// serves and those it leaves out.
func (c *Component) Report() []string {
	var out []string
	for _, s := range c.sources {
		var names []string
		for _, sk := range s.desc.Skills {
			names = append(names, strings.TrimSuffix(strings.TrimPrefix(sk.URI, Scheme), "/"+skill.FileName))
		}
		line := fmt.Sprintf("%s %s (%s): %s", s.Kind(), s.Name(), s.Key(), plural.N(len(names), "skill"))
		if len(names) > 0 {
			line += ": " + strings.Join(names, ", ")
		}
		for _, p := range s.problems {
			line += "; warning: " + p
		}
		out = append(out, line)
	}
	return out
}
