package gateway

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wasmgate/wasmgate/gateway/endpoint"
	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/ops"
	"github.com/wasmgate/wasmgate/gateway/transport"
	"github.com/wasmgate/wasmgate/internal/plural"
	"github.com/wasmgate/wasmgate/loader"
)

// endpoints are the endpoints the gateway publishes (package endpoint),
// in config order: created, changed and removed as the serving config's
// endpoints section says, each given every snapshot the gateway serves,
// and routed on the MCP listener (router) once it serves one.
type endpoints struct {
	g *Gateway

	mu     sync.RWMutex
	list   []*endpoint.Endpoint
	byName map[string]*endpoint.Endpoint
	http   map[*endpoint.Endpoint]transport.Served // once the listener runs
	empty  map[*endpoint.Endpoint]bool             // published nothing (warned once)
	// unpinned are the discovery.pinned entries of each endpoint that
	// match no tool (warned once each time they change).
	unpinned map[*endpoint.Endpoint]string

	router   *transport.Router // nil until the MCP listener starts
	listener transport.Options // the listener's options, for each endpoint's handler
	removing sync.WaitGroup    // endpoints removed, ending their sessions
}

func newEndpoints(g *Gateway) *endpoints {
	return &endpoints{g: g, byName: map[string]*endpoint.Endpoint{}, http: map[*endpoint.Endpoint]transport.Served{},
		empty: map[*endpoint.Endpoint]bool{}, unpinned: map[*endpoint.Endpoint]string{}}
}

// publish makes the endpoints those of s's config and gives each s;
// an endpoint new to the config serves s before it is routed, one gone
// from it is unrouted, then ended. Call with applyMu.
func (es *endpoints) publish(s *Snapshot) {
	cfgs := s.Config.EndpointList()
	custom := len(s.Config.Endpoints) > 0
	es.mu.Lock()
	var gone []*endpoint.Endpoint
	next := make([]*endpoint.Endpoint, 0, len(cfgs))
	byName := make(map[string]*endpoint.Endpoint, len(cfgs))
	for _, c := range cfgs {
		e := es.byName[c.Name]
		if e != nil && (e.Replaces(c) || es.custom(e) != custom) {
			gone, e = append(gone, e), nil
		}
		if e == nil {
			e = es.newEndpoint(c, custom)
		}
		next = append(next, e)
		byName[c.Name] = e
	}
	for name, e := range es.byName {
		if byName[name] != e && !slices.Contains(gone, e) {
			gone = append(gone, e)
		}
	}
	es.list, es.byName = next, byName
	es.mu.Unlock()
	for i, e := range next {
		e.Publish(s, cfgs[i])
		x := e.Index()
		empty := len(x.Tools)+len(x.Resources)+len(x.Templates)+len(x.Prompts) == 0
		if empty && custom && !es.empty[e] {
			es.g.log.Warn("endpoint publishes nothing: its selection matches no tool, resource or prompt of its sources",
				"endpoint", e.Name(), "key", cfgs[i].Key, "sources", strings.Join(cfgs[i].Sources, ","))
		}
		es.empty[e] = empty
		if miss := strings.Join(e.PinnedUnmatched(), ", "); miss != es.unpinned[e] {
			es.unpinned[e] = miss
			if miss != "" {
				es.g.log.Warn("discovery.pinned matches no tool of the endpoint (yet): nothing is pinned for it", "endpoint", e.Name(), "pinned", miss)
			}
		}
	}
	es.route()
	for _, e := range gone {
		delete(es.empty, e)
		delete(es.unpinned, e)
		es.remove(e)
	}
}

// custom reports whether e was made for an endpoints section.
func (es *endpoints) custom(e *endpoint.Endpoint) bool {
	return e.Config().Key != "transports.http.path"
}

func (es *endpoints) newEndpoint(c loader.Endpoint, custom bool) *endpoint.Endpoint {
	g := es.g
	return endpoint.New(endpoint.Options{
		Config: c, Name: g.opts.Name, Version: g.opts.Version, Custom: custom,
		Logger: g.log, Metrics: g.opts.Metrics, Calls: &g.calls,
		Envelope: envelope.Options{
			Limiters:  g.limiters,
			Metrics:   g.opts.Metrics,
			Observer:  envelope.Observers{envelope.NewMetrics(g.opts.Metrics), g.audit, g.status},
			Logger:    g.log,
			Tracer:    g.tracer.TracerFor,
			Signer:    g.signer,
			Connected: g.connected,
			Taint:     g.flowStore,
			Elicit:    endpoint.Clients{Endpoints: g.eps}.RequestElicitation,
		},
	})
}

// remove takes e off the listener and ends it once its calls have
// finished (within server.shutdown_timeout).
func (es *endpoints) remove(e *endpoint.Endpoint) {
	es.mu.Lock()
	served := es.http[e]
	delete(es.http, e)
	es.mu.Unlock()
	timeout := 30 * time.Second
	if s := es.g.cur.Load(); s != nil {
		timeout = time.Duration(s.Config.Server.ShutdownTimeout)
	}
	es.removing.Add(1)
	go func() {
		defer es.removing.Done()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		e.Remove(ctx, served.Server)
	}()
}

// serveHTTP routes the endpoints on the MCP listener with o (path,
// MCP, Scope, Owns and Allow are each endpoint's).
func (es *endpoints) serveHTTP(o transport.Options) *transport.Router {
	es.mu.Lock()
	es.router, es.listener = transport.NewRouter(), o
	es.router.SetCatalog(http.HandlerFunc(es.catalog))
	es.mu.Unlock()
	es.route()
	return es.router
}

// route gives each endpoint a handler on the listener (once) and routes
// the serving ones, with the relay's pages beside them.
func (es *endpoints) route() {
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.router == nil || len(es.list) == 0 {
		return
	}
	routes := map[string]transport.Served{}
	for _, e := range es.list {
		served, ok := es.http[e]
		if !ok {
			o := es.listener
			o.Path, o.MCP, o.Owns, o.Card = e.Config().Path, e.MCPServer(), e.Owns, es.card(e)
			if es.custom(e) {
				o.Scope, o.Allow = e.Name(), e.Allowed
			}
			served = transport.Endpoint(o)
			es.http[e] = served
		}
		routes[e.Config().Path] = served
	}
	mounts := map[string]http.Handler{}
	if s := es.g.cur.Load(); s != nil {
		// The browser relay checks its own origins and tokens.
		mounts[s.Config.Relay.Path+"/"] = es.g.relay.Handler()
		mounts[loader.OAuthPath+"/"] = es.g.oauthHandler()
	}
	es.router.Set(es.list[0].Config().Path, routes, mounts)
}

// Stdio is the endpoint the stdio transport serves.
func (es *endpoints) Stdio() *endpoint.Endpoint {
	s := es.g.cur.Load()
	es.mu.RLock()
	defer es.mu.RUnlock()
	if s != nil {
		if e := es.byName[s.Config.StdioEndpoint()]; e != nil {
			return e
		}
	}
	return es.list[0]
}

// all are the serving endpoints.
func (es *endpoints) all() []*endpoint.Endpoint {
	es.mu.RLock()
	defer es.mu.RUnlock()
	return slices.Clone(es.list)
}

// Holding is the endpoint session is one of, nil if none.
func (es *endpoints) Holding(session string) *endpoint.Endpoint {
	for _, e := range es.all() {
		if e.Has(session) {
			return e
		}
	}
	return nil
}

// closeSessions ends the GET streams of every endpoint's sessions
// (shutdown).
func (es *endpoints) closeSessions(ctx context.Context) {
	es.mu.RLock()
	served := slices.Collect(maps.Values(es.http))
	es.mu.RUnlock()
	for _, s := range served {
		s.Server.CloseSessions(ctx)
	}
}

// status is the status page's endpoints section.
func (es *endpoints) status() []ops.EndpointStatus {
	out := []ops.EndpointStatus{}
	for _, e := range es.all() {
		c := e.Config()
		st := ops.EndpointStatus{Name: e.Name(), Path: c.Path, Sources: c.Sources, Title: c.Title}
		if x := e.Index(); x != nil {
			st.Tools, st.Resources, st.Prompts = len(x.Tools), len(x.Resources)+len(x.Templates), len(x.Prompts)
		}
		st.Discovery, st.Indexed = e.Discovery()
		st.Sessions, st.StdioSessions = e.Sessions()
		st.Access = accessNames(c.Access)
		out = append(out, st)
	}
	return out
}

// accessNames is who access lets in, as the status page and validate
// show it: its principals, then its groups as "group:<name>"; none when
// it lets everyone in.
func accessNames(a loader.Access) []string {
	out := slices.Clone(a.Principals)
	for _, g := range a.Groups {
		out = append(out, "group:"+g)
	}
	return out
}

// EndpointReport describes each endpoint in a line, as `wasmgate
// validate` prints it: its name, path, who may use it and its catalog.
// Without an endpoints section it says nothing (the one endpoint is
// everything the summary says).
func (g *Gateway) EndpointReport() []string {
	if s := g.cur.Load(); s == nil || len(s.Config.Endpoints) == 0 {
		return nil
	}
	var out []string
	for _, e := range g.eps.all() {
		c, x := e.Config(), e.Index()
		if x == nil {
			continue
		}
		who := "everyone policy lets in"
		if !c.Access.Open() {
			who = strings.Join(accessNames(c.Access), ", ")
		}
		tools := x.ToolNames()
		if len(tools) == 0 {
			tools = []string{"none"}
		}
		line := fmt.Sprintf("endpoint %q (%s, %s): for %s; %s (%s), %s, %s", c.Name, c.Path, c.Key, who,
			plural.N(len(x.Tools), "tool"), strings.Join(tools, ", "), plural.N(len(x.Resources)+len(x.Templates), "resource"),
			plural.N(len(x.Prompts), "prompt"))
		if mode, n := e.Discovery(); mode == loader.DiscoverySearch {
			line += fmt.Sprintf("; discovery: search over %s, find_tools and call_tool listed", plural.N(n, "tool"))
			if len(c.Discovery.Pinned) > 0 {
				line += ", pinned " + strings.Join(c.Discovery.Pinned, ", ")
			}
		}
		out = append(out, line)
	}
	return out
}
