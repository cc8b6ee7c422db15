package server

import "context"

type contextKey int

const (
	// This const is used as key for context value lookup
	requestHeader contextKey = iota
)

// requestIDKey is the context key of the JSON-RPC id of the request being
// handled (wasmgate patch, see PATCHES.md).
type requestIDKey struct{}

// RequestIDFromContext returns the JSON-RPC id of the client request a
// handler serves, as the request carried it (a number or a string).
// (wasmgate patch, see PATCHES.md.)
func RequestIDFromContext(ctx context.Context) (any, bool) {
	id := ctx.Value(requestIDKey{})
	return id, id != nil
}
