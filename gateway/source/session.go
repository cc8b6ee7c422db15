package source

import (
	"maps"
	"strings"

	"github.com/wasmgate/wasmgate/wire"
)

// SessionLister is a source whose tools can differ per MCP session: a
// plugin with instances: session, whose session's instance relisted its
// tools (notify_tool_list_changed). SessionTools is what that session's
// instance lists; ok is false when the session sees the source's shared
// tools.
type SessionLister interface {
	SessionTools(session string) (tools []wire.Tool, ok bool)
}

// SessionView is x as one session sees it: src's tools replaced by tools
// (what its instance of the session listed), under the same rules as Add:
// a name another source owns in x is refused (one error each), whatever
// the order of the sources; the other sources' tools, and every resource,
// template and prompt, are x's. x is not changed; the view shares x's
// entries.
func (x *Index) SessionView(file string, src Source, tools []wire.Tool) (*Index, []error) {
	v := &Index{Tools: make(map[string]*Tool, len(x.Tools)), Resources: x.Resources, Templates: x.Templates,
		Prompts: x.Prompts, owner: maps.Clone(x.owner), Gate: x.Gate}
	for name, t := range x.Tools {
		if t.Src.Name() == src.Name() {
			continue
		}
		v.Tools[name] = t
	}
	for key, c := range x.owner { // src's tool names, withheld ones too (Gate)
		if c.source == src.Name() && strings.HasPrefix(key, "tool ") {
			delete(v.owner, key)
		}
	}
	return v, v.addTools(file, src, tools)
}
