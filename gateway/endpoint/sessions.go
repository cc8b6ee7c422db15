package endpoint

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"

	"github.com/wasmgate/wasmgate/flow"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/internal/canon"
	"github.com/wasmgate/wasmgate/metrics"
	"github.com/wasmgate/wasmgate/policy"
)

// sessions remembers who each MCP session of the endpoint belongs to,
// so that a reload that changes what a caller may see (a policy or
// principal edit) tells exactly the sessions whose lists changed, and
// what each session was shown of its own view.
type sessions struct {
	mu sync.Mutex
	m  map[string]viewer
}

// viewer is a session's caller as it was authenticated; a stdio session
// is the stdio principal of whichever catalog serves.
type viewer struct {
	c     envelope.Caller
	stdio bool
	cs    server.ClientSession
	// shown is the session's own view it was last given (routeSession),
	// nil when it sees the shared index.
	shown *source.Index
}

func (s *sessions) all() map[string]viewer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.m)
}

func (s *sessions) get(id string) (viewer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[id]
	return v, ok
}

func (vw viewer) caller(p *published) envelope.Caller {
	if vw.stdio {
		return envelope.Stdio(p.Stdio())
	}
	return vw.c
}

// Owns reports whether caller c may use session id: the session was
// opened by the same principal (by name, from the same kind of
// credential), or the endpoint does not know it (mcp-go answers that).
// Each request is authorized on its own, but a session's GET stream and
// DELETE belong to whoever opened it.
func (e *Endpoint) Owns(id string, c envelope.Caller) bool {
	vw, ok := e.sessions.get(id)
	return !ok || vw.stdio || (vw.c.Principal.Name == c.Principal.Name && vw.c.JWT == c.JWT)
}

// hooks are the mcp-go hooks of the endpoint: access, session
// bookkeeping for per-caller list_changed and views, subscriptions,
// what upstreams are told of a client, and policy's filter on every
// list.
func (e *Endpoint) hooks() *server.Hooks {
	h := &server.Hooks{}
	h.AddOnRequestInitialization(e.access)
	h.AddOnRegisterSession(func(ctx context.Context, session server.ClientSession) {
		c, ok := envelope.CallerFrom(ctx)
		e.sessions.mu.Lock()
		e.sessions.m[session.SessionID()] = viewer{c: c, stdio: !ok, cs: session}
		e.sessions.mu.Unlock()
	})
	h.AddOnUnregisterSession(func(ctx context.Context, session server.ClientSession) {
		e.sessions.mu.Lock()
		delete(e.sessions.m, session.SessionID())
		e.sessions.mu.Unlock()
		e.found.forget(session.SessionID())
		e.sessionEnded(ctx, session.SessionID())
	})
	e.subs.hooks(h)
	e.upstreamHooks(h)
	h.AddBeforeCallTool(e.appCall)
	h.AddAfterListTools(e.filterTools)
	h.AddAfterListPrompts(e.filterPrompts)
	h.AddAfterListResources(e.filterResources)
	h.AddAfterListResourceTemplates(e.filterTemplates)
	return h
}

// rejectedAccess is the reason wasmgate_http_rejected_total counts a
// request of a principal an endpoint's access leaves out under.
const rejectedAccess = "endpoint_access"

// errAccess is a request of a principal the endpoint's access section
// leaves out.
var errAccess = errors.New("access denied")

// access refuses every request of a caller the endpoint's access
// section leaves out (over HTTP the transport has answered 403 already;
// this is stdio's answer), naming nothing the caller may not see.
func (e *Endpoint) access(ctx context.Context, _ any, _ any) error {
	p := e.cur.Load()
	if p == nil {
		return nil
	}
	c := envelope.CallerOf(ctx, p)
	if e.Allowed(c) {
		return nil
	}
	e.m.HTTPRejected.WithLabelValues(rejectedAccess).Inc()
	return fmt.Errorf("%w: principal %q may not use the endpoint %q (endpoints[].access)", errAccess, c.Principal.Name, e.name)
}

// sessionEnded frees what sources kept for a session (a plugin's
// instances: session) and its view.
func (e *Endpoint) sessionEnded(ctx context.Context, session string) {
	p := e.cur.Load()
	if p == nil {
		return
	}
	for _, src := range p.sources() {
		if se, ok := src.(source.SessionEnder); ok {
			se.EndSession(ctx, session)
		}
	}
	p.views.Delete(session)
	// A session's taint in this process ends with it; in Redis it
	// expires (another replica may still serve the session).
	if f := e.o.Envelope.Taint; f != nil {
		if m, ok := f().(*flow.Memory); ok {
			m.End(flow.Key(flow.ScopeSession, session, ""))
		}
	}
}

// SessionChanged is told that the instance of session relisted the
// lists of the source named src (instances: session). The session's
// view is computed again; what it refuses is logged and counted; the
// session's routes are synced and it alone is told list_changed for
// each list that changed. It reports whether session is one of the
// endpoint's.
func (e *Endpoint) SessionChanged(src, session string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	vw, live := e.sessions.get(session)
	if !live {
		return false
	}
	p := e.cur.Load()
	if p == nil {
		return true
	}
	// What the session was shown: the view it was last routed (only this
	// function and routeSessions, both under mu, change it), else the
	// shared one. (Not its cached overlay: a call of the session may
	// have computed it from the new lists already.)
	before := vw.shown
	if before == nil {
		before = p.index
	}
	after, errs := p.overlay(session)
	for _, err := range errs {
		e.log.Warn("plugin lists for a session: not published", "source", src, "session", session, "problem", err)
		e.m.ClaimsRefused.WithLabelValues(src).Inc()
		if errors.Is(err, canon.ErrDuplicate) {
			e.m.TrustRefused.WithLabelValues(metrics.TrustRefusedDuplicateKey).Inc()
		}
	}
	if _, ok := vw.cs.(server.SessionWithTools); !ok && after != p.index {
		e.log.Warn("plugin lists for a session: not published: the session's transport keeps no lists of its own (stdio); it sees the plugin's shared lists",
			"source", src, "session", session)
		if f, ok := sourceNamed(p, src).(interface{ ForgetSessionLists(string) }); ok {
			f.ForgetSessionLists(session)
		}
		return true
	}
	if after == p.index {
		p.views.Delete(session)
	} else {
		p.views.Store(session, after)
	}
	e.routeSession(session, vw.cs, after, p.index)
	sent := map[string]bool{}
	for i, differ := range listsDiffer(before, after) {
		if m := listChanged[i]; differ && !sent[m] {
			sent[m] = true
			e.send(session, m, nil)
		}
	}
	return true
}

func sourceNamed(p *published, name string) source.Source {
	for _, s := range p.sources() {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// routeSession gives cs the lists of its view as session tools,
// resources, templates and prompts (none when it sees the shared index),
// each handled by the endpoint's envelope, which looks the name up in
// the session's view, and records what the session was shown. Call with
// mu.
func (e *Endpoint) routeSession(id string, cs server.ClientSession, view, shared *source.Index) {
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
		for name, t := range view.Tools {
			tools[name] = server.ServerTool{Tool: t.Def, Handler: e.env.ToolHandler(name)}
		}
		st.SetSessionTools(tools)
		if sr, ok := cs.(server.SessionWithResources); ok {
			rs := make(map[string]server.ServerResource, len(view.Resources))
			for uri, r := range view.Resources {
				rs[uri] = server.ServerResource{Resource: r.Resource, Handler: e.env.ResourceHandler(uri, false)}
			}
			sr.SetSessionResources(rs)
		}
		if sr, ok := cs.(server.SessionWithResourceTemplates); ok {
			ts := make(map[string]server.ServerResourceTemplate, len(view.Templates))
			for raw, r := range view.Templates {
				ts[raw] = server.ServerResourceTemplate{Template: r.Template, Handler: server.ResourceTemplateHandlerFunc(e.env.ResourceHandler(raw, true))}
			}
			sr.SetSessionResourceTemplates(ts)
		}
		if sp, ok := cs.(server.SessionWithPrompts); ok {
			ps := make(map[string]server.ServerPrompt, len(view.Prompts))
			for name, p := range view.Prompts {
				ps[name] = server.ServerPrompt{Prompt: p.Def, Handler: e.env.PromptHandler(name)}
			}
			sp.SetSessionPrompts(ps)
		}
	}
	e.sessions.mu.Lock()
	if vw, ok := e.sessions.m[id]; ok {
		vw.shown = shown
		e.sessions.m[id] = vw
	}
	e.sessions.mu.Unlock()
}

// routeSessions syncs the session lists of every session for p, after a
// Publish: a session's view is computed against p's index.
func (e *Endpoint) routeSessions(p *published) {
	for id, vw := range e.sessions.all() {
		if vw.cs == nil {
			continue
		}
		if _, ok := vw.cs.(server.SessionWithTools); ok {
			view := p.sessionIndex(id)
			if view != p.index || vw.shown != nil {
				e.routeSession(id, vw.cs, view, p.index)
			}
		}
	}
}

// taskOwner is who may see a task started with ctx: its caller's
// principal and transport (a stateless client has no session to bind it
// to; an anonymous loopback caller is one principal).
func (e *Endpoint) taskOwner(ctx context.Context) string {
	p := e.cur.Load()
	if p == nil { // nothing is served before the first snapshot
		return ""
	}
	c := envelope.CallerOf(ctx, p)
	return c.Transport + "\x00" + c.Principal.Name
}

// taskPolicy is the serving policy applied to a tasks/get, tasks/result
// or tasks/cancel of a task of tool (and, listing, to what tasks/list
// shows): its owner may go on only while the policy could still let them
// call the tool (the call's own arguments were checked when it started),
// so a reload that takes a tool away from a principal takes its tasks'
// results too. A refused request counts as a policy denial; a task left
// out of a list does not, as a tool left out of tools/list does not.
func (e *Endpoint) taskPolicy(ctx context.Context, tool string, listing bool) error {
	p := e.cur.Load()
	if p == nil {
		return errors.New("the gateway is not serving yet")
	}
	pol := p.Policy()
	if pol == nil {
		return nil
	}
	c := envelope.CallerOf(ctx, p)
	if !pol.Visible(c.Principal, policy.Tool, tool) {
		if !listing {
			e.m.PolicyDenials.WithLabelValues(c.Label(), policy.Tool.String()).Inc()
		}
		return fmt.Errorf("the task's tool %q is denied by policy", tool)
	}
	return nil
}

// subscriber is a source whose resources the gateway subscribes to on the
// source's side when a client subscribes (an upstream server).
type subscriber interface {
	Subscribe(ctx context.Context, ownURI string) error
}

// logLeveler is a source told of a client's logging/setLevel (an
// upstream whose shared session serves every client: the gateway filters
// what it forwards by each client's level, and asks the upstream for the
// most verbose one).
type logLeveler interface {
	SetLogLevel(ctx context.Context, level mcp.LoggingLevel)
}

// upstreamHooks subscribe an upstream to a resource a client subscribed
// to, so that its notifications/resources/updated reach the client, and
// pass a client's logging level on.
func (e *Endpoint) upstreamHooks(h *server.Hooks) {
	h.AddAfterSetLevel(func(ctx context.Context, _ any, req *mcp.SetLevelRequest, _ *mcp.EmptyResult) {
		p := e.cur.Load()
		if p == nil {
			return
		}
		for _, src := range p.sources() {
			if l, ok := src.(logLeveler); ok {
				l.SetLogLevel(ctx, req.Params.Level)
			}
		}
	})
	h.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		p := e.cur.Load()
		if p == nil {
			return
		}
		uri := req.Params.URI
		x := p.SessionIndex(ctx)
		r := x.Resources[uri]
		if r == nil {
			r = x.TemplateFor(uri)
		}
		if r == nil {
			return
		}
		sub, ok := r.Src.(subscriber)
		if !ok {
			return
		}
		own, _, ok := r.Own(uri)
		if !ok {
			return
		}
		if err := sub.Subscribe(context.WithoutCancel(ctx), own); err != nil {
			e.log.Warn("resources/subscribe could not be passed on", "source", r.Src.Name(), "uri", short(uri), "error", err)
		}
	})
}
