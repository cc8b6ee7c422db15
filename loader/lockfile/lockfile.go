// Package lockfile is gateway.lock: what an operator approved of every
// source (a plugin, a relay site, an upstream server): its module digest
// or upstream command/URL, its grants, and each tool's, prompt's and
// resource's definition as clients see it, as a digest and the readable
// text. Parse reads one (every digest checked against its text), Encode
// writes one, Diff says in readable lines what differs between two.
// It imports nothing of the gateway (the loader reads the file).
package lockfile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Version is the format this package reads and writes.
const Version = 1

// MaxSize bounds a lock file (a gateway's lists, readable: far below it).
const MaxSize = 64 << 20

// Lock is a parsed lock file.
type Lock struct {
	Version int                `json:"version"`
	Sources map[string]*Source `json:"sources"`
}

// Source is what was approved of one source, by its name.
type Source struct {
	Kind     string `json:"kind"`               // plugin, relay site, upstream
	Declared string `json:"declared,omitempty"` // where: plugins[0]
	// Module is a plugin's module digest; Upstream an upstream server's
	// command or URL.
	Module   string `json:"module_sha256,omitempty"`
	Upstream string `json:"upstream,omitempty"`
	// Grants are what the source may do, by key (allowed_hosts, sandbox,
	// host_functions, instances ...), each as canonical JSON.
	Grants    map[string]json.RawMessage `json:"grants,omitempty"`
	Tools     map[string]Entry           `json:"tools,omitempty"`
	Prompts   map[string]Entry           `json:"prompts,omitempty"`
	Resources map[string]Entry           `json:"resources,omitempty"` // static resources and templates, by exposed URI
	// Skills are the skills extension's entries (front matter and the
	// digest of every file), by the exposed URI of their SKILL.md.
	Skills map[string]Entry `json:"skills,omitempty"`
}

// Entry is one definition (a tool's name, description, schemas and
// annotations, as published): its digest and its canonical JSON.
type Entry struct {
	SHA256     string          `json:"sha256"`
	Definition json.RawMessage `json:"definition"`
}

// Kinds of entries, as Diff names them.
const (
	KindTool     = "tool"
	KindPrompt   = "prompt"
	KindResource = "resource"
	KindSkill    = "skill"
)

// kinds are the kinds of entries, in the order Diff lists them.
func kinds() []string { return []string{KindTool, KindPrompt, KindResource, KindSkill} }

// Entries are s's entries of kind.
func (s *Source) Entries(kind string) map[string]Entry {
	switch kind {
	case KindTool:
		return s.Tools
	case KindPrompt:
		return s.Prompts
	case KindSkill:
		return s.Skills
	}
	return s.Resources
}

// Add records def (anything that marshals to a JSON object) as the entry
// of kind named name.
func (s *Source) Add(kind, name string, def any) error {
	e, err := NewEntry(def)
	if err != nil {
		return fmt.Errorf("%s %q: %w", kind, name, err)
	}
	m := s.Entries(kind)
	if m == nil {
		m = map[string]Entry{}
		switch kind {
		case KindTool:
			s.Tools = m
		case KindPrompt:
			s.Prompts = m
		case KindSkill:
			s.Skills = m
		default:
			s.Resources = m
		}
	}
	m[name] = e
	return nil
}

// Grant records v as the grant named key.
func (s *Source) Grant(key string, v any) error {
	b, err := Canonical(v)
	if err != nil {
		return fmt.Errorf("grant %s: %w", key, err)
	}
	if s.Grants == nil {
		s.Grants = map[string]json.RawMessage{}
	}
	s.Grants[key] = b
	return nil
}

// GrantAll records every grant of grants (Grant), in key order; the
// first that cannot be recorded is the error.
func (s *Source) GrantAll(grants map[string]any) error {
	for _, k := range slices.Sorted(maps.Keys(grants)) {
		if err := s.Grant(k, grants[k]); err != nil {
			return err
		}
	}
	return nil
}

// List is l for a grant: a list the config leaves out is recorded as
// empty, never null, so that leaving it out and writing [] lock the same.
func List(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// NewEntry is def's entry.
func NewEntry(def any) (Entry, error) {
	b, err := Canonical(def)
	if err != nil {
		return Entry{}, err
	}
	return Entry{SHA256: Digest(b), Definition: b}, nil
}

// Digest is the hex SHA-256 of canonical JSON.
func Digest(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:])
}

// Canonical is v as JSON with object keys sorted and no insignificant
// space, numbers as written: the form digests are taken of.
func Canonical(v any) (json.RawMessage, error) {
	b, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	if err := e.Encode(x); err != nil {
		return nil, err
	}
	return bytes.TrimRight(out.Bytes(), "\n"), nil
}

// Parse reads a lock file's bytes: the version, every source, and every
// entry's digest checked against its definition (a lock edited by hand
// that no longer matches its digests is refused, naming the entry).
func Parse(data []byte) (*Lock, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("larger than %d MiB", MaxSize>>20)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var l Lock
	if err := d.Decode(&l); err != nil {
		return nil, fmt.Errorf("not a lock file (JSON written by `wasmgate lock`): %w", err)
	}
	if d.More() {
		return nil, fmt.Errorf("not a lock file: more than one JSON value")
	}
	if l.Version != Version {
		return nil, fmt.Errorf("version %d: this wasmgate reads version %d (run `wasmgate lock` to write it again)", l.Version, Version)
	}
	if l.Sources == nil {
		l.Sources = map[string]*Source{}
	}
	for _, name := range slices.Sorted(maps.Keys(l.Sources)) {
		s := l.Sources[name]
		if s == nil {
			return nil, fmt.Errorf("sources.%s: null", name)
		}
		if s.Kind == "" {
			return nil, fmt.Errorf("sources.%s.kind: missing", name)
		}
		for _, k := range slices.Sorted(maps.Keys(s.Grants)) {
			c, err := Canonical(s.Grants[k])
			if err != nil {
				return nil, fmt.Errorf("sources.%s.grants.%s: %w", name, k, err)
			}
			s.Grants[k] = c
		}
		for _, kind := range kinds() {
			m := s.Entries(kind)
			for _, n := range slices.Sorted(maps.Keys(m)) {
				e := m[n]
				where := fmt.Sprintf("sources.%s.%ss.%s", name, kind, n)
				if len(e.Definition) == 0 {
					return nil, fmt.Errorf("%s.definition: missing", where)
				}
				c, err := Canonical(e.Definition)
				if err != nil {
					return nil, fmt.Errorf("%s.definition: %w", where, err)
				}
				if got := Digest(c); got != e.SHA256 {
					return nil, fmt.Errorf("%s: sha256 %q does not match its definition (%s): the lock was edited; run `wasmgate lock` to write it again", where, e.SHA256, got)
				}
				m[n] = Entry{SHA256: e.SHA256, Definition: c}
			}
		}
	}
	return &l, nil
}

// Encode is l as its file: indented JSON, sources and entries sorted by
// name (encoding/json sorts map keys), one trailing newline.
func (l *Lock) Encode() ([]byte, error) {
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(l); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// New is an empty lock.
func New() *Lock { return &Lock{Version: Version, Sources: map[string]*Source{}} }

// Diff lists what differs from the lock old (nil: no lock) in now, one
// readable line each, sorted by source: sources new or gone, their
// module, upstream and grants, and each entry new, gone or changed (by
// field: `description: "a" -> "b"`).
func Diff(old, now *Lock) []string {
	if old == nil {
		old = New()
	}
	var out []string
	names := unionKeys(old.Sources, now.Sources)
	for _, n := range names {
		o, s := old.Sources[n], now.Sources[n]
		switch {
		case s == nil:
			out = append(out, fmt.Sprintf("%s %q: in the lock, no longer a source", o.Kind, Display(o.Kind, n)))
		case o == nil:
			out = append(out, fmt.Sprintf("%s %q: new, not in the lock", s.Kind, Display(s.Kind, n)))
			for _, kind := range kinds() {
				for _, e := range slices.Sorted(maps.Keys(s.Entries(kind))) {
					out = append(out, fmt.Sprintf("%s %q: %s %q: new, not in the lock", s.Kind, n, kind, e))
				}
			}
		default:
			out = append(out, PinDiff(n, o, s)...)
			for _, kind := range kinds() {
				out = append(out, EntriesDiff(n, s.Kind, kind, o.Entries(kind), s.Entries(kind))...)
			}
		}
	}
	return out
}

// PinDiff lists what differs in the module, upstream and grants of the
// source named name between the lock's o and now's s.
func PinDiff(name string, o, s *Source) []string {
	var out []string
	head := fmt.Sprintf("%s %q: ", s.Kind, Display(s.Kind, name))
	if o.Kind != s.Kind {
		out = append(out, head+fmt.Sprintf("kind: %s -> %s", o.Kind, s.Kind))
	}
	if o.Module != s.Module {
		out = append(out, head+fmt.Sprintf("module_sha256: %s -> %s", orNone(o.Module), orNone(s.Module)))
	}
	if o.Upstream != s.Upstream {
		out = append(out, head+fmt.Sprintf("upstream: %s -> %s", orNone(o.Upstream), orNone(s.Upstream)))
	}
	keys := unionKeys(o.Grants, s.Grants)
	for _, k := range keys {
		a, b := o.Grants[k], s.Grants[k]
		if !bytes.Equal(a, b) {
			out = append(out, head+fmt.Sprintf("grants.%s: %s -> %s", k, orNone(string(a)), orNone(string(b))))
		}
	}
	return out
}

// EntriesDiff lists what differs between the lock's entries o and now's
// s of kind, of the source named name.
func EntriesDiff(name, srcKind, kind string, o, s map[string]Entry) []string {
	var out []string
	names := unionKeys(o, s)
	for _, n := range names {
		a, inOld := o[n]
		b, inNow := s[n]
		head := fmt.Sprintf("%s %q: %s %q: ", srcKind, name, kind, n)
		switch {
		case !inNow:
			out = append(out, head+"in the lock, no longer published")
		case !inOld:
			out = append(out, head+"new, not in the lock")
		case a.SHA256 != b.SHA256:
			for _, l := range FieldDiff(a.Definition, b.Definition) {
				out = append(out, head+l)
			}
		}
	}
	return out
}

// FieldDiff lists the top-level fields that differ between two
// definitions: `description: "old" -> "new"`.
func FieldDiff(a, b json.RawMessage) []string {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return []string{fmt.Sprintf("%s -> %s", a, b)}
	}
	keys := unionKeys(ma, mb)
	var out []string
	for _, k := range keys {
		x, y := ma[k], mb[k]
		if !bytes.Equal(x, y) {
			out = append(out, fmt.Sprintf("%s: %s -> %s", k, orNone(string(x)), orNone(string(y))))
		}
	}
	if len(out) == 0 {
		out = append(out, "definition changed")
	}
	return out
}

// Display is the name a person reads of the entry name of kind: an
// interceptor's is keyed "interceptor:<name>" (it may share a source's
// name), and named <name>.
func Display(kind, name string) string { return strings.TrimPrefix(name, kind+":") }

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(none)"
	}
	return s
}

// unionKeys is the keys of a and b, sorted, each once.
func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
