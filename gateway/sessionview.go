package gateway

import (
	"context"
	"maps"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/plugin"
	"github.com/wasmgate/wasmgate/gateway/source"
)

// Per-session views (issue 16): a plugin with instances: session keeps
// one instance per MCP session, and when that instance relists (its
// tools, prompts or resources) only that session's view changes. The
// snapshot's index stays what every session sees; a session whose
// instance relisted sees an overlay, source.Index.SessionView: the
// plugin's tools, resources, templates and prompts replaced by what its
// instance listed, a name or URI another source owns refused as on any
// relist. The overlay is computed when the session asks and kept per
// snapshot; the lists are rebuilt from it (filterTools and the other
// list filters), calls, reads and gets look names up in it
// (envelope.SessionState), and what only the session has is routed to
// the gateway's handlers as mcp-go session tools, resources, templates
// and prompts. list_changed goes to that session alone.

// SessionIndex is the index of the session of ctx (envelope.SessionState).
func (s *Snapshot) SessionIndex(ctx context.Context) *source.Index {
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		return s.sessionIndex(cs.SessionID())
	}
	return s.index
}

// sessionIndex is what session sees of s: s.index, or an overlay when a
// session-scoped instance of the session relisted.
func (s *Snapshot) sessionIndex(session string) *source.Index {
	if session == "" {
		return s.index
	}
	if v, ok := s.views.Load(session); ok {
		return v.(*source.Index)
	}
	x, _ := s.overlay(session)
	if x != s.index {
		v, _ := s.views.LoadOrStore(session, x) // a relist may have stored a newer one meanwhile
		return v.(*source.Index)
	}
	return x
}

// overlay computes session's view of s, with what it refused.
func (s *Snapshot) overlay(session string) (*source.Index, []error) {
	x := s.index
	var errs []error
	for src := range s.sources {
		if sl, ok := src.(source.SessionLister); ok {
			if d, ok := sl.SessionLists(session); ok {
				var e []error
				x, e = x.SessionView(s.Config.File, src, d)
				errs = append(errs, e...)
			}
		}
	}
	return x, errs
}

// sessionRelisted is the plugins' SessionRelisted: the instance of
// session relisted p's lists. The session's view is computed again; what
// it refuses is logged and counted; the session's routes are synced and
// it alone is told list_changed for each list that changed.
func (g *Gateway) sessionRelisted(p *plugin.Source, session string) {
	g.applyMu.Lock()
	defer g.applyMu.Unlock()
	g.views.mu.Lock()
	vw, live := g.views.sessions[session]
	g.views.mu.Unlock()
	if !live {
		p.EndSession(context.Background(), session) // it ended while its call ran
		return
	}
	cur := g.cur.Load()
	if cur == nil || !cur.parts.plugins.Serves(p) {
		return
	}
	// What the session was shown: the view it was last routed (only this
	// function and routeSessions, both under applyMu, change it), else
	// the shared one. (Not its cached overlay: a call of the session may
	// have computed it from the new lists already.)
	before := vw.shown
	if before == nil {
		before = cur.index
	}
	after, errs := cur.overlay(session)
	for _, err := range errs {
		g.log.Warn("plugin lists for a session: not published", "plugin", p.Name(), "session", session, "problem", err)
		g.opts.Metrics.ClaimsRefused.WithLabelValues(p.Name()).Inc()
		countDuplicateKey(g.opts.Metrics, err)
	}
	if _, ok := vw.cs.(server.SessionWithTools); !ok && after != cur.index {
		g.log.Warn("plugin lists for a session: not published: the session's transport keeps no lists of its own (stdio); it sees the plugin's shared lists",
			"plugin", p.Name(), "session", session)
		p.ForgetSessionLists(session)
		return
	}
	if after == cur.index {
		cur.views.Delete(session)
	} else {
		cur.views.Store(session, after)
	}
	g.routeSession(session, vw.cs, after, cur.index)
	sent := map[string]bool{}
	for i, differ := range listsDiffer(before, after) {
		if m := listChanged[i]; differ && !sent[m] {
			sent[m] = true
			if err := g.mcp.SendNotificationToSpecificClient(session, m, nil); err != nil {
				g.log.Debug("list_changed not delivered", "session", session, "method", m, "error", err)
			}
		}
	}
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

// routeSession gives cs the lists of its view as session tools,
// resources, templates and prompts (none when it sees the shared index),
// each handled by the gateway's handlers, which look the name up in the
// session's view, and records what the session was shown. Call with
// applyMu.
func (g *Gateway) routeSession(id string, cs server.ClientSession, view, shared *source.Index) {
	st, ok := cs.(server.SessionWithTools)
	if !ok {
		return
	}
	var shown *source.Index
	if view == shared {
		if len(st.GetSessionTools()) > 0 {
			st.SetSessionTools(nil)
		}
		if sr, ok := cs.(server.SessionWithResources); ok && len(sr.GetSessionResources()) > 0 {
			sr.SetSessionResources(nil)
		}
		if sr, ok := cs.(server.SessionWithResourceTemplates); ok && len(sr.GetSessionResourceTemplates()) > 0 {
			sr.SetSessionResourceTemplates(nil)
		}
		if sp, ok := cs.(server.SessionWithPrompts); ok && len(sp.GetSessionPrompts()) > 0 {
			sp.SetSessionPrompts(nil)
		}
	} else {
		shown = view
		tools := make(map[string]server.ServerTool, len(view.Tools))
		for _, name := range slices.Sorted(maps.Keys(view.Tools)) {
			tools[name] = server.ServerTool{Tool: view.Tools[name].Def, Handler: g.env.ToolHandler(name)}
		}
		st.SetSessionTools(tools)
		if sr, ok := cs.(server.SessionWithResources); ok {
			rs := make(map[string]server.ServerResource, len(view.Resources))
			for uri, r := range view.Resources {
				rs[uri] = server.ServerResource{Resource: r.Resource, Handler: g.env.ResourceHandler(uri, false)}
			}
			sr.SetSessionResources(rs)
		}
		if sr, ok := cs.(server.SessionWithResourceTemplates); ok {
			ts := make(map[string]server.ServerResourceTemplate, len(view.Templates))
			for raw, r := range view.Templates {
				ts[raw] = server.ServerResourceTemplate{Template: r.Template, Handler: server.ResourceTemplateHandlerFunc(g.env.ResourceHandler(raw, true))}
			}
			sr.SetSessionResourceTemplates(ts)
		}
		if sp, ok := cs.(server.SessionWithPrompts); ok {
			ps := make(map[string]server.ServerPrompt, len(view.Prompts))
			for name, p := range view.Prompts {
				ps[name] = server.ServerPrompt{Prompt: p.Def, Handler: g.env.PromptHandler(name)}
			}
			sp.SetSessionPrompts(ps)
		}
	}
	g.views.mu.Lock()
	if vw, ok := g.views.sessions[id]; ok {
		vw.shown = shown
		g.views.sessions[id] = vw
	}
	g.views.mu.Unlock()
}

// routeSessions syncs the session lists of every session for s, after a
// swap: a session's view is computed against s's index.
func (g *Gateway) routeSessions(s *Snapshot) {
	g.views.mu.Lock()
	sessions := make(map[string]viewer, len(g.views.sessions))
	for id, v := range g.views.sessions {
		if v.cs != nil {
			sessions[id] = v
		}
	}
	g.views.mu.Unlock()
	for id, vw := range sessions {
		if _, ok := vw.cs.(server.SessionWithTools); ok {
			view := s.sessionIndex(id)
			if view != s.index || vw.shown != nil {
				g.routeSession(id, vw.cs, view, s.index)
			}
		}
	}
}

// sessionLists is the index of the session of ctx when it has an
// overlay, nil otherwise (it sees the shared lists).
func (s *Snapshot) sessionLists(ctx context.Context) *source.Index {
	if x := s.SessionIndex(ctx); x != s.index {
		return x
	}
	return nil
}

// sessionTools is the tools list of the session of ctx when it has an
// overlay (nil otherwise), sorted by name.
func (s *Snapshot) sessionTools(ctx context.Context) []mcp.Tool {
	x := s.sessionLists(ctx)
	if x == nil {
		return nil
	}
	out := make([]mcp.Tool, 0, len(x.Tools))
	for _, name := range x.ToolNames() {
		out = append(out, x.Tools[name].Def)
	}
	return out
}
