// Package skill reads Agent Skills: folders holding a SKILL.md file whose
// YAML front matter names and describes the skill, and the files beside
// it. What it reads is what the gateway serves through the MCP skills
// extension (io.modelcontextprotocol/skills, SEP-2640): each skill's
// entry (its front matter and a manifest of its files with their SHA-256
// digests) and each file as a skill:// resource.
package skill

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// The limits of one skill the extension fixes: every conforming host
// loads a skill within them, so the gateway serves none beyond.
const (
	MaxFiles = 512      // files per skill, SKILL.md included
	MaxBytes = 16 << 20 // total size of a skill's files
)

// The Agent Skills format's limits on the front matter's fields.
const (
	MaxNameLen        = 64
	MaxDescriptionLen = 1024
	// MaxFrontMatter bounds the front matter read (a SKILL.md's header
	// is a few lines; this stops a huge one early).
	MaxFrontMatter = 64 << 10
)

// FileName is the name of the file that makes a folder a skill.
const FileName = "SKILL.md"

// FrontMatter is a SKILL.md's YAML front matter: Name and Description,
// which the format requires, and every field as written (JSON), which the
// extension passes through verbatim.
type FrontMatter struct {
	Name        string
	Description string
	JSON        json.RawMessage // the whole front matter as a JSON object
}

// ParseFrontMatter reads the front matter at the start of a SKILL.md: a
// line "---", YAML (a mapping with string fields name and description),
// and a line "---". It returns an error a person can act on: the file's
// name is the caller's to add.
func ParseFrontMatter(data []byte) (FrontMatter, error) {
	var fm FrontMatter
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte order mark
	first, rest, ok := cutLine(data)
	if !ok || strings.TrimRight(string(first), " \t") != "---" {
		return fm, errors.New("no front matter: the file must begin with a line \"---\", then YAML with name and description, then a line \"---\"")
	}
	var header []byte
	closed := false
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = cutLine(rest)
		if strings.TrimRight(string(line), " \t") == "---" {
			closed = true
			break
		}
		header = append(header, line...)
		header = append(header, '\n')
		if len(header) > MaxFrontMatter {
			return fm, fmt.Errorf("front matter longer than %d bytes", MaxFrontMatter)
		}
	}
	if !closed {
		return fm, errors.New("front matter not closed: no line \"---\" after it")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(header, &doc); err != nil {
		return fm, fmt.Errorf("front matter: %w", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return fm, errors.New("front matter is not a YAML mapping (name: ..., description: ...)")
	}
	var fields map[string]any
	if err := doc.Content[0].Decode(&fields); err != nil {
		return fm, fmt.Errorf("front matter: %w", err)
	}
	js, err := toJSON(fields)
	if err != nil {
		return fm, fmt.Errorf("front matter: %w", err)
	}
	raw, err := json.Marshal(js)
	if err != nil {
		return fm, fmt.Errorf("front matter: %w", err)
	}
	fm.JSON = raw
	name, ok := fields["name"].(string)
	if !ok {
		return fm, errors.New("front matter: name missing or not a string")
	}
	if err := CheckName(name); err != nil {
		return fm, fmt.Errorf("front matter: %w", err)
	}
	desc, ok := fields["description"].(string)
	if !ok || strings.TrimSpace(desc) == "" {
		return fm, errors.New("front matter: description missing, empty or not a string")
	}
	if n := utf8.RuneCountInString(desc); n > MaxDescriptionLen {
		return fm, fmt.Errorf("front matter: description has %d characters, more than %d", n, MaxDescriptionLen)
	}
	fm.Name, fm.Description = name, desc
	return fm, nil
}

// cutLine splits data after its first line (LF or CRLF), without the
// line's end.
func cutLine(data []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		return data, nil, len(data) > 0
	}
	return bytes.TrimSuffix(data[:i], []byte("\r")), data[i+1:], true
}

// toJSON converts what YAML decoded into values encoding/json encodes:
// mappings must have string keys.
func toJSON(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			c, err := toJSON(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = c
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			s, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("key %v is not a string", k)
			}
			c, err := toJSON(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s, err)
			}
			out[s] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			c, err := toJSON(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = c
		}
		return out, nil
	case float64:
		if v != v || v > 1e308 || v < -1e308 { // NaN, ±Inf
			return nil, fmt.Errorf("%v is not a JSON number", v)
		}
		return v, nil
	}
	return v, nil
}

// CheckName checks a skill name against the Agent Skills format: 1 to 64
// lowercase letters, digits and hyphens, neither starting nor ending
// with a hyphen, no two hyphens in a row.
func CheckName(name string) error {
	switch {
	case name == "":
		return errors.New("name is empty")
	case len(name) > MaxNameLen:
		return fmt.Errorf("name %q is longer than %d characters", name, MaxNameLen)
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-"):
		return fmt.Errorf("name %q starts or ends with a hyphen", name)
	case strings.Contains(name, "--"):
		return fmt.Errorf("name %q has two hyphens in a row", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("name %q may hold only lowercase letters, digits and hyphens", name)
		}
	}
	return nil
}

// File is one file of a skill.
type File struct {
	Path   string // relative to the skill's folder, with "/"
	Data   []byte
	Digest string // "sha256:" and 64 lowercase hex digits
}

// Skill is a skill read from a folder.
type Skill struct {
	// Path locates the skill's folder within the skills' root, with "/":
	// its last segment is the skill's name.
	Path        string
	FrontMatter FrontMatter
	Files       []File // SKILL.md first, then the others by path
}

// Name is the skill's name.
func (s *Skill) Name() string { return s.FrontMatter.Name }

// Digest is the "sha256:{hex}" digest of data.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// MIMEType is the media type a skill file is served with: text/markdown
// for Markdown, else by its extension, else text/plain when it is UTF-8
// text, else application/octet-stream.
func MIMEType(name string, data []byte) string {
	ext := strings.ToLower(path.Ext(name))
	switch ext {
	case ".md", ".markdown":
		return "text/markdown"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	if utf8.Valid(data) {
		return "text/plain"
	}
	return "application/octet-stream"
}

// Problem is a skill left out of a folder, and why.
type Problem struct {
	File string // the SKILL.md (or folder) at fault, as the caller named it
	Err  error
}

func (p *Problem) Error() string { return p.File + ": " + p.Err.Error() }
func (p *Problem) Unwrap() error { return p.Err }

// Read reads every skill under fsys's root: each folder holding a SKILL.md
// is one, named by its front matter, which must match the folder's name
// (a SKILL.md at the root itself is the skill named by root's base name,
// rootName). Files and folders whose names start with "." are left out.
// A skill that cannot be served (no front matter, a bad name, beyond the
// limits) is left out and reported as a *Problem naming its file under
// display, the root as the user wrote it; the others are returned.
func Read(fsys fs.FS, rootName, display string) ([]Skill, []error) {
	var dirs []string
	var errs []error
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, &Problem{File: path.Join(display, p), Err: err})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() && d.Name() == FileName {
			dirs = append(dirs, path.Dir(p))
		}
		return nil
	})
	if err != nil {
		errs = append(errs, &Problem{File: display, Err: err})
	}
	var out []Skill
	for _, dir := range dirs {
		file := path.Join(display, dir, FileName)
		s, err := readOne(fsys, dir, rootName)
		if err != nil {
			errs = append(errs, &Problem{File: file, Err: err})
			continue
		}
		out = append(out, s)
	}
	return out, errs
}

// readOne reads the skill in folder dir of fsys.
func readOne(fsys fs.FS, dir, rootName string) (Skill, error) {
	var s Skill
	data, err := fs.ReadFile(fsys, path.Join(dir, FileName))
	if err != nil {
		return s, err
	}
	fm, err := ParseFrontMatter(data)
	if err != nil {
		return s, err
	}
	s.Path = dir
	folder := path.Base(dir)
	if dir == "." {
		s.Path, folder = rootName, rootName
	}
	if fm.Name != folder {
		return s, fmt.Errorf("name %q differs from its folder's name %q (the Agent Skills format asks them to match)", fm.Name, folder)
	}
	s.FrontMatter = fm
	var total int64
	err = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil // symbolic links and devices are not part of a skill
		}
		rel := strings.TrimPrefix(p, dir+"/")
		if dir == "." {
			rel = p
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		total += int64(len(b))
		if total > MaxBytes {
			return fmt.Errorf("skill's files add up to more than %d bytes (the extension's limit)", MaxBytes)
		}
		s.Files = append(s.Files, File{Path: rel, Data: b, Digest: Digest(b)})
		if len(s.Files) > MaxFiles {
			return fmt.Errorf("skill has more than %d files (the extension's limit)", MaxFiles)
		}
		return nil
	})
	if err != nil {
		return s, err
	}
	slices.SortFunc(s.Files, func(a, b File) int {
		if (a.Path == FileName) != (b.Path == FileName) {
			if a.Path == FileName {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Path, b.Path)
	})
	return s, nil
}
