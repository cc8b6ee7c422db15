package gateway

import (
	"context"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/source"
)

// views remembers who each MCP session belongs to, so that a reload that
// changes what a caller may see (a policy or principal edit) tells exactly
// the sessions whose lists changed: each caller's lists are filtered by
// policy, so a list can change for one session and not for another.
type views struct {
	mu       sync.Mutex
	sessions map[string]viewer
}

// viewer is a session's caller as it was authenticated; a stdio session
// is the stdio principal of whichever snapshot serves.
type viewer struct {
	c     envelope.Caller
	stdio bool
	cs    server.ClientSession // for its own lists (sessionview.go)
	// shown is the session's own view it was last given (routeSession),
	// nil when it sees the shared index.
	shown *source.Index
}

func (v *views) hooks() *server.Hooks {
	h := &server.Hooks{}
	h.AddOnRegisterSession(func(ctx context.Context, session server.ClientSession) {
		c, ok := envelope.CallerFrom(ctx)
		v.mu.Lock()
		v.sessions[session.SessionID()] = viewer{c: c, stdio: !ok, cs: session}
		v.mu.Unlock()
	})
	h.AddOnUnregisterSession(func(ctx context.Context, session server.ClientSession) {
		v.mu.Lock()
		delete(v.sessions, session.SessionID())
		v.mu.Unlock()
	})
	return h
}

// owns reports whether caller c may use session id: the session was
// opened by the same principal (by name, from the same kind of
// credential), or the gateway does not know it (mcp-go answers that).
// Each request is authorized on its own, but a session's GET stream and
// DELETE belong to whoever opened it.
func (v *views) owns(id string, c envelope.Caller) bool {
	v.mu.Lock()
	vw, ok := v.sessions[id]
	v.mu.Unlock()
	return !ok || vw.stdio || (vw.c.Principal.Name == c.Principal.Name && vw.c.JWT == c.JWT)
}

func (vw viewer) caller(s *Snapshot) envelope.Caller {
	if vw.stdio {
		return envelope.Stdio(s.Stdio())
	}
	return vw.c
}

var listChanged = [4]string{
	mcp.MethodNotificationToolsListChanged,
	mcp.MethodNotificationResourcesListChanged,
	mcp.MethodNotificationResourcesListChanged,
	mcp.MethodNotificationPromptsListChanged,
}

// notify sends list_changed to each session whose filtered view of a list
// differs between old and s, for the lists syncRegistry did not already
// announce to everyone (sent).
func (g *Gateway) notifyViews(old, s *Snapshot, sent [4]bool) {
	if old == nil || (old.Policy() == nil && s.Policy() == nil) {
		return
	}
	g.views.mu.Lock()
	sessions := make(map[string]viewer, len(g.views.sessions))
	for id, v := range g.views.sessions {
		sessions[id] = v
	}
	g.views.mu.Unlock()
	for id, v := range sessions {
		before, after := old.visible(v.caller(old).Principal), s.visible(v.caller(s).Principal)
		done := map[string]bool{}
		for i := range before {
			m := listChanged[i]
			if sent[i] || before[i] == after[i] || done[m] {
				continue
			}
			done[m] = true
			if err := g.mcp.SendNotificationToSpecificClient(id, m, nil); err != nil {
				g.log.Debug("list_changed not delivered", "session", id, "method", m, "error", err)
			}
		}
	}
}

// sessionEnded frees what sources kept for a session (a plugin's
// instances: session).
func (g *Gateway) sessionEnded(ctx context.Context, session server.ClientSession) {
	s := g.cur.Load()
	if s == nil {
		return
	}
	for src := range s.sources {
		if e, ok := src.(source.SessionEnder); ok {
			e.EndSession(ctx, session.SessionID())
		}
	}
	s.views.Delete(session.SessionID())
}
