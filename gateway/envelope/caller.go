package envelope

import (
	"context"
	"fmt"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/policy"
)

// Transports a caller comes through, as policy's `transport` sees them.
const (
	TransportHTTP  = "http"
	TransportStdio = "stdio"
)

type callerKey struct{}

// Caller is who makes a call: the HTTP transport authenticates each
// request and puts its Caller in the request's context; a call without
// one is the stdio principal of the serving state.
type Caller struct {
	Principal policy.Principal
	Transport string
	JWT       bool // authenticated by an access token, not a configured principal
	// Token is the access token a JWT caller presented, validated: what
	// an upstream with auth.token_exchange or identity_assertion
	// exchanges (never sent to an upstream as it is). Unset for
	// configured principals and stdio.
	Token config.Secret
}

// WithCaller is ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return &callerCtx{Context: ctx, c: c}
}

// callerCtx is context.WithValue(ctx, callerKey{}, c) in one allocation
// instead of two (the context, and c boxed): every HTTP request makes
// one.
type callerCtx struct {
	context.Context
	c Caller
}

func (x *callerCtx) Value(key any) any {
	if key == (callerKey{}) {
		return &x.c
	}
	return x.Context.Value(key)
}

func (x *callerCtx) String() string { return fmt.Sprint(x.Context) + ".WithCaller" }

// CallerFrom is the Caller ctx carries, if any.
func CallerFrom(ctx context.Context) (Caller, bool) {
	if c, ok := ctx.Value(callerKey{}).(*Caller); ok {
		return *c, true
	}
	return Caller{}, false
}

// Stdio is the caller of stdio (and of in-process calls): principal p.
func Stdio(p policy.Principal) Caller {
	return Caller{Principal: p, Transport: TransportStdio}
}

// Label is the principal label of metrics: a configured name, never a
// name taken from an access token (those are unbounded).
func (c Caller) Label() string {
	if c.JWT {
		return "jwt"
	}
	return c.Principal.Name
}

// Anonymous is the caller of an HTTP request when no authentication is
// configured (only allowed on a loopback listener, or with
// auth.allow_anonymous).
var Anonymous = policy.Principal{Name: "anonymous"}
