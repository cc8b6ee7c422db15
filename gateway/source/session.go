package source

import (
	"maps"

	"github.com/wasmgate/wasmgate/loader/abi"
)

// SessionLister is a source whose lists can differ per MCP session: a
// plugin with instances: session, whose session's instance relisted
// (notify_tool_list_changed and its prompt and resource counterparts).
// SessionLists is what that session's instance lists; ok is false when
// the session sees the source's shared lists.
type SessionLister interface {
	SessionLists(session string) (d abi.Descriptor, ok bool)
}

// SessionView is x as one session sees it: src's tools, resources,
// templates and prompts replaced by what d describes (what its instance
// of the session listed), under the same rules as Add: a name or URI
// another source owns in x is refused (one error each), whatever the
// order of the sources, and so is a static URI inside another source's
// template. The other sources' entries are x's. x is not changed; the
// view shares x's entries.
func (x *Index) SessionView(file string, src Source, d abi.Descriptor) (*Index, []error) {
	v := &Index{
		Tools:     without(x.Tools, src, func(t *Tool) Source { return t.Src }),
		Resources: without(x.Resources, src, func(r *Resource) Source { return r.Src }),
		Templates: without(x.Templates, src, func(r *Resource) Source { return r.Src }),
		Prompts:   without(x.Prompts, src, func(p *Prompt) Source { return p.Src }),
		Skills:    without(x.Skills, src, func(s *Skill) Source { return s.Src }),
		claimed:   without(x.claimed, src, func(r *Resource) Source { return r.Src }),
		owner:     maps.Clone(x.owner),
		Gate:      x.Gate, // what the lock file withholds, withheld in the view too
		Redacted:  x.Redacted,
		// The session's tools compile once, like the shared index's.
		prevSchemas: x.schemas,
	}
	for key, c := range x.owner {
		if c.source == src.Name() {
			delete(v.owner, key)
		}
	}
	return v, v.add(file, src, d)
}

// without is m less the entries of src.
func without[E any](m map[string]E, src Source, of func(E) Source) map[string]E {
	out := make(map[string]E, len(m))
	for k, e := range m {
		if of(e).Name() != src.Name() {
			out[k] = e
		}
	}
	return out
}
