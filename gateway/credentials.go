package gateway

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/auth/vault"
	"github.com/wasmgate/wasmgate/gateway/component"
	"github.com/wasmgate/wasmgate/loader"
)

// The credentials section: the vault of each user's grants to upstreams
// with auth.user_oauth (package vault), on the state section's backend:
// Redis (every replica reads the same grants) or this process's memory
// (kept across reloads, lost at exit).

// credentialsComponent opens the vault of one snapshot. It is provisioned
// after the state section, whose store it uses.
type credentialsComponent struct {
	g     *Gateway
	st    *stateComponent
	vault *vault.Vault // nil without a credentials section
}

func (c *credentialsComponent) Name() string { return "credentials" }

var _ component.Applier = (*credentialsComponent)(nil)

// Provision opens the vault under the section's keys. A key that opens
// none of the entries already stored is a config error (vault.Open).
func (c *credentialsComponent) Provision(ctx context.Context, cfg *loader.Config) error {
	if !cfg.Credentials.Set() {
		return nil
	}
	keys, err := cfg.Credentials.Keys(cfg.File, nil)
	if err != nil {
		return err
	}
	var b vault.Backend = c.g.memVault
	if c.st.store != nil {
		b = c.st.store
	}
	c.vault, err = vault.Open(ctx, keys, b, c.g.log.With("component", "credentials"))
	return err
}

// Apply makes the vault the one calls and the admin API use, and counts
// the users connected to each upstream (the metric).
func (c *credentialsComponent) Apply(ctx context.Context) {
	c.g.vault.Store(c.vault)
	c.g.countConnected(ctx)
}

func (c *credentialsComponent) Cleanup(context.Context) {}

// grants is the vault serving now, or nil.
func (g *Gateway) grants() *vault.Vault { return g.vault.Load() }

// credentialsAdmin is the admin API of the vault serving now: GET
// /api/credentials and POST /api/credentials/revoke (404 without a
// credentials section).
func (g *Gateway) credentialsAdmin() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := g.grants()
		if v == nil {
			http.Error(w, "no credentials section: nothing is stored (gateway.yaml's credentials: holds the vault's key)", http.StatusNotFound)
			return
		}
		vault.AdminHandler(v, g.log.With("component", "credentials")).ServeHTTP(w, r)
		if r.Method == http.MethodPost {
			g.countConnected(r.Context())
		}
	})
}

// oauthHandler serves /oauth/ on the MCP listener: the connect pages,
// callback and client ID metadata documents of the serving snapshot's
// upstreams with auth.user_oauth (404 without one). Browsers reach it
// without the gateway's bearer token: each page checks its own one-time
// state and cookies (package upstreamauth).
func (g *Gateway) oauthHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var h http.Handler
		if s := g.cur.Load(); s != nil {
			h = s.parts.connectHandler(g)
		}
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
		if r.URL.Path == loader.OAuthPath+"/callback" {
			g.countConnected(r.Context())
		}
	})
}

// connectHandler is the user_oauth pages of p's upstreams, made once.
func (p *parts) connectHandler(g *Gateway) http.Handler {
	p.connectOnce.Do(func() {
		h, err := p.ups.Connect()
		if err != nil {
			g.log.Error("cannot serve the OAuth connect pages", "error", err)
			return
		}
		if h != nil {
			p.connect = h
		}
	})
	return p.connect
}

// countConnected sets wasmgate_upstream_connected_users from the vault,
// and returns what it listed for the status page.
func (g *Gateway) countConnected(ctx context.Context) []vault.Meta {
	v, m := g.grants(), g.opts.Metrics
	if v == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	list, err := v.List(ctx, "")
	if err != nil {
		g.log.Warn("cannot list the credentials vault", "error", err)
		return nil
	}
	if m != nil {
		counts := map[string]int{}
		if s := g.cur.Load(); s != nil {
			for _, u := range s.Config.Upstreams {
				if u.Auth.UserOAuth != nil {
					counts[u.Name] = 0
				}
			}
		}
		for _, e := range list {
			counts[e.Upstream]++
		}
		m.UpstreamConnectedUsers.Reset()
		for u, n := range counts {
			m.UpstreamConnectedUsers.WithLabelValues(u).Set(float64(n))
		}
	}
	slices.SortFunc(list, func(a, b vault.Meta) int {
		return cmp.Or(strings.Compare(a.Upstream, b.Upstream), strings.Compare(a.Principal, b.Principal))
	})
	return list
}

// credentialsStatus is the status page's "credentials" section: who
// connected which upstream, when (never a token).
func (g *Gateway) credentialsStatus() any {
	if g.grants() == nil {
		return nil
	}
	list := g.countConnected(context.Background())
	if list == nil {
		list = []vault.Meta{}
	}
	return map[string]any{"connected": list}
}

// connected lists the upstreams with auth.user_oauth that principal has
// connected (a grant in the vault that decrypts), for policy's
// `connected`. A vault that cannot be read counts as nothing connected.
func (g *Gateway) connected(ctx context.Context, principal string) []string {
	v, s := g.grants(), g.cur.Load()
	out := []string{}
	if v == nil || s == nil {
		return out
	}
	for _, u := range s.Config.Upstreams {
		if u.Auth.UserOAuth == nil {
			continue
		}
		if _, ok, err := v.Get(ctx, u.Name, principal); ok && err == nil {
			out = append(out, u.Name)
		}
	}
	return out
}

// CheckIdentities reaches the authorization servers of the serving
// snapshot's upstreams with a per-user mode and checks their metadata
// (`wasmgate validate`): each finding is an error or a warning.
func (g *Gateway) CheckIdentities(ctx context.Context) []string {
	s := g.cur.Load()
	if s == nil {
		return nil
	}
	var out []string
	for _, f := range s.parts.ups.CheckIdentities(ctx) {
		out = append(out, f.String())
	}
	return out
}
