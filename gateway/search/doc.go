package search

import (
	"encoding/json"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
)

// Doc is one tool as the index sees it.
type Doc struct {
	Name        string  // the exposed tool name, e.g. files_read_text_file
	Title       string  // the tool's title, if it has one
	Description string  // the tool's description
	Source      string  // the source's name (an upstream, a plugin)
	Params      []Param // from the inputSchema's properties
	// Values are the closed vocabulary the schema names: its title and
	// each top-level property's enum and const values and string examples
	// (of the property or of its array items). A calculator whose
	// operation is one of add, subtract, multiply, divide adds numbers
	// even when its description does not say so. Defaults are left out:
	// they are one instance of an open value (a path, a URL) more often
	// than a word for what the tool does.
	Values []string
}

// Param is one top-level property of a tool's input schema.
type Param struct {
	Name        string
	Description string
}

// DocOf builds a Doc from a tool definition. The parameters are the
// top-level properties of InputSchema, or of RawInputSchema when that is
// set (names and their "description"), in the schema's order when it is
// known and by name otherwise; Values come from the same schema. The
// title is Title, or Annotations.Title.
func DocOf(source string, t mcp.Tool) Doc {
	d := Doc{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		Source:      source,
	}
	if d.Title == "" {
		d.Title = t.Annotations.Title
	}
	props, order := t.InputSchema.Properties, t.InputSchema.PropertyOrder
	var title any
	if len(t.RawInputSchema) > 0 {
		var s struct {
			Title      any            `json:"title"`
			Properties map[string]any `json:"properties"`
		}
		props, order = nil, nil
		if json.Unmarshal(t.RawInputSchema, &s) == nil {
			props, title = s.Properties, s.Title
		}
	}
	d.Params = paramsOf(props, order)
	d.Values = valuesOf(title, props, d.Params)
	return d
}

// valuesOf collects a schema's title and, in the order of params, each
// property's title, enum, const and examples strings, and the enum,
// const and examples of its items.
func valuesOf(title any, props map[string]any, params []Param) []string {
	var vs []string
	add := func(v any) {
		switch v := v.(type) {
		case string:
			if v != "" {
				vs = append(vs, v)
			}
		case []string: // a schema built in Go (mcp.Enum)
			for _, e := range v {
				if e != "" {
					vs = append(vs, e)
				}
			}
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok && s != "" {
					vs = append(vs, s)
				}
			}
		}
	}
	add(title)
	for _, p := range params {
		for m, depth := props[p.Name], 0; depth < 2; depth++ {
			o, ok := m.(map[string]any)
			if !ok {
				break
			}
			if depth == 0 {
				add(o["title"])
			}
			add(o["enum"])
			add(o["const"])
			add(o["examples"])
			m = o["items"]
		}
	}
	return vs
}

// paramsOf lists props in order, then the properties order leaves out
// sorted by name.
func paramsOf(props map[string]any, order []string) []Param {
	if len(props) == 0 {
		return nil
	}
	names := make([]string, 0, len(props))
	seen := make(map[string]bool, len(props))
	for _, n := range order {
		if _, ok := props[n]; ok && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	rest := len(names)
	for n := range props {
		if !seen[n] {
			names = append(names, n)
		}
	}
	slices.Sort(names[rest:])
	ps := make([]Param, 0, len(names))
	for _, n := range names {
		p := Param{Name: n}
		if m, ok := props[n].(map[string]any); ok {
			p.Description, _ = m["description"].(string)
		}
		ps = append(ps, p)
	}
	return ps
}
