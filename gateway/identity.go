package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/gateway/component"
	"github.com/wasmgate/wasmgate/gateway/transport"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/policy"
)

// Who is calling: the identity component holds one snapshot's
// authenticator, policy, stdio principal and the HTTP transport's
// checks. (What each caller sees of the lists is each endpoint's: package
// endpoint.)

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

var _ component.Applier = (*identity)(nil)

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
