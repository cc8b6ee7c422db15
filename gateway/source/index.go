package source

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmgate/wasmgate/internal/secretscan"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// Index is what a set of sources publishes, by exposed name or URI: each
// name and URI is claimed by one source; a second claim is an error.
// Build one with NewIndex and Add; it is read-only once built.
type Index struct {
	Tools     map[string]*Tool
	Resources map[string]*Resource // static, by URI
	Templates map[string]*Resource // by raw URI template
	Prompts   map[string]*Prompt
	Skills    map[string]*Skill    // by the exposed URI of the SKILL.md
	claimed   map[string]*Resource // every template claimed, published or withheld (Gate)
	owner     map[string]claim     // "tool NAME", "resource URI", ... -> who provides it
	reserved  map[string]string    // the same keys -> the source that owned them before (Reserve)
	// schemas are the compiled input schemas of x's tools, by tool name
	// and schema bytes; prevSchemas the previous index's, from Reserve
	// until Release: a reload or a relist compiles only the schemas that
	// changed (with 10,000 tools, compiling them all took most of a
	// reload).
	schemas, prevSchemas map[schemaKey]compiledSchema

	// Gate, when set, is asked before anything is published (the lock
	// file's trust.on_change); what it withholds keeps its name claimed
	// for its source but is neither listed nor callable.
	Gate Gate

	// Redacted, when set, counts each secret replaced in a definition of
	// a source with redact_secrets (wasmgate_secrets_redacted_total,
	// where "definition"). Such a source's definitions are published with
	// their secrets replaced whether it is set or not.
	Redacted func(src Source, k secretscan.Kind)
}

// Gate decides whether the index publishes a definition of src: a tool
// (def an mcp.Tool), a prompt (mcp.Prompt) or a resource or template
// (mcp.Resource, mcp.ResourceTemplate), by exposed name or URI, as
// clients would see it (curated).
type Gate interface {
	Admit(src Source, kind, name string, def any) bool
}

// admit asks x.Gate, if any.
func (x *Index) admit(src Source, kind, name string, def any) bool {
	return x.Gate == nil || x.Gate.Admit(src, kind, name, def)
}

// claim is who provides a name or URI.
type claim struct {
	where  string // Where(src)
	source string // src.Name()
}

// Tool is a published tool.
type Tool struct {
	Name   string // exposed name
	Export string // the source's own name
	Src    Source
	Def    mcp.Tool
	Schema *jsonschema.Schema
	// Flat checks the common call's arguments without the validator,
	// when the schema is flat enough (nil otherwise).
	Flat *FlatSchema
	// Labels are its flow labels (package flow).
	Labels []string
}

// Resource is a published static resource or resource template.
type Resource struct {
	Src      Source
	Res      abi.Resource         // as the source describes it, with its own URI
	URI      string               // exposed URI or URI template
	Match    *abi.URITemplate     // template: the exposed template, matching requested URIs
	Resource mcp.Resource         // static
	Template mcp.ResourceTemplate // template
	Labels   []string             // flow labels (package flow)
}

// Prompt is a published prompt.
type Prompt struct {
	Name   string
	Export string
	Src    Source
	Def    mcp.Prompt
	Labels []string // flow labels (package flow)
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{
		Tools:     map[string]*Tool{},
		Resources: map[string]*Resource{},
		Templates: map[string]*Resource{},
		Prompts:   map[string]*Prompt{},
		Skills:    map[string]*Skill{},
		claimed:   map[string]*Resource{},
		owner:     map[string]claim{},
	}
}

// Reserve gives every name and URI that prev published to the source
// that published it: until Release, Add leaves a name reserved for
// another source out, without an error. Indexing the same sources again
// after one of them relisted or registered anew, the gateway adds them
// all once with the reservations (the owners take their names back),
// releases, and adds them all again (the rest claim what is free, and a
// newcomer that asks for an owned name is refused): a name claimed by
// one source cannot be taken over at run time, whatever the order of
// the sources. While reserved, Add claims only what is reserved for
// the source: a newcomer's claims wait for the second pass, so that
// none of them (a template overlapping an owner's, a static URI inside
// it) is taken before the owner took its own back.
func (x *Index) Reserve(prev *Index) {
	x.reserved = map[string]string{}
	for key, c := range prev.owner {
		x.reserved[key] = c.source
	}
	x.prevSchemas = prev.schemas
}

// Release ends the reservations of Reserve.
func (x *Index) Release() { x.reserved, x.prevSchemas = nil, nil }

// schemaKey identifies a tool's input schema: its exposed name (the
// compiled schema's location, which validation messages name) and the
// schema's bytes.
type schemaKey [sha256.Size]byte

func keyOf(name string, raw []byte) schemaKey {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(raw)
	var k schemaKey
	h.Sum(k[:0])
	return k
}

// compiledSchema is a tool's input schema compiled (CompileSchema,
// CompileFlat), or why it does not compile.
type compiledSchema struct {
	sch  *jsonschema.Schema
	flat *FlatSchema
	err  error
}

// compile is the compiled input schema raw of the tool name: the one
// this index or the previous one (Reserve) compiled, else compiled now.
// A compiled schema is immutable: indexes share it.
func (x *Index) compile(name string, raw json.RawMessage) compiledSchema {
	k := keyOf(name, raw)
	c, ok := x.schemas[k]
	if !ok {
		if c, ok = x.prevSchemas[k]; !ok {
			c.sch, c.err = CompileSchema(name, raw)
			if c.err == nil {
				c.flat = CompileFlat(raw)
			}
		}
		if x.schemas == nil {
			x.schemas = map[schemaKey]compiledSchema{}
		}
		x.schemas[k] = c
	}
	return c
}

// errReserved is a claim of a name reserved for another source.
var errReserved = errors.New("reserved")

// ToolNames lists the exposed tool names, sorted.
func (x *Index) ToolNames() []string { return slices.Sorted(maps.Keys(x.Tools)) }

// Where names src in messages: where it is declared, its kind and name.
func Where(src Source) string {
	return fmt.Sprintf("%s (%s %q)", src.Key(), KindOf(src), src.Name())
}

// Add publishes what src provides, refusing (one error each, prefixed
// with file) a name or URI another source already provides, an invalid
// schema or definition. What was refused is left out; the rest is added.
func (x *Index) Add(file string, src Source) []error {
	return x.add(file, src, src.Descriptor())
}

// add is Add of what d describes as src's.
func (x *Index) add(file string, src Source, d abi.Descriptor) []error {
	where := Where(src)
	free := func(kind, id string) (bool, error) { return x.free(file, src, where, kind, id) }
	take := func(kind, id string) { x.owner[kind+" "+id] = claim{where, src.Name()} }
	var errs []error
	report := func(err error) {
		if err != errReserved {
			errs = append(errs, err)
		}
	}
	errs = append(errs, x.addTools(file, src, d.Tools)...)
	hidden, serrs := x.addSkills(file, src, where, d.Skills, free, take, report)
	errs = append(errs, serrs...)
	lc := labelCuration(src)
	for _, r := range d.Resources {
		uri := ExposedURI(src.Prefix(), r.URI)
		if mine, err := free("resource", uri); mine || err != nil {
			if err != nil {
				report(err)
			}
			continue
		}
		if hidden[r.URI] { // a file of a skill not published: claimed, not served
			take("resource", uri)
			continue
		}
		labels, err := labelsFor(lc, nil, r.URI, r.Name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: resource %q: %w", file, where, r.URI, err))
			continue
		}
		e := &Resource{Src: src, Res: r, URI: uri, Labels: labels}
		if r.Template != nil {
			if e.Match, err = abi.ParseURITemplate(uri); err == nil {
				e.Template, err = templateDef(uri, x.redactResource(src, r.Resource))
			}
			if err == nil {
				err = x.overlapsStatic(e)
			}
			if err == nil {
				err = x.overlapsTemplate(e)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: resource template %q: %w", file, where, r.URI, err))
				continue
			}
			take("resource", uri)
			x.claimed[uri] = e
			if x.admit(src, "resource", uri, e.Template) {
				x.Templates[uri] = e
			}
			continue
		}
		if _, err := url.Parse(uri); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: resource %q: invalid uri %q", file, where, r.Name, uri))
			continue
		}
		if e.Resource, err = resourceDef(uri, x.redactResource(src, r.Resource)); err == nil {
			err = x.insideTemplate(e)
		}
		if csp := GrantedCSP(src); csp != nil && IsAppURI(r.URI) {
			// An App of a source with grants reaches what the source may.
			var meta map[string]any
			if e.Resource.Meta != nil {
				meta = e.Resource.Meta.AdditionalFields
			}
			e.Resource.Meta = &mcp.Meta{AdditionalFields: WithCSP(meta, csp)}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: resource %q: %w", file, where, r.URI, err))
			continue
		}
		take("resource", uri)
		if x.admit(src, "resource", uri, e.Resource) {
			x.Resources[uri] = e
		}
	}
	for _, p := range d.Prompts {
		name := ExposedName(src.Prefix(), p.Name)
		if mine, err := free("prompt", name); mine || err != nil {
			if err != nil {
				report(err)
			}
			continue
		}
		def, err := promptDef(name, x.redactPrompt(src, p))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: prompt %q: %w", file, where, p.Name, err))
			continue
		}
		take("prompt", name)
		if x.admit(src, "prompt", name, def) {
			labels, _ := labelsFor(lc, nil, p.Name) // one name: no conflict
			x.Prompts[name] = &Prompt{Name: name, Export: p.Name, Src: src, Def: def, Labels: labels}
		}
	}
	return errs
}

// free checks that key may be claimed by src: mine is true when src
// already has it (adding a source again is a no-op for what it has); the
// error is errReserved for a name reserved for another source.
func (x *Index) free(file string, src Source, where, kind, id string) (mine bool, err error) {
	key := kind + " " + id
	if prev, ok := x.owner[key]; ok {
		if prev.where == where {
			return true, nil
		}
		return false, fmt.Errorf("%s: %s: %s %q is also provided by %s", file, where, kind, id, prev.where)
	}
	if x.reserved != nil && x.reserved[key] != src.Name() {
		return false, errReserved // another's, or nobody's until Release
	}
	return false, nil
}

// addTools publishes tools as src's (see Add), curated (Curated): a tool
// the filter leaves out is skipped, an override renames it; two of src's
// tools published under one name is an error naming both.
func (x *Index) addTools(file string, src Source, tools []wire.Tool) []error {
	var errs []error
	where := Where(src)
	cur := curationOf(src)
	lc := labelCuration(src)
	seen := map[string]string{} // exposed name -> the tool of src published under it
	for _, t := range tools {
		if !cur.Allows(t.Name) {
			continue
		}
		name := ExposedName(src.Prefix(), cur.NewName(t.Name))
		if cur != nil {
			if other, ok := seen[name]; ok {
				errs = append(errs, fmt.Errorf("%s: %s: tools %q and %q would both be published as %q: %s.overrides renames one onto the other",
					file, where, other, t.Name, name, src.Key()))
				continue
			}
			seen[name] = t.Name
		}
		if mine, err := x.free(file, src, where, "tool", name); mine || err != nil {
			if err != nil && err != errReserved {
				errs = append(errs, err)
			}
			continue
		}
		cs := x.compile(name, t.InputSchema)
		if cs.err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: tool %q: invalid inputSchema: %w", file, where, t.Name, cs.err))
			continue
		}
		def, err := toolDef(name, x.redactTool(src, t))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: tool %q: %w", file, where, t.Name, err))
			continue
		}
		override(cur, t.Name, &def)
		if def.Meta != nil {
			RewriteUIRefs(src.Prefix(), def.Meta.AdditionalFields) // MCP Apps (apps.go)
		}
		if TaskTimeoutOf(src) > 0 {
			def.Execution = &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}
		}
		x.owner["tool "+name] = claim{where, src.Name()}
		if x.admit(src, "tool", name, def) {
			labels, _ := labelsFor(lc, &def.Annotations, t.Name) // one name: no conflict
			x.Tools[name] = &Tool{Name: name, Export: t.Name, Src: src, Schema: cs.sch, Flat: cs.flat, Def: def, Labels: labels}
		}
	}
	return errs
}

// insideTemplate refuses a static resource whose URI another source's
// template matches: reads of it would reach the static resource (static
// resources are tried first), taking the template owner's URIs.
func (x *Index) insideTemplate(e *Resource) error {
	for raw, t := range x.claimed {
		if t.Src.Name() != e.Src.Name() {
			if _, ok := t.Match.Match(e.URI); ok {
				return fmt.Errorf("its URI is inside resource template %q of %s", raw, Where(t.Src))
			}
		}
	}
	return nil
}

// overlapsStatic refuses a template that matches another source's static
// resource.
func (x *Index) overlapsStatic(e *Resource) error {
	for uri, r := range x.Resources {
		if r.Src.Name() != e.Src.Name() {
			if _, ok := e.Match.Match(uri); ok {
				return fmt.Errorf("it matches resource %q of %s", uri, Where(r.Src))
			}
		}
	}
	return nil
}

// overlapsTemplate refuses a template that some URI matches together
// with another source's template (abi.Overlap): a read of that URI
// could go to either. The error names the first such template in byte
// order, and a URI both match.
func (x *Index) overlapsTemplate(e *Resource) error {
	var first *Resource
	var both string
	for raw, t := range x.claimed {
		if t.Src.Name() == e.Src.Name() || (first != nil && raw >= first.URI) {
			continue
		}
		if uri, ok := abi.Overlap(e.Match, t.Match); ok {
			first, both = t, uri
		}
	}
	switch {
	case first == nil:
		return nil
	case both == "":
		return fmt.Errorf("it may overlap resource template %q of %s (too long to tell apart; taken as overlapping)", first.URI, Where(first.Src))
	default:
		return fmt.Errorf("it overlaps resource template %q of %s: both match %q", first.URI, Where(first.Src), both)
	}
}

// TemplateFor is the published template that serves uri, nil when none
// matches it. Templates of different sources never overlap (Add), so
// every match is of one source; among that source's own, the one with
// the most literal text serves, then the first in byte order. Reads,
// subscriptions and their checks route by it, never by which template
// mcp-go, which tries its templates in map order, matched first.
func (x *Index) TemplateFor(uri string) *Resource {
	var best *Resource
	for _, t := range x.Templates {
		if t.Match == nil || (best != nil && !t.before(best)) {
			continue
		}
		if _, ok := t.Match.Match(uri); ok {
			best = t
		}
	}
	return best
}

// before orders two templates of one source for TemplateFor.
func (e *Resource) before(o *Resource) bool {
	if a, b := e.Match.Literal(), o.Match.Literal(); a != b {
		return a > b
	}
	return e.URI < o.URI
}

// Own is the source's own URI of uri, a URI the client asked for, with
// the template's variables when e is a template; ok is false when uri
// does not match e's template.
func (e *Resource) Own(uri string) (own string, vars map[string]string, ok bool) {
	if e.Res.Template == nil {
		return e.Res.URI, nil, true
	}
	if vars, ok = e.Match.Match(uri); !ok {
		return "", nil, false
	}
	return Expand(e.Res.Template, vars), vars, true
}
