package gateway

import (
	"context"

	"github.com/wasmgate/wasmgate/gateway/ops"
	"github.com/wasmgate/wasmgate/gateway/plugin"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/gateway/upstream"
	"github.com/wasmgate/wasmgate/internal/refcount"
	"github.com/wasmgate/wasmgate/loader"
)

// Component is one config-driven part of a snapshot: identity and policy,
// the audit log, the plugins, the relay sites (and, as they come,
// upstream servers, the state store, tracing). A snapshot is the ordered
// list of its provisioned components, built in the order components()
// returns them; every component has the same lifecycle, as Caddy gives
// its modules:
//
//	Reuse(prev)        optional (Reuser): take over what the serving
//	                   snapshot's component of the same Name has and
//	                   cfg leaves unchanged (compiled plugins)
//	Provision(ctx, cfg) build from cfg; nothing that serves changes
//	Validate()         optional (Validator): checks after every
//	                   component provisioned
//	Apply(ctx)         optional (Applier): once the snapshot serves
//	Retire(next)       optional (Retirer): the snapshot was replaced
//	                   by one built anew
//	Cleanup(ctx)       release; safe after a partial or failed Provision
//
// A component that provides tools is a SourceProvider; the snapshot
// indexes its sources with everyone else's.
type Component interface {
	// Name is unique among the components; Reuse is given the serving
	// snapshot's component of the same Name.
	Name() string
	Provision(ctx context.Context, cfg *loader.Config) error
	Cleanup(ctx context.Context)
}

// Reuser is a component that takes over what the serving snapshot's
// component of the same name has built, where the config leaves it
// unchanged; prev is that component (its own type).
type Reuser interface{ Reuse(prev any) }

// Validator is a component with checks that run once every component of
// the snapshot has been provisioned.
type Validator interface{ Validate() error }

// Applier is a component with something to do once its snapshot serves
// (and never for a snapshot that failed to build).
type Applier interface{ Apply(ctx context.Context) }

// Retirer is a component told that its snapshot was replaced by one
// built anew; next is the new snapshot's component of the same name, or
// nil.
type Retirer interface{ Retire(next any) }

// SourceProvider is a component that provides tool sources.
type SourceProvider interface{ Sources() []source.Source }

// Dynamic is a SourceProvider whose sources change while they serve (the
// pages of relay sites): what one of them cannot publish (a name another
// source has) is reported to it, never failing a build.
type Dynamic interface{ Dynamic() bool }

// Staler is a Dynamic component whose sources changed since the
// snapshot indexed them: the snapshot must be indexed again.
type Staler interface{ Stale() bool }

// Differ is a component that says what changed from prev, one line per
// change, for the status page.
type Differ interface{ Changes(prev any) []string }

// newParts are the components of a new snapshot, in provision order;
// adding a kind of source or another config-driven part is one line in
// the list.
func (g *Gateway) newParts() *parts {
	p := &parts{id: &identity{limiters: g.limiters, logger: g.log}, plugins: plugin.New(g.plugins)}
	p.list = []Component{
		&stateComponent{g: g},
		p.id,
		&auditComponent{a: g.audit},
		p.plugins,
		g.relay.Component(),
		g.tracer.Component(g.log),
		g.signer.Component(),
		upstream.New(g.upstreamHost()),
	}
	p.refs.Init()
	return p
}

// parts are the provisioned components of a snapshot, shared by the
// snapshots indexed again from it (a page registered, a plugin relisted),
// and cleaned up, in reverse order, when the last of them closes.
type parts struct {
	list []Component
	refs refcount.Count

	// The core's own handles on two of them.
	id      *identity
	plugins *plugin.Component
}

// retain holds p for one more snapshot (one indexed again from the
// serving snapshot, which holds p: it always succeeds).
func (p *parts) retain() *parts {
	p.refs.Retain()
	return p
}

func (p *parts) release(ctx context.Context) {
	if !p.refs.Release() {
		return
	}
	for i := len(p.list) - 1; i >= 0; i-- {
		p.list[i].Cleanup(ctx)
	}
}

// retire tells each component that next replaces it.
func (p *parts) retire(next *parts) {
	byName := map[string]Component{}
	for _, c := range next.list {
		byName[c.Name()] = c
	}
	for _, c := range p.list {
		if r, ok := c.(Retirer); ok {
			var n any
			if nc, ok := byName[c.Name()]; ok {
				n = nc
			}
			r.Retire(n)
		}
	}
}

// provision builds parts from cfg, reusing what prev (the serving
// snapshot's, or nil) has. On error, everything provisioned is cleaned up.
func (g *Gateway) provision(ctx context.Context, cfg *loader.Config, prev *parts) (*parts, error) {
	p := g.newParts()
	old := map[string]Component{}
	if prev != nil {
		for _, c := range prev.list {
			old[c.Name()] = c
		}
	}
	fail := func(err error) (*parts, error) {
		p.release(context.WithoutCancel(ctx))
		return nil, err
	}
	for _, c := range p.list { // on error, all are cleaned up, provisioned or not
		if r, ok := c.(Reuser); ok && old[c.Name()] != nil {
			r.Reuse(old[c.Name()])
		}
		if err := c.Provision(ctx, cfg); err != nil {
			return fail(err)
		}
	}
	for _, c := range p.list {
		if v, ok := c.(Validator); ok {
			if err := v.Validate(); err != nil {
				return fail(err)
			}
		}
	}
	return p, nil
}

// auditComponent applies the audit section to the gateway's audit log,
// which outlives snapshots (audit.file is reopened on every reload).
type auditComponent struct {
	a   *ops.Audit
	cfg loader.Audit
}

func (c *auditComponent) Name() string { return "audit" }

func (c *auditComponent) Provision(_ context.Context, cfg *loader.Config) error {
	c.cfg = cfg.Audit
	return nil
}

func (c *auditComponent) Apply(context.Context)   { c.a.Apply(c.cfg) }
func (c *auditComponent) Cleanup(context.Context) {}
