package source

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/config"
)

// PerUser is a source that reaches its server as each caller (an
// upstream with auth.token_exchange, user_oauth or identity_assertion):
// the envelope tells it who calls (CallIdentity) and records whom the
// server saw.
type PerUser interface {
	PerUser() bool
}

// IsPerUser reports whether src reaches its server as each caller.
func IsPerUser(src Source) bool {
	p, ok := src.(PerUser)
	return ok && p.PerUser()
}

// CallIdentity is who makes one call of a PerUser source, and, once the
// source has it, the identity its server saw (for the audit line; never
// a token).
type CallIdentity struct {
	Principal string
	// Token is the caller's validated access token (JWT callers only).
	Token config.Secret
	// Set by the source: the mode (token_exchange, user_oauth,
	// identity_assertion) and the subject the upstream saw.
	Mode, Subject string
}

type callIdentityKey struct{}

// WithCallIdentity is ctx carrying id.
func WithCallIdentity(ctx context.Context, id *CallIdentity) context.Context {
	return context.WithValue(ctx, callIdentityKey{}, id)
}

// CallIdentityFrom is the CallIdentity of ctx, or nil.
func CallIdentityFrom(ctx context.Context) *CallIdentity {
	id, _ := ctx.Value(callIdentityKey{}).(*CallIdentity)
	return id
}

// ConnectFailure is a call that cannot run until the caller connects
// their account at URL (auth.user_oauth): a client that declared URL
// elicitation is asked to open it, any other gets the link in the
// call's error.
type ConnectFailure struct {
	Failure
	Upstream string
	URL      string
	// ElicitationID identifies the elicitation (one per connect link).
	ElicitationID string
}

// DeclaresURLElicitation reports whether the client of the request of
// ctx declared URL-mode elicitation.
func DeclaresURLElicitation(ctx context.Context) bool {
	ci, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok {
		return false
	}
	e := ci.GetClientCapabilities().Elicitation
	return e != nil && e.URL != nil
}

// Unwrap is the Failure, for errors.As.
func (f *ConnectFailure) Unwrap() error { return &f.Failure }

// Elicitation is the URL-mode elicitation that asks the user to connect.
func (f *ConnectFailure) Elicitation() mcp.URLElicitationRequiredError {
	return mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{{
		Mode:          mcp.ElicitationModeURL,
		Message:       "Connect your account for " + f.Upstream + " to continue: open the link, sign in, and retry the call.",
		URL:           f.URL,
		ElicitationID: f.ElicitationID,
	}}}
}
