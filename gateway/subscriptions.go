package gateway

import (
	"context"
	"fmt"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/policy"
)

// subscriptions are the resources/subscribe of each session: exposed URI
// by session id. A URI is admitted only when a source of the serving
// snapshot serves it and its caller may read it, within
// server.max_subscriptions_per_session and server.max_subscription_uri
// (see admit); an update is sent only to the subscribers that may still
// read the URI when it is sent (see updated).
type subscriptions struct {
	mu sync.Mutex
	m  map[string]map[string]bool
}

func (s *subscriptions) hooks(h *server.Hooks) {
	h.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		session := server.ClientSessionFromContext(ctx)
		if session == nil {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.m[session.SessionID()], req.Params.URI)
		if len(s.m[session.SessionID()]) == 0 {
			delete(s.m, session.SessionID())
		}
	})
	h.AddOnUnregisterSession(func(_ context.Context, session server.ClientSession) {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.m, session.SessionID())
	})
}

// subscribeFilter is mcp-go's check of every resources/subscribe and
// subscriptions/listen (a wasmgate patch, third_party/mcp-go/PATCHES.md):
// the URIs must be within the caps, served by a source of the serving
// snapshot and readable by the caller. A resources/subscribe admitted is
// recorded here; a subscriptions/listen keeps its URIs on its own stream.
func (g *Gateway) subscribeFilter(ctx context.Context, uris []string, listen bool) error {
	s := g.cur.Load()
	if s == nil {
		return fmt.Errorf("resources/subscribe refused: wasmgate is starting")
	}
	sc := &s.Config.Server
	if len(uris) > sc.MaxSubscriptions {
		g.opts.Metrics.SubscriptionsRefused.WithLabelValues("too_many").Inc()
		return fmt.Errorf("subscriptions/listen refused: %d resource subscriptions, more than the %d a session may hold (server.max_subscriptions_per_session)", len(uris), sc.MaxSubscriptions)
	}
	p, x := envelope.CallerOf(ctx, s).Principal, s.SessionIndex(ctx)
	for _, uri := range uris {
		if err := g.subscribable(s, x, p, uri); err != nil {
			return err
		}
	}
	session := server.ClientSessionFromContext(ctx)
	if listen || session == nil {
		return nil
	}
	id := session.SessionID()
	g.subs.mu.Lock()
	defer g.subs.mu.Unlock()
	held := g.subs.m[id]
	if held[uris[0]] {
		return nil // subscribing twice is one subscription
	}
	if len(held) >= sc.MaxSubscriptions {
		g.opts.Metrics.SubscriptionsRefused.WithLabelValues("too_many").Inc()
		return fmt.Errorf("resources/subscribe refused: this session already holds %d subscriptions, the most it may (server.max_subscriptions_per_session); unsubscribe from some first", len(held))
	}
	if held == nil {
		held = map[string]bool{}
		g.subs.m[id] = held
	}
	held[uris[0]] = true
	return nil
}

// subscribable reports why principal p may not subscribe to uri in s,
// whose index the session sees is x, or nil. A URI nobody serves and one
// p may not read get the same answer, so that subscribing does not tell
// which URIs exist.
func (g *Gateway) subscribable(s *Snapshot, x *source.Index, p policy.Principal, uri string) error {
	if max := int(s.Config.Server.MaxSubscriptionURI); len(uri) > max {
		g.opts.Metrics.SubscriptionsRefused.WithLabelValues("uri_too_long").Inc()
		return fmt.Errorf("resources/subscribe refused: the URI is %d bytes, longer than the %d allowed (server.max_subscription_uri)", len(uri), max)
	}
	vars, served := serves(x, uri)
	reason := ""
	switch {
	case !served:
		reason = "not_served"
	case !s.Policy().Decide(policy.Request{Principal: p, Kind: policy.Resource, Name: uri, Args: envelope.ArgsOf(vars)}).Allowed:
		reason = "denied"
	default:
		return nil
	}
	g.opts.Metrics.SubscriptionsRefused.WithLabelValues(reason).Inc()
	return fmt.Errorf("resources/subscribe refused: %s is not a resource you may read (no source serves it, or policy does not let you read it): %w",
		short(uri), mcp.ErrResourceNotFound)
}

// serves reports whether a source of x serves uri: a static resource, or
// a URI matching a template (with the template's variables).
func serves(x *source.Index, uri string) (vars map[string]string, ok bool) {
	if _, ok := x.Resources[uri]; ok {
		return nil, true
	}
	if t := x.TemplateFor(uri); t != nil {
		return t.Match.Match(uri)
	}
	return nil, false
}

// short quotes uri for a message, cut to a readable length.
func short(uri string) string {
	const max = 120
	if len(uri) > max {
		return fmt.Sprintf("%q… (%d bytes)", uri[:max], len(uri))
	}
	return fmt.Sprintf("%q", uri)
}

// updated is a source's update of uri: the sessions subscribed to it
// here are told (deliverUpdate), and with state.backend redis so are
// those on the other replicas (state.Store.PublishUpdate).
func (g *Gateway) updated(uri string) {
	g.deliverUpdate(uri)
	if st := g.state.Load(); st != nil {
		st.PublishUpdate(uri)
	}
}

// deliverUpdate sends notifications/resources/updated for uri to the
// sessions subscribed to it here whose caller may still read it in the
// serving snapshot (a reload may have taken the right away since they
// subscribed).
func (g *Gateway) deliverUpdate(uri string) {
	var to []string
	g.subs.mu.Lock()
	for id, uris := range g.subs.m {
		if uris[uri] {
			to = append(to, id)
		}
	}
	g.subs.mu.Unlock()
	g.log.Debug("resource updated", "uri", short(uri), "subscribers", len(to))
	if len(to) == 0 {
		return
	}
	s := g.cur.Load()
	if s == nil {
		return
	}
	for _, id := range to {
		vars, _ := serves(s.sessionIndex(id), uri)
		g.views.mu.Lock()
		vw, known := g.views.sessions[id]
		g.views.mu.Unlock()
		if !known {
			g.log.Debug("resource update not sent: the session is gone", "session", id, "uri", short(uri))
			continue
		}
		req := policy.Request{Principal: vw.caller(s).Principal, Kind: policy.Resource, Name: uri, Args: envelope.ArgsOf(vars)}
		if !s.Policy().Decide(req).Allowed {
			g.log.Debug("resource update not sent: the subscriber may no longer read it", "session", id, "uri", short(uri))
			continue
		}
		if err := g.mcp.SendNotificationToSpecificClient(id, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri}); err != nil {
			g.log.Debug("resource update not delivered", "session", id, "error", err)
		}
	}
}
