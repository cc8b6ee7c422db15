package source

import (
	"fmt"
	"maps"
	"net/url"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmgate/wasmgate/loader/abi"
)

// Index is what a set of sources publishes, by exposed name or URI: each
// name and URI is claimed by one source; a second claim is an error.
// Build one with NewIndex and Add; it is read-only once built.
type Index struct {
	Tools     map[string]*Tool
	Resources map[string]*Resource // static, by URI
	Templates map[string]*Resource // by raw URI template
	Prompts   map[string]*Prompt
	owner     map[string]string // "tool NAME", "resource URI", ... -> who provides it
}

// Tool is a published tool.
type Tool struct {
	Name   string // exposed name
	Export string // the source's own name
	Src    Source
	Def    mcp.Tool
	Schema *jsonschema.Schema
}

// Resource is a published static resource or resource template.
type Resource struct {
	Src      Source
	Res      abi.Resource         // as the source describes it, with its own URI
	URI      string               // exposed URI or URI template
	Match    *abi.URITemplate     // template: the exposed template, matching requested URIs
	Resource mcp.Resource         // static
	Template mcp.ResourceTemplate // template
}

// Prompt is a published prompt.
type Prompt struct {
	Name   string
	Export string
	Src    Source
	Def    mcp.Prompt
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{
		Tools:     map[string]*Tool{},
		Resources: map[string]*Resource{},
		Templates: map[string]*Resource{},
		Prompts:   map[string]*Prompt{},
		owner:     map[string]string{},
	}
}

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
	var errs []error
	where := Where(src)
	claim := func(kind, id string) error {
		key := kind + " " + id
		if prev, ok := x.owner[key]; ok {
			return fmt.Errorf("%s: %s: %s %q is also provided by %s", file, where, kind, id, prev)
		}
		x.owner[key] = where
		return nil
	}
	d := src.Descriptor()
	for _, t := range d.Tools {
		name := ExposedName(src.Prefix(), t.Name)
		if err := claim("tool", name); err != nil {
			errs = append(errs, err)
			continue
		}
		sch, err := CompileSchema(name, t.InputSchema)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: tool %q: invalid inputSchema: %w", file, where, t.Name, err))
			continue
		}
		def, err := toolDef(name, t)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: tool %q: %w", file, where, t.Name, err))
			continue
		}
		x.Tools[name] = &Tool{Name: name, Export: t.Name, Src: src, Schema: sch, Def: def}
	}
	for _, r := range d.Resources {
		uri := ExposedURI(src.Prefix(), r.URI)
		if err := claim("resource", uri); err != nil {
			errs = append(errs, err)
			continue
		}
		e := &Resource{Src: src, Res: r, URI: uri}
		var err error
		if r.Template != nil {
			if e.Match, err = abi.ParseURITemplate(uri); err == nil {
				e.Template, err = templateDef(uri, r.Resource)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: resource template %q: %w", file, where, r.URI, err))
				continue
			}
			x.Templates[uri] = e
			continue
		}
		if _, err := url.Parse(uri); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: resource %q: invalid uri %q", file, where, r.Name, uri))
			continue
		}
		if e.Resource, err = resourceDef(uri, r.Resource); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: resource %q: %w", file, where, r.URI, err))
			continue
		}
		x.Resources[uri] = e
	}
	for _, p := range d.Prompts {
		name := ExposedName(src.Prefix(), p.Name)
		if err := claim("prompt", name); err != nil {
			errs = append(errs, err)
			continue
		}
		def, err := promptDef(name, p)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: prompt %q: %w", file, where, p.Name, err))
			continue
		}
		x.Prompts[name] = &Prompt{Name: name, Export: p.Name, Src: src, Def: def}
	}
	return errs
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
