package main

// Secure defaults: an HTTP listener that is not loopback needs
// authentication (auth.principals, auth.jwt or transports.http.auth), or
// an explicit auth.allow_anonymous, at start and on every reload.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// everywhere is yaml (from Binaries.YAML) with the MCP listener on every
// interface instead of loopback.
func everywhere(t *testing.T, yaml string) string {
	t.Helper()
	const loopback = "    listen: 127.0.0.1:0\n" // transports.http.listen comes first
	if !strings.Contains(yaml, loopback) {
		t.Fatalf("no %q in the config", loopback)
	}
	return strings.Replace(yaml, loopback, "    listen: 0.0.0.0:0\n", 1)
}

// loopbackURL is the MCP URL of a gateway listening on every interface
// (logged as [::] or 0.0.0.0), reached through loopback.
func loopbackURL(g *harness.Gateway) string {
	u := strings.Replace(g.MCPURL, "//[::]:", "//127.0.0.1:", 1)
	return strings.Replace(u, "//0.0.0.0:", "//127.0.0.1:", 1)
}

// TestNonLoopbackNeedsAuth: 0.0.0.0 without authentication is refused at
// start (the message names the key and the ways out) and on reload (the
// old config keeps serving and the failure is counted);
// auth.allow_anonymous: true lifts the refusal.
func TestNonLoopbackNeedsAuth(t *testing.T) {
	t.Parallel()
	t.Run("start", func(t *testing.T) {
		cfg := harness.WriteConfig(t, everywhere(t, bins.YAML(harness.Parts{Plugins: harness.ExamplePlugins(t)})))
		r := bins.Run(t, harness.RunOptions{}, "serve", "--config", cfg)
		if r.Code == 0 {
			t.Fatalf("wasmgate served on 0.0.0.0 without authentication:\n%s", r.Stderr)
		}
		for _, want := range []string{cfg, "transports.http.listen", "0.0.0.0:0", "listens on every interface", "auth.principals", "auth.jwt", "auth.allow_anonymous: true", "127.0.0.1"} {
			if !strings.Contains(r.Stderr, want) {
				t.Errorf("the refusal does not say %q:\n%s", want, r.Stderr)
			}
		}
		if strings.Contains(r.Stderr, "wasmgate ready") {
			t.Errorf("wasmgate said it was ready:\n%s", r.Stderr)
		}
	})

	t.Run("allow_anonymous", func(t *testing.T) {
		cfg := harness.WriteConfig(t, everywhere(t, bins.YAML(harness.Parts{
			Plugins:  harness.ExamplePlugins(t),
			Sections: "auth:\n  allow_anonymous: true\n",
		})))
		g := bins.Start(t, harness.Options{Config: cfg})
		if loopbackURL(g) == g.MCPURL {
			t.Fatalf("listening at %s, want every interface", g.MCPURL)
		}
		c, _ := harness.HTTPClient(t, loopbackURL(g), harness.ProtoSessions)
		harness.Calc(harness.Ctx(t, 30*time.Second), t, c, 1, 2)
	})

	t.Run("reload", func(t *testing.T) {
		tok := newToken(t)
		secrets := harness.Secrets{tok}
		withAuth := fmt.Sprintf("auth:\n  principals:\n    - {name: ops, token_sha256: %s}\n", sha256Hex(tok))
		render := func(sections string) []byte {
			return []byte(everywhere(t, bins.YAML(harness.Parts{Server: harness.NoWatch, Plugins: harness.ExamplePlugins(t), Sections: sections})))
		}
		cfg := harness.WriteConfig(t, string(render(withAuth)))
		g := bins.Start(t, harness.Options{Config: cfg})
		secrets.Watch(t, g)
		url := loopbackURL(g)
		ctx := harness.Ctx(t, time.Minute)

		// Authentication removed: refused, the old config serves on.
		harness.WriteFile(t, cfg, render(""))
		code, body := g.PostReload(t)
		if code != http.StatusInternalServerError || !strings.Contains(body, "transports.http.listen") || !strings.Contains(body, "auth.allow_anonymous") {
			t.Errorf("reload without auth on 0.0.0.0: %d %q, want 500 naming transports.http.listen and the fix", code, body)
		}
		if _, fail := g.Reloads(t); fail != 1 {
			t.Errorf("wasmgate_config_reloads_total{outcome=failure} = %v, want 1", fail)
		}
		if code := harness.PostInitialize(t, url, nil); code != http.StatusUnauthorized {
			t.Errorf("anonymous request after the refused reload: %d, want 401 (the old config)", code)
		}
		c, _ := harness.HTTPClient(t, url, harness.ProtoSessions, withToken(tok))
		harness.Calc(ctx, t, c, 3, 4)

		// The same with allow_anonymous: applied, and anyone is served.
		harness.WriteFile(t, cfg, render("auth:\n  allow_anonymous: true\n"))
		g.MustReload(t, "reload with allow_anonymous")
		ac, _ := harness.HTTPClient(t, url, harness.ProtoSessions)
		harness.Calc(ctx, t, ac, 5, 6)
	})
}
