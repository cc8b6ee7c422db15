package source

// Selector chooses what of an index an endpoint publishes (package
// endpoint): the sources it takes from, then by exposed name the tools
// and prompts, and by exposed URI (a template by its URI template) the
// resources.
type Selector interface {
	Source(name string) bool
	Tool(name string) bool
	Resource(uri string) bool
	Prompt(name string) bool
}

// Select is what of x sel chooses. The result shares x's entries and is
// read-only: look names up in it, list it; never Add to it or Reserve
// from it. sel nil chooses everything: x itself.
func (x *Index) Select(sel Selector) *Index {
	if sel == nil {
		return x
	}
	v := &Index{
		Tools:     map[string]*Tool{},
		Resources: map[string]*Resource{},
		Templates: map[string]*Resource{},
		Prompts:   map[string]*Prompt{},
		Skills:    map[string]*Skill{},
		Gate:      x.Gate,
		Redacted:  x.Redacted,
	}
	for n, t := range x.Tools {
		if sel.Source(t.Src.Name()) && sel.Tool(n) {
			v.Tools[n] = t
		}
	}
	for u, r := range x.Resources {
		if sel.Source(r.Src.Name()) && sel.Resource(u) {
			v.Resources[u] = r
		}
	}
	for u, r := range x.Templates {
		if sel.Source(r.Src.Name()) && sel.Resource(u) {
			v.Templates[u] = r
		}
	}
	for n, p := range x.Prompts {
		if sel.Source(p.Src.Name()) && sel.Prompt(n) {
			v.Prompts[n] = p
		}
	}
	for u, s := range x.Skills { // a skill goes with its SKILL.md
		if sel.Source(s.Src.Name()) && sel.Resource(u) {
			v.Skills[u] = s
		}
	}
	return v
}
