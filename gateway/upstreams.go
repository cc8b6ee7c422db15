package gateway

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/upstream"
)

// upstreamHost is what upstream servers use of the gateway; it holds no
// state, so each snapshot's upstreams component gets a new one.
func (g *Gateway) upstreamHost() *upstream.Host {
	h := &upstream.Host{Logger: g.log, MCP: g.mcp, Metrics: g.opts.Metrics, Changed: g.upstreamChanged, ResourceUpdated: g.updated,
		ParkTTL: g.signer.TTL, Principal: g.principalName}
	if g.opts.Compiler != nil {
		h.Own = g.opts.Compiler.Listeners()
	}
	return h
}

// principalName is the name of the principal making the call of ctx.
func (g *Gateway) principalName(ctx context.Context) string {
	s := g.cur.Load()
	if s == nil {
		return ""
	}
	return envelope.CallerOf(ctx, s).Principal.Name
}

// upstreamChanged is told that an upstream's lists changed (it said
// list_changed, or reconnected with other lists): the serving snapshot is
// indexed again if one of its components went stale, as for a relay
// page, so sessions get list_changed.
func (g *Gateway) upstreamChanged() {
	g.applyMu.Lock()
	defer g.applyMu.Unlock()
	cur := g.cur.Load()
	if cur == nil {
		return
	}
	for _, c := range cur.parts.list {
		if st, ok := c.(Staler); ok && st.Stale() {
			g.swap(g.reindex(cur))
			return
		}
	}
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
func (g *Gateway) upstreamHooks(h *server.Hooks) {
	h.AddAfterSetLevel(func(ctx context.Context, _ any, req *mcp.SetLevelRequest, _ *mcp.EmptyResult) {
		s := g.cur.Load()
		if s == nil {
			return
		}
		for src := range s.sources {
			if l, ok := src.(logLeveler); ok {
				l.SetLogLevel(ctx, req.Params.Level)
			}
		}
	})
	h.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		s := g.cur.Load()
		if s == nil {
			return
		}
		uri := req.Params.URI
		x := s.Index()
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
			g.log.Warn("resources/subscribe could not be passed on", "source", r.Src.Name(), "uri", short(uri), "error", err)
		}
	})
}
