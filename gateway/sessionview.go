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
// one instance per MCP session, and when that instance relists its tools
// (notify_tool_list_changed) only that session's view changes. The
// snapshot's index stays what every session sees; a session whose
// instance relisted sees an overlay, source.Index.SessionView: the
// plugin's tools replaced by what its instance listed, a name another
// source owns refused as on any relist. The overlay is computed when
// the session asks (tools/list, tools/call) and kept per snapshot;
// tools/list is rebuilt from it (filterTools), tools/call looks names up
// in it (envelope.SessionState), and names only the session has are
// routed to the gateway's handler as mcp-go session tools. list_changed
// goes to that session alone.

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
			if tools, ok := sl.SessionTools(session); ok {
				var e []error
				x, e = x.SessionView(s.Config.File, src, tools)
				errs = append(errs, e...)
			}
		}
	}
	return x, errs
}

// sessionRelisted is the plugins' SessionRelisted: the instance of
// session relisted p's tools. The session's view is computed again; what
// it refuses is logged and counted; the session's routes are synced and
// it alone is told list_changed if its tools changed.
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
	// What the session was shown: its routed tools (only this function
	// and routeSessions, both under applyMu, change them), else the
	// shared ones. (Not its cached overlay: a call of the session may
	// have computed it from the new list already.)
	before := map[string]mcp.Tool{}
	if st, ok := vw.cs.(server.SessionWithTools); ok && len(st.GetSessionTools()) > 0 {
		for name, t := range st.GetSessionTools() {
			before[name] = t.Tool
		}
	} else {
		for name, t := range cur.index.Tools {
			before[name] = t.Def
		}
	}
	after, errs := cur.overlay(session)
	for _, err := range errs {
		g.log.Warn("plugin lists for a session: not published", "plugin", p.Name(), "session", session, "problem", err)
		g.opts.Metrics.ClaimsRefused.WithLabelValues(p.Name()).Inc()
	}
	if _, ok := vw.cs.(server.SessionWithTools); !ok && after != cur.index {
		g.log.Warn("plugin lists for a session: not published: the session's transport keeps no tools of its own (stdio); it sees the plugin's shared tools",
			"plugin", p.Name(), "session", session)
		p.ForgetSessionTools(session)
		return
	}
	if after == cur.index {
		cur.views.Delete(session)
	} else {
		cur.views.Store(session, after)
	}
	g.routeSession(vw.cs, after, cur.index)
	now := map[string]mcp.Tool{}
	for name, t := range after.Tools {
		now[name] = t.Def
	}
	if changed(before, now, func(t mcp.Tool) any { return t }) {
		if err := g.mcp.SendNotificationToSpecificClient(session, mcp.MethodNotificationToolsListChanged, nil); err != nil {
			g.log.Debug("list_changed not delivered", "session", session, "error", err)
		}
	}
}

// routeSession gives cs the tools of its view as session tools (nil when
// it sees the shared index), each handled by the gateway's handler, which
// looks the name up in the session's view.
func (g *Gateway) routeSession(cs server.ClientSession, view, shared *source.Index) {
	st, ok := cs.(server.SessionWithTools)
	if !ok {
		return
	}
	if view == shared {
		if len(st.GetSessionTools()) > 0 {
			st.SetSessionTools(nil)
		}
		return
	}
	tools := make(map[string]server.ServerTool, len(view.Tools))
	for _, name := range slices.Sorted(maps.Keys(view.Tools)) {
		tools[name] = server.ServerTool{Tool: view.Tools[name].Def, Handler: g.env.ToolHandler(name)}
	}
	st.SetSessionTools(tools)
}

// routeSessions syncs the session tools of every session for s, after a
// swap: a session's view is computed against s's index.
func (g *Gateway) routeSessions(s *Snapshot) {
	g.views.mu.Lock()
	sessions := make(map[string]server.ClientSession, len(g.views.sessions))
	for id, v := range g.views.sessions {
		if v.cs != nil {
			sessions[id] = v.cs
		}
	}
	g.views.mu.Unlock()
	for id, cs := range sessions {
		if st, ok := cs.(server.SessionWithTools); ok {
			view := s.sessionIndex(id)
			if view != s.index || len(st.GetSessionTools()) > 0 {
				g.routeSession(cs, view, s.index)
			}
		}
	}
}

// sessionTools is the tools list of the session of ctx when it has an
// overlay (nil otherwise), sorted by name.
func (s *Snapshot) sessionTools(ctx context.Context) []mcp.Tool {
	x := s.SessionIndex(ctx)
	if x == s.index {
		return nil
	}
	out := make([]mcp.Tool, 0, len(x.Tools))
	for _, name := range x.ToolNames() {
		out = append(out, x.Tools[name].Def)
	}
	return out
}
