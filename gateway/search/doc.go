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
}

// Param is one top-level property of a tool's input schema.
type Param struct {
	Name        string
	Description string
}

// DocOf builds a Doc from a tool definition. The parameters are the
// top-level properties of InputSchema, or of RawInputSchema when that is
// set (names and their "description"), in the schema's order when it is
// known and by name otherwise. The title is Title, or Annotations.Title.
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
	if len(t.RawInputSchema) > 0 {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		props, order = nil, nil
		if json.Unmarshal(t.RawInputSchema, &s) == nil {
			props = make(map[string]any, len(s.Properties))
			for name, raw := range s.Properties {
				var p struct {
					Description string `json:"description"`
				}
				_ = json.Unmarshal(raw, &p) // a property that is not an object has no description
				props[name] = map[string]any{"description": p.Description}
			}
		}
	}
	d.Params = paramsOf(props, order)
	return d
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
