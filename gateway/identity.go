package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/gateway/transport"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/policy"
)

// Who is calling, and what they see: the identity component holds one
// snapshot's authenticator, policy, stdio principal and the HTTP
// transport's checks; the list handlers show each caller only what it
// may use.

// identity is the component of the auth and policy sections and
// transports.http's tokens and origins.
type identity struct {
	limiters *policy.Limiters // the gateway's, kept across reloads
	logger   *slog.Logger

	authn      *auth.Authenticator // nil: HTTP callers are anonymous
	pol        *policy.Policy      // nil: no policy section, everything allowed
	stdio      policy.Principal    // the stdio client
	adminToken config.Secret
	admin      loader.Admin
	http       *transport.State
}

func (id *identity) Name() string { return "identity" }

// Provision reads the tokens, sets up the authenticator (JWKS included),
// compiles the policy. transports.http.auth's token is one more
// principal, named loader.LegacyPrincipal.
func (id *identity) Provision(ctx context.Context, cfg *loader.Config) error {
	token, err := cfg.Transports.HTTP.Auth.Ref("transports.http.auth").Read(cfg.File, nil)
	if err != nil {
		return err
	}
	if id.adminToken, err = cfg.Admin.Auth.Ref("admin.auth").Read(cfg.File, nil); err != nil {
		return err
	}
	a := cfg.Auth
	if token.IsSet() {
		sum := sha256.Sum256([]byte(token.Value()))
		a.Principals = append(append([]auth.PrincipalConfig(nil), a.Principals...),
			auth.PrincipalConfig{Name: loader.LegacyPrincipal, TokenSHA256: hex.EncodeToString(sum[:])})
	}
	if a.Enabled() {
		if id.authn, err = auth.New(ctx, a, auth.Options{LookupEnv: os.LookupEnv, Logger: id.logger.With("component", "auth")}); err != nil {
			return err
		}
	}
	id.pol = cfg.Policy.Policy()
	id.stdio = policy.Principal{Name: cfg.Transports.Stdio.Principal}
	for _, p := range cfg.Auth.Principals {
		if p.Name == id.stdio.Name {
			id.stdio.Groups = p.Groups
		}
	}
	id.admin = cfg.Admin
	id.http = &transport.State{HTTP: cfg.Transports.HTTP, Identity: &transport.Identity{
		Authn: id.authn, JWT: cfg.Auth.JWT, Origins: transport.NewOrigins(cfg.Transports.HTTP.AllowedOrigins)}}
	return nil
}

// Apply keeps the rate limiters of the rules that still exist.
func (id *identity) Apply(context.Context) { id.limiters.Retain(id.pol) }

// Cleanup stops the authenticator (its JWKS refresh).
func (id *identity) Cleanup(context.Context) {
	if id.authn != nil {
		id.authn.Close()
	}
}

// Visibility of lists: each caller sees only what it may use. The lists
// are filtered after mcp-go builds them (hooks), not with mcp-go's tool
// and prompt filters: those also refuse a call of a hidden tool as "not
// found" before the gateway sees it, and a call must reach authorize to
// be denied by policy, counted and audited.

func (g *Gateway) filterTools(ctx context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
	s := g.cur.Load()
	if s == nil || res == nil {
		return
	}
	if own := s.sessionTools(ctx); own != nil && res.NextCursor == "" {
		res.Tools = own // a session with its own view (sessionview.go)
	}
	if s.Policy() == nil {
		return
	}
	p, pol := envelope.CallerOf(ctx, s).Principal, s.Policy()
	out := make([]mcp.Tool, 0, len(res.Tools)) // never nil: a list is a required array
	for _, t := range res.Tools {
		if pol.Visible(p, policy.Tool, t.Name) {
			out = append(out, t)
		}
	}
	res.Tools = out
}

func (g *Gateway) filterPrompts(ctx context.Context, _ any, _ *mcp.ListPromptsRequest, res *mcp.ListPromptsResult) {
	s := g.cur.Load()
	if s == nil || res == nil {
		return
	}
	if own := s.sessionLists(ctx); own != nil && res.NextCursor == "" {
		res.Prompts = ownList(own.Prompts, func(p *source.Prompt) mcp.Prompt { return p.Def }, func(p mcp.Prompt) string { return p.Name })
	}
	if s.Policy() == nil {
		return
	}
	p, pol := envelope.CallerOf(ctx, s).Principal, s.Policy()
	out := make([]mcp.Prompt, 0, len(res.Prompts))
	for _, x := range res.Prompts {
		if pol.Visible(p, policy.Prompt, x.Name) {
			out = append(out, x)
		}
	}
	res.Prompts = out
}

func (g *Gateway) filterResources(ctx context.Context, _ any, _ *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
	s := g.cur.Load()
	if s == nil || res == nil {
		return
	}
	if own := s.sessionLists(ctx); own != nil && res.NextCursor == "" {
		res.Resources = ownList(own.Resources, func(r *source.Resource) mcp.Resource { return r.Resource }, func(r mcp.Resource) string { return r.Name })
	}
	if s.Policy() == nil {
		return
	}
	p, pol := envelope.CallerOf(ctx, s).Principal, s.Policy()
	out := make([]mcp.Resource, 0, len(res.Resources))
	for _, r := range res.Resources {
		if pol.Visible(p, policy.Resource, r.URI) {
			out = append(out, r)
		}
	}
	res.Resources = out
}

func (g *Gateway) filterTemplates(ctx context.Context, _ any, _ *mcp.ListResourceTemplatesRequest, res *mcp.ListResourceTemplatesResult) {
	s := g.cur.Load()
	if s == nil || res == nil {
		return
	}
	if own := s.sessionLists(ctx); own != nil && res.NextCursor == "" {
		res.ResourceTemplates = ownList(own.Templates, func(r *source.Resource) mcp.ResourceTemplate { return r.Template }, func(t mcp.ResourceTemplate) string { return t.Name })
	}
	if s.Policy() == nil {
		return
	}
	p, pol := envelope.CallerOf(ctx, s).Principal, s.Policy()
	out := make([]mcp.ResourceTemplate, 0, len(res.ResourceTemplates))
	for _, t := range res.ResourceTemplates {
		if t.URITemplate != nil && pol.VisibleTemplate(p, t.URITemplate.Raw()) {
			out = append(out, t)
		}
	}
	res.ResourceTemplates = out
}

// ownList is a session's own list (sessionview.go) of entries m, sorted
// by name as mcp-go sorts its lists; never nil (a list is a required
// array).
func ownList[E, D any](m map[string]E, def func(E) D, name func(D) string) []D {
	out := make([]D, 0, len(m))
	for _, e := range m {
		out = append(out, def(e))
	}
	slices.SortFunc(out, func(a, b D) int { return strings.Compare(name(a), name(b)) })
	return out
}

// visible is what principal p sees of s's lists, for telling a session
// list_changed when a reload changes its view.
// The four lists are tools, resources, resource templates and prompts.
func (s *Snapshot) visible(p policy.Principal) [4]string {
	var v [4]string
	add := func(i int, names []string, ok func(string) bool) {
		for _, n := range names {
			if ok(n) {
				v[i] += n + "\x00"
			}
		}
	}
	add(0, slices.Sorted(maps.Keys(s.index.Tools)), func(n string) bool { return s.Policy().Visible(p, policy.Tool, n) })
	add(1, slices.Sorted(maps.Keys(s.index.Resources)), func(n string) bool { return s.Policy().Visible(p, policy.Resource, n) })
	add(2, slices.Sorted(maps.Keys(s.index.Templates)), func(n string) bool { return s.Policy().VisibleTemplate(p, n) })
	add(3, slices.Sorted(maps.Keys(s.index.Prompts)), func(n string) bool { return s.Policy().Visible(p, policy.Prompt, n) })
	return v
}
