// Package upstreamauth is the OAuth client side of wasmgate toward its
// upstream servers: it gives, for one upstream and one caller, the
// Authorization the gateway sends so that the upstream sees the caller's
// own identity rather than one shared service account.
//
// Three modes implement Source: TokenExchange (RFC 8693, the caller's
// access token for one scoped to the upstream), IdentityAssertion (the
// identity-assertion authorization grant that MCP's enterprise-managed
// authorization uses: an ID-JAG from the enterprise IdP, then an access
// token from the upstream's authorization server) and the per-user
// authorization-code flow whose grants live in auth/vault.
//
// The package does not import gateway/ or loader/: the gateway maps its
// configuration onto the plain option structs here. No token or client
// secret ever appears in an error, a log line, a metric label or a span
// attribute; tokens travel as config.Secret, which never prints.
package upstreamauth

import (
	"context"
	"fmt"
	"time"

	"github.com/wasmgate/wasmgate/config"
)

// Modes, as Token.Mode reports them (and audit lines record).
const (
	ModeTokenExchange     = "token_exchange"
	ModeUserOAuth         = "user_oauth"
	ModeIdentityAssertion = "identity_assertion"
)

// Caller is who the gateway calls the upstream for.
type Caller struct {
	// Principal is the gateway's principal name (a JWT's subject-derived
	// name, or a configured principal).
	Principal string
	// Token is the caller's validated access token (a JWT) as it reached
	// the gateway; unset for stdio and static principals.
	Token config.Secret
}

// Source gives the Authorization for one upstream and one caller.
type Source interface {
	Token(ctx context.Context, c Caller) (Token, error)
}

// Token is what the gateway sends to an upstream for one caller.
type Token struct {
	// Value is the bearer to send.
	Value config.Secret
	// Subject is the identity the upstream sees (for audit), when known.
	Subject string
	// Mode is ModeTokenExchange, ModeUserOAuth or ModeIdentityAssertion.
	Mode string
	// Expiry is when Value expires; zero when unknown.
	Expiry time.Time
}

// NotConnectedError is what a user_oauth Source returns when the caller
// has no grant for the upstream: never connected, revoked, not
// decrypting under the vault's keys, or its refresh refused. ConnectURL
// is the gateway's page where the caller connects the upstream.
type NotConnectedError struct {
	Upstream   string
	ConnectURL string
}

func (e *NotConnectedError) Error() string {
	if e.ConnectURL == "" {
		return fmt.Sprintf("upstream %q: not connected: the caller has not connected their account", e.Upstream)
	}
	return fmt.Sprintf("upstream %q: not connected: connect your account at %s", e.Upstream, e.ConnectURL)
}

// ExchangeError is an authorization server refusing or failing one step
// of getting a token for the upstream. Step names the step
// ("token_exchange", "id_jag", "jwt_bearer", "refresh", ...); Reason is
// the authorization server's error code and description, or what went
// wrong on the way to it, and never a token or a secret.
type ExchangeError struct {
	Upstream string
	Step     string
	Reason   string
}

func (e *ExchangeError) Error() string {
	return fmt.Sprintf("upstream %q: %s: %s", e.Upstream, e.Step, e.Reason)
}
