package endpoint

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/intercept"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/policy"
)

// Public is what an anonymous caller of the endpoint over HTTP would be
// listed: what a server card may show (package servercard). A nil list
// shows nothing of that kind.
type Public struct {
	Tools     []mcp.Tool
	Resources []mcp.Resource
	Prompts   []mcp.Prompt
}

// Public is what an anonymous HTTP caller would be listed now: nothing
// when such a caller cannot use the endpoint (anonymous false: the
// listener authenticates every request; or the endpoint's access leaves
// anonymous out); else each list as policy filters it for the principal
// anonymous, what the lock file withholds left out, and in search mode
// the meta-tools with the pinned tools. A list an interceptor sees is
// left out whole: what it would make of the list depends on the call.
func (e *Endpoint) Public(ctx context.Context, anonymous bool) Public {
	p := e.cur.Load()
	if p == nil || !anonymous || !p.cfg.Access.Allows(envelope.Anonymous.Name, envelope.Anonymous.Groups) {
		return Public{}
	}
	ctx = envelope.WithCaller(ctx, envelope.Caller{Principal: envelope.Anonymous, Transport: envelope.TransportHTTP})
	sees := func(list int) bool {
		return p.Interceptors().Sees(listMethods[list], e.name, intercept.PhaseResponse)
	}
	var out Public
	// The endpoint's own lists, filtered as visibleList filters a
	// page of mcp-go's (a card's request has no session of its own).
	tools := func(x *source.Index) []mcp.Tool {
		return ownList(x.Tools, func(t *source.Tool) mcp.Tool { return t.Def }, func(t mcp.Tool) string { return t.Name })
	}
	resources := func(x *source.Index) []mcp.Resource {
		return ownList(x.Resources, func(r *source.Resource) mcp.Resource { return r.Resource }, func(r mcp.Resource) string { return r.URI })
	}
	prompts := func(x *source.Index) []mcp.Prompt {
		return ownList(x.Prompts, func(p *source.Prompt) mcp.Prompt { return p.Def }, func(p mcp.Prompt) string { return p.Name })
	}
	if !sees(listTools) {
		if p.find != nil {
			out.Tools = e.searchList(ctx, p)
		} else {
			out.Tools = visibleList(ctx, p, tools(p.index), "", tools,
				func(pol *policy.Policy, who policy.Principal, t mcp.Tool) bool {
					return pol.Visible(who, policy.Tool, t.Name)
				})
		}
	}
	if admits(p.cfg.Resources) && !sees(listResources) {
		out.Resources = visibleList(ctx, p, resources(p.index), "", resources,
			func(pol *policy.Policy, who policy.Principal, r mcp.Resource) bool {
				return pol.Visible(who, policy.Resource, r.URI)
			})
	}
	if admits(p.cfg.Prompts) && !sees(listPrompts) {
		out.Prompts = visibleList(ctx, p, prompts(p.index), "", prompts,
			func(pol *policy.Policy, who policy.Principal, x mcp.Prompt) bool {
				return pol.Visible(who, policy.Prompt, x.Name)
			})
	}
	return out
}

// Capabilities are the capabilities the endpoint announces at
// initialize, as a server card states them.
func (e *Endpoint) Capabilities() map[string]any {
	cfg := e.cfg.Load()
	resources, prompts := true, true
	if e.o.Custom {
		resources, prompts = admits(cfg.Resources), admits(cfg.Prompts)
	}
	caps := map[string]any{"tools": map[string]any{"listChanged": true}, "logging": map[string]any{}}
	if resources {
		caps["resources"] = map[string]any{"subscribe": true, "listChanged": true}
	}
	if prompts {
		caps["prompts"] = map[string]any{"listChanged": true}
	}
	if resources || prompts {
		caps["completions"] = map[string]any{}
	}
	return caps
}

// Version is the version the endpoint announces (serverInfo.version).
func (e *Endpoint) Version() string { return e.o.Version }
