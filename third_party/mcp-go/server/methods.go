package server

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// MethodHandler answers a request of a method the server does not know
// itself (an extension's, such as skills/list): params are the request's
// raw params (nil without); the result is marshalled as the response's
// result. An error that is a *MethodError is answered with its code; any
// other with -32603 (wasmgate patch).
type MethodHandler func(ctx context.Context, id any, params json.RawMessage) (any, error)

// WithMethodHandler answers requests of method with h (wasmgate patch).
// Methods the server handles itself are not overridden.
func WithMethodHandler(method string, h MethodHandler) ServerOption {
	return func(s *MCPServer) {
		if s.methodHandlers == nil {
			s.methodHandlers = map[string]MethodHandler{}
		}
		s.methodHandlers[method] = h
	}
}

// handleCustom answers a request of a method registered with
// WithMethodHandler; ok is false when none is.
func (s *MCPServer) handleCustom(ctx context.Context, id any, method string, params json.RawMessage) (resp mcp.JSONRPCMessage, ok bool) {
	h := s.methodHandlers[method]
	if h == nil || id == nil {
		return nil, false
	}
	res, err := h(ctx, id, params)
	if err != nil {
		if me, isMethodErr := err.(*MethodError); isMethodErr {
			return createErrorResponse(id, me.Code, me.Message), true
		}
		return createErrorResponse(id, mcp.INTERNAL_ERROR, err.Error()), true
	}
	return createResponse(id, res), true
}

// MethodError is a MethodHandler's error answered with its own JSON-RPC
// code (mcp.INVALID_PARAMS, say).
type MethodError struct {
	Code    int
	Message string
}

func (e *MethodError) Error() string { return e.Message }
