package server

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
)

// wasmgate patch: a server can refuse a resource subscription.

// SubscribeFilter decides whether the client of ctx may subscribe to uris:
// one URI for resources/subscribe, every resource subscription of a
// 2026-07-28 subscriptions/listen request (listen true). A nil error
// admits them all; an error refuses the request. An error wrapping
// mcp.ErrResourceNotFound is answered as a resource not found, any other
// as invalid params, with the error's text as the message.
type SubscribeFilter func(ctx context.Context, uris []string, listen bool) error

// WithSubscribeFilter has every resources/subscribe and subscriptions/listen
// asked of f before it takes effect.
func WithSubscribeFilter(f SubscribeFilter) ServerOption {
	return func(s *MCPServer) { s.subscribeFilter = f }
}

// checkSubscribe asks the subscribe filter, if any, about uris.
func (s *MCPServer) checkSubscribe(ctx context.Context, id any, uris []string, listen bool) *requestError {
	if s.subscribeFilter == nil || len(uris) == 0 {
		return nil
	}
	err := s.subscribeFilter(ctx, uris, listen)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mcp.ErrResourceNotFound):
		return &requestError{id: id, code: resourceNotFoundCode(ctx), err: err}
	default:
		return &requestError{id: id, code: mcp.INVALID_PARAMS, err: err}
	}
}
