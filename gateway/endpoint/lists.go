package endpoint

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/policy"
)

// The lists an endpoint publishes: its selection of the catalog set in
// its mcp-go server (whose Set* tells every session of the endpoint of
// a list that changed), then, for each request, filtered by policy for
// the caller (hooks, below), or replaced by the session's own view.

var listChanged = [4]string{
	mcp.MethodNotificationToolsListChanged,
	mcp.MethodNotificationResourcesListChanged,
	mcp.MethodNotificationResourcesListChanged,
	mcp.MethodNotificationPromptsListChanged,
}

// syncRegistry updates mcp-go's lists where they differ between old
// and p; each Set* call notifies every session of the endpoint of that
// list's change. It reports which lists (tools, resources, templates,
// prompts) it set.
func (e *Endpoint) syncRegistry(old, p *published, tools bool) (set [4]bool) {
	prev := source.NewIndex()
	if old != nil {
		prev = old.index
	}
	x := p.index
	searched := func(p *published) bool { return p != nil && p.find != nil }
	if set[0] = tools || searched(old) != searched(p); set[0] {
		list := make([]server.ServerTool, 0, len(x.Tools)+2)
		for _, name := range x.ToolNames() {
			list = append(list, server.ServerTool{Tool: x.Tools[name].Def, Handler: e.env.ToolHandler(name)})
		}
		if p.find != nil {
			list = append(list, e.metaTools()...)
		}
		e.mcp.SetTools(list...)
	}
	if set[1] = changed(prev.Resources, x.Resources, func(r *source.Resource) any { return r.Resource }); set[1] {
		var rs []server.ServerResource
		for _, uri := range slices.Sorted(maps.Keys(x.Resources)) {
			rs = append(rs, server.ServerResource{Resource: x.Resources[uri].Resource, Handler: e.env.ResourceHandler(uri, false)})
		}
		e.mcp.SetResources(rs...)
	}
	if set[2] = changed(prev.Templates, x.Templates, func(r *source.Resource) any { return r.Template }); set[2] {
		var ts []server.ServerResourceTemplate
		for _, raw := range slices.Sorted(maps.Keys(x.Templates)) {
			ts = append(ts, server.ServerResourceTemplate{Template: x.Templates[raw].Template, Handler: server.ResourceTemplateHandlerFunc(e.env.ResourceHandler(raw, true))})
		}
		e.mcp.SetResourceTemplates(ts...)
	}
	if set[3] = changed(prev.Prompts, x.Prompts, func(p *source.Prompt) any { return p.Def }); set[3] {
		var ps []server.ServerPrompt
		for _, name := range slices.Sorted(maps.Keys(x.Prompts)) {
			ps = append(ps, server.ServerPrompt{Prompt: x.Prompts[name].Def, Handler: e.env.PromptHandler(name)})
		}
		e.mcp.SetPrompts(ps...)
	}
	return set
}

// toolsDiffer reports whether p's tools differ from old's in what
// clients see.
func toolsDiffer(old, p *published) bool {
	prev := source.NewIndex()
	if old != nil {
		prev = old.index
	}
	return changed(prev.Tools, p.index.Tools, func(t *source.Tool) any { return t.Def })
}

// changed reports whether two name->entry maps differ in what clients
// see: the JSON form of each entry's definition. Entries whose
// definitions are deeply equal are the same without being encoded (a
// reload of 10,000 unchanged tools encoded all of them twice).
func changed[E any](a, b map[string]E, def func(E) any) bool {
	if len(a) != len(b) {
		return true
	}
	for n, eb := range b {
		ea, ok := a[n]
		if !ok {
			return true
		}
		x, y := def(ea), def(eb)
		if reflect.DeepEqual(x, y) {
			continue
		}
		jx, err1 := json.Marshal(x)
		jy, err2 := json.Marshal(y)
		if err1 != nil || err2 != nil || string(jx) != string(jy) {
			return true
		}
	}
	return false
}

// listsDiffer reports which of the four lists (tools, resources,
// templates, prompts; listChanged's order) differ between a and b in
// what clients see.
func listsDiffer(a, b *source.Index) [4]bool {
	return [4]bool{
		changed(a.Tools, b.Tools, func(t *source.Tool) any { return t.Def }),
		changed(a.Resources, b.Resources, func(r *source.Resource) any { return r.Resource }),
		changed(a.Templates, b.Templates, func(r *source.Resource) any { return r.Template }),
		changed(a.Prompts, b.Prompts, func(p *source.Prompt) any { return p.Def }),
	}
}

// notifyViews sends list_changed to each session whose policy-filtered
// view of a list differs between old and p, for the lists syncRegistry
// did not already announce to everyone (sent).
func (e *Endpoint) notifyViews(old, p *published, sent [4]bool) {
	if old == nil || (old.Policy() == nil && p.Policy() == nil) {
		return
	}
	for id, v := range e.sessions.all() {
		before, after := old.visible(v.caller(old).Principal), p.visible(v.caller(p).Principal)
		done := map[string]bool{}
		for i := range before {
			m := listChanged[i]
			if sent[i] || before[i] == after[i] || done[m] {
				continue
			}
			done[m] = true
			e.send(id, m, nil)
		}
	}
}

// send sends a notification to one session of the endpoint.
func (e *Endpoint) send(session, method string, params map[string]any) {
	if err := e.mcp.SendNotificationToSpecificClient(session, method, params); err != nil {
		e.log.Debug("notification not delivered", "session", session, "method", method, "error", err)
	}
}

// visible is what principal p sees of the endpoint's lists, for telling
// a session list_changed when a reload changes its view. The four lists
// are tools, resources, resource templates and prompts.
func (pb *published) visible(p policy.Principal) [4]string {
	var v [4]string
	pol := pb.Policy()
	add := func(i int, names []string, ok func(string) bool) {
		for _, n := range names {
			if ok(n) {
				v[i] += n + "\x00"
			}
		}
	}
	x := pb.index
	add(0, slices.Sorted(maps.Keys(x.Tools)), func(n string) bool { return pol.Visible(p, policy.Tool, n) })
	add(1, slices.Sorted(maps.Keys(x.Resources)), func(n string) bool { return pol.Visible(p, policy.Resource, n) })
	add(2, slices.Sorted(maps.Keys(x.Templates)), func(n string) bool { return pol.VisibleTemplate(p, n) })
	add(3, slices.Sorted(maps.Keys(x.Prompts)), func(n string) bool { return pol.Visible(p, policy.Prompt, n) })
	return v
}

// Visibility of lists: each caller sees only what it may use. The lists
// are filtered after mcp-go builds them (hooks), not with mcp-go's tool
// and prompt filters: those also refuse a call of a hidden tool as "not
// found" before the gateway sees it, and a call must reach authorize to
// be denied by policy, counted and audited.

func (e *Endpoint) filterTools(ctx context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
	p := e.cur.Load()
	if p == nil || res == nil {
		return
	}
	// A list no interceptor, search or session view changes is the same
	// for every request of a principal: kept per publication (toolView).
	plain := p.find == nil && !e.env.ListIntercepted(p, "tools/list") && p.sessionLists(ctx) == nil
	var key string
	in := res.Tools
	if plain {
		key = viewKey(envelope.CallerOf(ctx, p).Principal)
		if v := p.toolView(key, in); v != nil {
			res.Tools, res.RawTools = v.tools, v.raw
			e.setHints(ctx, p, listTools, &res.CacheableResult)
			return
		}
	}
	if p.find != nil {
		res.Tools = e.searchList(ctx, p)
	} else {
		res.Tools = visibleList(ctx, p, res.Tools, res.NextCursor,
			func(x *source.Index) []mcp.Tool {
				return ownList(x.Tools, func(t *source.Tool) mcp.Tool { return t.Def }, func(t mcp.Tool) string { return t.Name })
			},
			func(pol *policy.Policy, who policy.Principal, t mcp.Tool) bool {
				return pol.Visible(who, policy.Tool, t.Name)
			})
	}
	res.Tools = interceptList(ctx, e, p, "tools/list", "tools", res.Tools, func(t mcp.Tool) string { return t.Name })
	e.setHints(ctx, p, listTools, &res.CacheableResult)
	if plain {
		res.RawTools = p.rawTools(res.Tools)
		p.keepToolView(key, in, &toolView{tools: res.Tools, raw: res.RawTools})
	}
}

func (e *Endpoint) filterPrompts(ctx context.Context, _ any, _ *mcp.ListPromptsRequest, res *mcp.ListPromptsResult) {
	if p := e.cur.Load(); p != nil && res != nil {
		res.Prompts = visibleList(ctx, p, res.Prompts, res.NextCursor,
			func(x *source.Index) []mcp.Prompt {
				return ownList(x.Prompts, func(p *source.Prompt) mcp.Prompt { return p.Def }, func(p mcp.Prompt) string { return p.Name })
			},
			func(pol *policy.Policy, who policy.Principal, x mcp.Prompt) bool {
				return pol.Visible(who, policy.Prompt, x.Name)
			})
		res.Prompts = interceptList(ctx, e, p, "prompts/list", "prompts", res.Prompts, func(x mcp.Prompt) string { return x.Name })
		e.setHints(ctx, p, listPrompts, &res.CacheableResult)
	}
}

func (e *Endpoint) filterResources(ctx context.Context, _ any, _ *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
	if p := e.cur.Load(); p != nil && res != nil {
		res.Resources = visibleList(ctx, p, res.Resources, res.NextCursor,
			func(x *source.Index) []mcp.Resource {
				return ownList(x.Resources, func(r *source.Resource) mcp.Resource { return r.Resource }, func(r mcp.Resource) string { return r.Name })
			},
			func(pol *policy.Policy, who policy.Principal, r mcp.Resource) bool {
				return pol.Visible(who, policy.Resource, r.URI)
			})
		res.Resources = interceptList(ctx, e, p, "resources/list", "resources", res.Resources, func(r mcp.Resource) string { return r.URI })
		e.setHints(ctx, p, listResources, &res.CacheableResult)
	}
}

func (e *Endpoint) filterTemplates(ctx context.Context, _ any, _ *mcp.ListResourceTemplatesRequest, res *mcp.ListResourceTemplatesResult) {
	if p := e.cur.Load(); p != nil && res != nil {
		res.ResourceTemplates = visibleList(ctx, p, res.ResourceTemplates, res.NextCursor,
			func(x *source.Index) []mcp.ResourceTemplate {
				return ownList(x.Templates, func(r *source.Resource) mcp.ResourceTemplate { return r.Template }, func(t mcp.ResourceTemplate) string { return t.Name })
			},
			func(pol *policy.Policy, who policy.Principal, t mcp.ResourceTemplate) bool {
				return t.URITemplate != nil && pol.VisibleTemplate(who, t.URITemplate.Raw())
			})
		res.ResourceTemplates = interceptList(ctx, e, p, "resources/templates/list", "resourceTemplates", res.ResourceTemplates,
			func(t mcp.ResourceTemplate) string {
				if t.URITemplate == nil {
					return t.Name
				}
				return t.URITemplate.Raw()
			})
		e.setHints(ctx, p, listTemplates, &res.CacheableResult)
	}
}

// visibleList is list (a page of mcp-go's, next its cursor) as the
// caller of ctx may see it: on the first page of a session with its own
// view (sessions.go), own's list of that view in its place; then, with a
// policy, only what visible lets the caller see (never nil then: a list
// is a required array).
func visibleList[T any](ctx context.Context, p *published, list []T, next mcp.Cursor,
	own func(*source.Index) []T, visible func(*policy.Policy, policy.Principal, T) bool) []T {
	if x := p.sessionLists(ctx); x != nil && next == "" {
		list = own(x)
	}
	pol := p.Policy()
	if pol == nil {
		return list
	}
	who := envelope.CallerOf(ctx, p).Principal
	var out []T // nil while everything so far is visible
	for i, t := range list {
		switch {
		case visible(pol, who, t):
			if out != nil {
				out = append(out, t)
			}
		case out == nil:
			out = make([]T, i, len(list))
			copy(out, list[:i])
		}
	}
	if out == nil {
		return list // all of it, not copied
	}
	return out
}

// ownList is a session's own list (sessions.go) of entries m, sorted by
// name as mcp-go sorts its lists; never nil (a list is a required
// array).
func ownList[E, D any](m map[string]E, def func(E) D, name func(D) string) []D {
	out := make([]D, 0, len(m))
	for _, e := range m {
		out = append(out, def(e))
	}
	slices.SortFunc(out, func(a, b D) int { return strings.Compare(name(a), name(b)) })
	return out
}
