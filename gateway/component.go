package gateway

import (
	"context"
	"net/http"
	"sync"

	"github.com/wasmgate/wasmgate/gateway/component"
	"github.com/wasmgate/wasmgate/gateway/intercept"
	"github.com/wasmgate/wasmgate/gateway/ops"
	"github.com/wasmgate/wasmgate/gateway/plugin"
	"github.com/wasmgate/wasmgate/gateway/search/rerank"
	"github.com/wasmgate/wasmgate/gateway/skillset"
	"github.com/wasmgate/wasmgate/gateway/upstream"
	"github.com/wasmgate/wasmgate/internal/refcount"
	"github.com/wasmgate/wasmgate/loader"
)

// newParts are the components of a new snapshot, in provision order;
// adding a kind of source or another config-driven part is one line in
// the list.
func (g *Gateway) newParts() *parts {
	p := &parts{id: &identity{limiters: g.limiters, logger: g.log}, plugins: plugin.New(g.plugins),
		rankers: rerank.NewComponent(&rerank.Host{Logger: g.log, Compiler: g.plugins.Compiler, Slots: g.plugins.Slots}),
		icpts: intercept.NewComponent(&intercept.Host{Logger: g.log, Compiler: g.plugins.Compiler, Slots: g.plugins.Slots, Remote: g.remoteInterceptor,
			Approve: g.trust.InterceptorModules})}
	st := &stateComponent{g: g}
	p.ups = upstream.New(g.upstreamHost())
	p.skills = skillset.New(g.log, g.plugins.Compiler)
	p.list = []component.Part{
		component.Bind(st),
		component.Bind(&credentialsComponent{g: g, st: st}),
		component.Bind(p.id),
		component.Bind(&auditComponent{a: g.audit}),
		component.Bind(p.plugins),
		component.Bind(p.rankers),
		component.Bind(p.icpts),
		component.Bind(g.relay.Component()),
		component.Bind(g.tracer.Component(g.log)),
		component.Bind(g.signer.Component()),
		component.Bind(p.ups),
		component.Bind(p.skills),
	}
	p.refs.Init()
	return p
}

// parts are the provisioned components of a snapshot, shared by the
// snapshots indexed again from it (a page registered, a plugin relisted),
// and cleaned up, in reverse order, when the last of them closes.
type parts struct {
	list []component.Part
	refs refcount.Count

	// The core's own handles on three of them.
	id      *identity
	plugins *plugin.Component
	rankers *rerank.Component
	icpts   *intercept.Component
	ups     *upstream.Component
	skills  *skillset.Component

	connectOnce sync.Once
	connect     http.Handler // the user_oauth pages (oauthHandler); nil: none
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
	byName := next.byName()
	for _, c := range p.list {
		c.Retire(byName[c.Name()])
	}
}

// byName is each component of p by its name.
func (p *parts) byName() map[string]component.Component {
	m := make(map[string]component.Component, len(p.list))
	for _, c := range p.list {
		m[c.Name()] = c.Component
	}
	return m
}

// provision builds parts from cfg, reusing what prev (the serving
// snapshot's, or nil) has. On error, everything provisioned is cleaned up.
func (g *Gateway) provision(ctx context.Context, cfg *loader.Config, prev *parts) (*parts, error) {
	p := g.newParts()
	old := map[string]component.Component{}
	if prev != nil {
		old = prev.byName()
	}
	fail := func(err error) (*parts, error) {
		p.release(context.WithoutCancel(ctx))
		return nil, err
	}
	for _, c := range p.list { // on error, all are cleaned up, provisioned or not
		c.Reuse(old[c.Name()])
		if err := c.Provision(ctx, cfg); err != nil {
			return fail(err)
		}
	}
	for _, c := range p.list {
		if v, ok := c.Component.(component.Validator); ok {
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

var _ component.Applier = (*auditComponent)(nil)

func (c *auditComponent) Provision(_ context.Context, cfg *loader.Config) error {
	c.cfg = cfg.Audit
	return nil
}

func (c *auditComponent) Apply(context.Context)   { c.a.Apply(c.cfg) }
func (c *auditComponent) Cleanup(context.Context) {}
