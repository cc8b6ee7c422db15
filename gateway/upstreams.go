package gateway

import (
	"context"
	"path/filepath"

	"github.com/wasmgate/wasmgate/gateway/endpoint"
	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/upstream"
)

// upstreamHost is what upstream servers use of the gateway; it holds no
// state, so each snapshot's upstreams component gets a new one.
func (g *Gateway) upstreamHost() *upstream.Host {
	h := &upstream.Host{Logger: g.log, MCP: endpoint.Clients{Endpoints: g.eps}, Metrics: g.opts.Metrics, Lists: g, ResourceUpdated: g.updated,
		ParkTTL: g.signer.TTL, Principal: g.principalName, Grants: g.grants}
	if g.opts.Compiler != nil {
		h.Own = g.opts.Compiler.Listeners()
		if d := g.opts.Compiler.Dir(); d != "" {
			h.CatalogDir = filepath.Join(d, "catalogs")
		}
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

// updated is a source's update of uri: the sessions subscribed to it
// on every endpoint here are told (deliverUpdate), and with
// state.backend redis so are those on the other replicas
// (state.Store.PublishUpdate).
func (g *Gateway) updated(uri string) {
	g.deliverUpdate(uri)
	if st := g.state.Load(); st != nil {
		st.PublishUpdate(uri)
	}
}

// deliverUpdate tells each endpoint's subscribers of uri.
func (g *Gateway) deliverUpdate(uri string) {
	n := 0
	for _, e := range g.eps.all() {
		n += e.DeliverUpdate(uri)
	}
	g.log.Debug("resource updated", "uri", uri, "told", n)
}
