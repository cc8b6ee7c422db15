package endpoint

import (
	"encoding/json"
	"strings"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/policy"
)

// tools/list at scale (filterTools, lists.go): each tool's JSON is kept
// per publication and written as it is (mcp.ListToolsResult.RawTools),
// and the list each principal gets is kept while mcp-go's list is the
// same.

// A publication keeps the tools/list of at most maxToolViews principals,
// and at most maxToolViewBytes of lists of their own (a view of every
// tool shares mcp-go's list and the publication's one JSON of it).
const (
	maxToolViews     = 256
	maxToolViewBytes = 64 << 20
)

// toolView is the tools/list a principal gets of one list of mcp-go's
// (from, its first tool, n long): the tools policy lets it see and their
// JSON (rawTools).
type toolView struct {
	from  *mcp.Tool
	n     int
	tools []mcp.Tool
	raw   json.RawMessage
	size  int64 // counted in published.viewBytes
}

// viewKey is what a principal's view of a list depends on: its name,
// groups and claims (policy rules may look at any).
func viewKey(pr policy.Principal) string {
	claims, _ := json.Marshal(pr.Claims) // sorted keys
	return pr.Name + "\x00" + strings.Join(pr.Groups, "\x01") + "\x00" + string(claims)
}

// toolView is the view kept for key of list in, or nil.
func (p *published) toolView(key string, in []mcp.Tool) *toolView {
	if len(in) == 0 {
		return nil
	}
	v, ok := p.toolViews.Load(key)
	if !ok {
		return nil
	}
	tv := v.(*toolView)
	// mcp-go shares its kept list (WithSharedToolList): the same list is
	// the same array.
	if tv.from != &in[0] || tv.n != len(in) {
		return nil
	}
	return tv
}

// keepToolView keeps v, key's view of list in, within maxToolViews and
// maxToolViewBytes.
func (p *published) keepToolView(key string, in []mcp.Tool, v *toolView) {
	if len(in) == 0 || v.raw == nil || p.nViews.Load() >= maxToolViews {
		return
	}
	var size int64 // what v holds that no other list does
	if len(v.tools) > 0 && &v.tools[0] != &in[0] {
		size += int64(len(v.tools)) * int64(unsafe.Sizeof(mcp.Tool{}))
	}
	if all := p.allTools.Load(); all == nil || len(*all) != len(v.raw) || &(*all)[0] != &v.raw[0] {
		size += int64(len(v.raw))
	}
	if p.viewBytes.Add(size) > maxToolViewBytes {
		p.viewBytes.Add(-size)
		return
	}
	v.from, v.n, v.size = &in[0], len(in), size
	if old, loaded := p.toolViews.Swap(key, v); !loaded {
		p.nViews.Add(1)
	} else {
		p.viewBytes.Add(-old.(*toolView).size)
	}
}

// rawTools is list, tools of p's index as mcp-go listed them, as
// encoding/json writes them (mcp.ListToolsResult.RawTools): each tool
// encoded once per publication rather than on every list (10,000 tools
// took 110 ms to encode). nil when a tool is not p's (a list mcp-go
// built just before p was published): it is then encoded as it is.
func (p *published) rawTools(list []mcp.Tool) json.RawMessage {
	p.toolsOnce.Do(func() {
		p.toolsJSON = make(map[string][]byte, len(p.index.Tools))
		for name, t := range p.index.Tools {
			if b, err := json.Marshal(t.Def); err == nil {
				p.toolsJSON[name] = b
			}
		}
	})
	n, sorted := 2, true
	for i, t := range list {
		b, ok := p.toolsJSON[t.Name]
		if !ok {
			return nil
		}
		n += len(b) + 1
		sorted = sorted && (i == 0 || list[i-1].Name < t.Name)
	}
	// All of them, by name: the one list every caller who sees
	// everything gets.
	all := sorted && len(list) == len(p.toolsJSON)
	if all {
		if b := p.allTools.Load(); b != nil {
			return *b
		}
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, t := range list {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, p.toolsJSON[t.Name]...)
	}
	out = append(out, ']')
	if all {
		p.allTools.Store((*json.RawMessage)(&out))
	}
	return out
}
