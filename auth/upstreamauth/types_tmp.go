// Temporary copy of the shared types of auth/upstreamauth/upstreamauth.go
// (branch h/exchange, commit ec007f3) so that this branch builds alone;
// dropped when the branches are merged.

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
