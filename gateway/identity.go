package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/policy"
)

// Who is calling, and how: the HTTP guard authenticates each request and
// puts its caller in the request's context; stdio calls are the configured
// stdio principal. The call path asks policy about every call, and the
// list handlers show each caller only what it may use.

// Transports a caller comes through, as policy's `transport` sees them.
const (
	transportHTTP  = "http"
	transportStdio = "stdio"
)

type callerKey struct{}

// caller is who makes a call.
type caller struct {
	principal policy.Principal
	transport string
	jwt       bool // authenticated by an access token, not a configured principal
}

func withCaller(ctx context.Context, c caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// callerOf returns the caller of ctx: the HTTP request's, else the stdio
// principal of s (stdio, and calls made in-process).
func (s *Snapshot) callerOf(ctx context.Context) caller {
	if c, ok := ctx.Value(callerKey{}).(caller); ok {
		return c
	}
	return caller{principal: s.stdio, transport: transportStdio}
}

// label is the principal label of metrics: a configured name, never a
// name taken from an access token (those are unbounded).
func (c caller) label() string {
	if c.jwt {
		return "jwt"
	}
	return c.principal.Name
}

// anonymous is the caller of an HTTP request when no authentication is
// configured (only allowed on a loopback listener, or with
// auth.allow_anonymous).
var anonymous = policy.Principal{Name: "anonymous"}

// buildIdentity sets up s's authenticator, policy and stdio principal from
// cfg. transports.http.auth's token is one more principal, named
// loader.LegacyPrincipal.
func (s *Snapshot) buildIdentity(ctx context.Context, cfg *loader.Config, opts Options) error {
	a := cfg.Auth
	if s.token != "" {
		sum := sha256.Sum256([]byte(s.token))
		a.Principals = append(append([]auth.PrincipalConfig(nil), a.Principals...),
			auth.PrincipalConfig{Name: loader.LegacyPrincipal, TokenSHA256: hex.EncodeToString(sum[:])})
	}
	if a.Enabled() {
		authn, err := auth.New(ctx, a, auth.Options{LookupEnv: os.LookupEnv, Logger: opts.Logger.With("component", "auth")})
		if err != nil {
			return err
		}
		s.authn = authn
		s.authnRefs = new(atomic.Int32)
		s.authnRefs.Store(1)
	}
	s.pol = cfg.Policy.Policy()
	s.stdio = policy.Principal{Name: cfg.Transports.Stdio.Principal}
	for _, p := range cfg.Auth.Principals {
		if p.Name == s.stdio.Name {
			s.stdio.Groups = p.Groups
		}
	}
	return nil
}

// authenticate returns the caller of r, or an error for a 401.
func (s *Snapshot) authenticate(r *http.Request) (caller, error) {
	if s.authn == nil {
		return caller{principal: anonymous, transport: transportHTTP}, nil
	}
	p, err := s.authn.Authenticate(r)
	if err != nil {
		return caller{}, err
	}
	return caller{principal: policy.Principal(p), transport: transportHTTP, jwt: p.Claims != nil}, nil
}

// challenge answers a request that failed authentication: 401 with the
// WWW-Authenticate header the MCP authorization specification asks for.
func (g *Gateway) challenge(w http.ResponseWriter, r *http.Request, s *Snapshot, err error) {
	g.opts.Metrics.HTTPRejected.WithLabelValues("auth").Inc()
	metadataURL := ""
	if j := s.Config.Auth.JWT; j != nil {
		// The audience is the resource's public URL (behind a proxy that
		// terminates TLS, the request's own URL is not); when it is not
		// an http(s) URL, the URL the request reached is.
		var err error
		if metadataURL, err = auth.MetadataURL(j.Audience); err != nil {
			metadataURL, _ = auth.MetadataURL(resourceURL(r))
		}
	}
	w.Header().Set("WWW-Authenticate", s.authn.Challenge(metadataURL, err))
	msg := "Unauthorized: missing bearer token"
	if errors.Is(err, auth.ErrInvalidToken) {
		msg = "Unauthorized: invalid bearer token"
		g.log.Info("refused a bearer token", "remote", r.RemoteAddr, "reason", err)
	}
	http.Error(w, msg, http.StatusUnauthorized)
}

// resourceURL is the URL a client reached r at: this gateway's MCP
// endpoint as the protected resource.
func resourceURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + r.URL.Path
}

// metadataHandler serves RFC 9728 protected-resource metadata for the
// serving snapshot's access-token settings (404 without auth.jwt).
func (g *Gateway) metadataHandler(mcpPath string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := g.cur.Load()
		if s == nil || s.authn == nil || s.Config.Auth.JWT == nil {
			http.NotFound(w, r)
			return
		}
		// A browser client on an allowed origin discovers the
		// authorization server from here too. The document is public:
		// other origins get it without CORS headers, so their pages
		// cannot read it.
		if origin := r.Header.Get("Origin"); origin != "" && s.originAllowed(origin) && cors(w, r, origin) {
			return
		}
		resource := s.Config.Auth.JWT.Audience
		if resource == "" {
			scheme := "http"
			if r.TLS != nil {
				scheme = "https"
			}
			resource = scheme + "://" + r.Host + mcpPath
		}
		s.authn.MetadataHandler(resource).ServeHTTP(w, r)
	})
}

// authorize asks the snapshot's policy whether the caller of ctx may make
// the call, then takes from its rate limits. It returns the caller and,
// when the call may not run, the failure to report.
func (g *Gateway) authorize(ctx context.Context, s *Snapshot, kind policy.Kind, name string, args map[string]any) (caller, *Failure) {
	c := s.callerOf(ctx)
	if s.pol == nil {
		return c, nil
	}
	d := s.pol.Decide(policy.Request{Principal: c.principal, Kind: kind, Name: name, Args: args, Transport: c.transport})
	if !d.Allowed {
		g.opts.Metrics.PolicyDenials.WithLabelValues(c.label(), kind.String()).Inc()
		return c, &Failure{Kind: FailDenied, Msg: "is denied by policy"}
	}
	if ok, retry := g.limiters.Allow(s.pol, d, c.principal.Name, kind.String()+" "+name); !ok {
		g.opts.Metrics.RateLimited.WithLabelValues(c.label(), kind.String()).Inc()
		// Rounded up: a hint of "0s" would have the client retry at once.
		retry = (retry + time.Millisecond - 1).Truncate(time.Millisecond)
		return c, &Failure{Kind: FailRateLimited, Msg: fmt.Sprintf("is rate limited: retry in %s", retry)}
	}
	return c, nil
}

// Visibility of lists: each caller sees only what it may use. The lists
// are filtered after mcp-go builds them (hooks), not with mcp-go's tool
// and prompt filters: those also refuse a call of a hidden tool as "not
// found" before the gateway sees it, and a call must reach authorize to
// be denied by policy, counted and audited.

func (g *Gateway) filterTools(ctx context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
	s := g.cur.Load()
	if s == nil || s.pol == nil || res == nil {
		return
	}
	p := s.callerOf(ctx).principal
	out := make([]mcp.Tool, 0, len(res.Tools)) // never nil: a list is a required array
	for _, t := range res.Tools {
		if s.pol.Visible(p, policy.Tool, t.Name) {
			out = append(out, t)
		}
	}
	res.Tools = out
}

func (g *Gateway) filterPrompts(ctx context.Context, _ any, _ *mcp.ListPromptsRequest, res *mcp.ListPromptsResult) {
	s := g.cur.Load()
	if s == nil || s.pol == nil || res == nil {
		return
	}
	p := s.callerOf(ctx).principal
	out := make([]mcp.Prompt, 0, len(res.Prompts))
	for _, x := range res.Prompts {
		if s.pol.Visible(p, policy.Prompt, x.Name) {
			out = append(out, x)
		}
	}
	res.Prompts = out
}

func (g *Gateway) filterResources(ctx context.Context, _ any, _ *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
	s := g.cur.Load()
	if s == nil || s.pol == nil || res == nil {
		return
	}
	p := s.callerOf(ctx).principal
	out := make([]mcp.Resource, 0, len(res.Resources))
	for _, r := range res.Resources {
		if s.pol.Visible(p, policy.Resource, r.URI) {
			out = append(out, r)
		}
	}
	res.Resources = out
}

func (g *Gateway) filterTemplates(ctx context.Context, _ any, _ *mcp.ListResourceTemplatesRequest, res *mcp.ListResourceTemplatesResult) {
	s := g.cur.Load()
	if s == nil || s.pol == nil || res == nil {
		return
	}
	p := s.callerOf(ctx).principal
	out := make([]mcp.ResourceTemplate, 0, len(res.ResourceTemplates))
	for _, t := range res.ResourceTemplates {
		if t.URITemplate != nil && s.pol.VisibleTemplate(p, t.URITemplate.Raw()) {
			out = append(out, t)
		}
	}
	res.ResourceTemplates = out
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
	add(0, slices.Sorted(maps.Keys(s.tools)), func(n string) bool { return s.pol.Visible(p, policy.Tool, n) })
	add(1, slices.Sorted(maps.Keys(s.resources)), func(n string) bool { return s.pol.Visible(p, policy.Resource, n) })
	add(2, slices.Sorted(maps.Keys(s.templates)), func(n string) bool { return s.pol.VisibleTemplate(p, n) })
	add(3, slices.Sorted(maps.Keys(s.prompts)), func(n string) bool { return s.pol.Visible(p, policy.Prompt, n) })
	return v
}
