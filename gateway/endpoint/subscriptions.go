package endpoint

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

// subscriptions are the resources/subscribe of each session of an
// endpoint: exposed URI by session id. A URI is admitted only when the
// endpoint publishes it and its caller may read it, within
// server.max_subscriptions_per_session and server.max_subscription_uri
// (see subscribeFilter); an update is sent only to the subscribers that
// may still read the URI when it is sent (see DeliverUpdate).
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
// the URIs must be within the caps, published by the endpoint and
// readable by the caller. A resources/subscribe admitted is recorded
// here; a subscriptions/listen keeps its URIs on its own stream.
func (e *Endpoint) subscribeFilter(ctx context.Context, uris []string, listen bool) error {
	p := e.cur.Load()
	if p == nil {
		return fmt.Errorf("resources/subscribe refused: wasmgate is starting")
	}
	sc := &p.config().Server
	if len(uris) > sc.MaxSubscriptions {
		e.m.SubscriptionsRefused.WithLabelValues("too_many").Inc()
		return fmt.Errorf("subscriptions/listen refused: %d resource subscriptions, more than the %d a session may hold (server.max_subscriptions_per_session)", len(uris), sc.MaxSubscriptions)
	}
	who, x := envelope.CallerOf(ctx, p).Principal, p.SessionIndex(ctx)
	for _, uri := range uris {
		if err := e.subscribable(p, x, who, uri); err != nil {
			return err
		}
	}
	session := server.ClientSessionFromContext(ctx)
	if listen || session == nil {
		return nil
	}
	id := session.SessionID()
	e.subs.mu.Lock()
	defer e.subs.mu.Unlock()
	held := e.subs.m[id]
	if held[uris[0]] {
		return nil // subscribing twice is one subscription
	}
	if len(held) >= sc.MaxSubscriptions {
		e.m.SubscriptionsRefused.WithLabelValues("too_many").Inc()
		return fmt.Errorf("resources/subscribe refused: this session already holds %d subscriptions, the most it may (server.max_subscriptions_per_session); unsubscribe from some first", len(held))
	}
	if held == nil {
		held = map[string]bool{}
		e.subs.m[id] = held
	}
	held[uris[0]] = true
	return nil
}

// subscribable reports why principal who may not subscribe to uri in
// p, whose index the session sees is x, or nil. A URI nobody serves and
// one who may not read get the same answer, so that subscribing does not
// tell which URIs exist.
func (e *Endpoint) subscribable(p *published, x *source.Index, who policy.Principal, uri string) error {
	if max := int(p.config().Server.MaxSubscriptionURI); len(uri) > max {
		e.m.SubscriptionsRefused.WithLabelValues("uri_too_long").Inc()
		return fmt.Errorf("resources/subscribe refused: the URI is %d bytes, longer than the %d allowed (server.max_subscription_uri)", len(uri), max)
	}
	vars, served := serves(x, uri)
	reason := ""
	switch {
	case !served:
		reason = "not_served"
	case !p.Policy().Decide(policy.Request{Principal: who, Kind: policy.Resource, Name: uri, Args: envelope.ArgsOf(vars)}).Allowed:
		reason = "denied"
	default:
		return nil
	}
	e.m.SubscriptionsRefused.WithLabelValues(reason).Inc()
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

// DeliverUpdate sends notifications/resources/updated for uri to the
// endpoint's sessions subscribed to it whose caller may still read it
// in what the endpoint serves (a reload may have taken the right away
// since they subscribed). It returns how many it told.
func (e *Endpoint) DeliverUpdate(uri string) int {
	var to []string
	e.subs.mu.Lock()
	for id, uris := range e.subs.m {
		if uris[uri] {
			to = append(to, id)
		}
	}
	e.subs.mu.Unlock()
	if len(to) == 0 {
		return 0
	}
	p := e.cur.Load()
	if p == nil {
		return 0
	}
	n := 0
	for _, id := range to {
		vars, served := serves(p.sessionIndex(id), uri)
		vw, known := e.sessions.get(id)
		if !known {
			e.log.Debug("resource update not sent: the session is gone", "session", id, "uri", short(uri))
			continue
		}
		req := policy.Request{Principal: vw.caller(p).Principal, Kind: policy.Resource, Name: uri, Args: envelope.ArgsOf(vars)}
		if !served || !p.Policy().Decide(req).Allowed {
			e.log.Debug("resource update not sent: the subscriber may no longer read it", "session", id, "uri", short(uri))
			continue
		}
		e.send(id, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri})
		n++
	}
	return n
}
