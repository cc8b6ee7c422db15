package endpoint

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/intercept"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader/abi"
)

// Caching hints of list results (SEP-2549, protocol 2026-07-28): each
// list carries ttlMs, the smallest of the endpoint's lists.ttl and the
// hints of the sources whose entries it holds, and cacheScope, private
// when the list was made for its caller (or a source said private),
// public otherwise. A source's hints are never widened: its ttl is never
// raised, its private never made public. Requests of the 2025-11-25 era
// get no hints (the fields are not theirs); mcp-go leaves them alone.

// The lists, in listChanged's order.
const (
	listTools = iota
	listResources
	listTemplates
	listPrompts
)

// listMethods are the list methods, by list.
var listMethods = [4]string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"}

// sourceHints are the caching hints the sources of p's lists gave, by
// list: the sources of the entries each list holds.
func (p *published) sourceHints() [4]abi.CacheHint {
	p.hintsOnce.Do(func() {
		x := p.index
		// By name: a source may be a value of a type that is not
		// comparable (a relay site), which a map key cannot hold.
		var seen [4]map[string]bool
		add := func(list int, src source.Source) {
			if src == nil || seen[list][src.Name()] {
				return
			}
			if seen[list] == nil {
				seen[list] = map[string]bool{}
			}
			seen[list][src.Name()] = true
			c := src.Descriptor().Cache
			h := [4]abi.CacheHint{c.Tools, c.Resources, c.Templates, c.Prompts}[list]
			p.hints[list] = merge(p.hints[list], h)
		}
		for _, t := range x.Tools {
			add(listTools, t.Src)
		}
		for _, r := range x.Resources {
			add(listResources, r.Src)
		}
		for _, r := range x.Templates {
			add(listTemplates, r.Src)
		}
		for _, pr := range x.Prompts {
			add(listPrompts, pr.Src)
		}
	})
	return p.hints
}

// merge is a and b together: the smaller ttl, private if either is.
func merge(a, b abi.CacheHint) abi.CacheHint {
	if b.HasTTL && (!a.HasTTL || b.TTL < a.TTL) {
		a.TTL, a.HasTTL = b.TTL, true
	}
	a.Private = a.Private || b.Private
	return a
}

// listHints is what a list result of p carries for the caller of ctx:
// its ttl and whether it is private.
func (e *Endpoint) listHints(ctx context.Context, p *published, list int) (time.Duration, bool) {
	h := merge(abi.CacheHint{TTL: p.config().ListTTL(p.cfg), HasTTL: true}, p.sourceHints()[list])
	return h.TTL, h.Private || e.perCaller(ctx, p, list)
}

// perCaller reports whether the list of ctx's caller may differ from
// another caller's: a policy (lists are filtered per principal), an
// endpoint open only to some (access), the session's own view (a
// session-scoped instance's relist, search additions), an interceptor
// that sees the list, or a search endpoint's tools (find_tools'
// description counts what the caller may use).
func (e *Endpoint) perCaller(ctx context.Context, p *published, list int) bool {
	return p.Policy() != nil ||
		!p.cfg.Access.Open() ||
		p.sessionLists(ctx) != nil ||
		(list == listTools && p.find != nil) ||
		p.Interceptors().Sees(listMethods[list], e.name, intercept.PhaseResponse)
}

// setHints puts the caching hints on res, a list result of p, when the
// request of ctx is of the 2026-07-28 era.
func (e *Endpoint) setHints(ctx context.Context, p *published, list int, res *mcp.CacheableResult) {
	if !server.IsModernRequest(ctx) {
		return
	}
	ttl, private := e.listHints(ctx, p, list)
	scope := mcp.CacheScopePublic
	if private {
		scope = mcp.CacheScopePrivate
	}
	res.SetCacheHints(ttl.Milliseconds(), scope)
}
