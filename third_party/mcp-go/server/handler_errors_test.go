package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestHandlerErrorCodes(t *testing.T) {
	var handlerErr error
	s := NewMCPServer("test", "1.0.0",
		WithToolCapabilities(false), WithPromptCapabilities(false), WithResourceCapabilities(false, false))
	s.AddTool(mcp.NewTool("t"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, handlerErr
	})
	s.AddPrompt(mcp.NewPrompt("p"), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, handlerErr
	})
	s.AddResource(mcp.NewResource("test://r", "r"), func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, handlerErr
	})

	requests := map[string]string{
		"tools/call":     `{"name":"t"}`,
		"prompts/get":    `{"name":"p"}`,
		"resources/read": `{"uri":"test://r"}`,
	}
	for _, tc := range []struct {
		name   string
		err    error
		method string
		want   int
	}{
		{"invalid params from a tool", fmt.Errorf("argument x: %w", mcp.ErrInvalidParams), "tools/call", mcp.INVALID_PARAMS},
		{"invalid params from a prompt", fmt.Errorf("missing required argument: %w", mcp.ErrInvalidParams), "prompts/get", mcp.INVALID_PARAMS},
		{"unknown tool", fmt.Errorf("hidden: %w", ErrToolNotFound), "tools/call", mcp.INVALID_PARAMS},
		{"unknown prompt", fmt.Errorf("hidden: %w", ErrPromptNotFound), "prompts/get", mcp.INVALID_PARAMS},
		{"unknown resource", fmt.Errorf("hidden: %w", ErrResourceNotFound), "resources/read", mcp.RESOURCE_NOT_FOUND},
		{"any other error", errors.New("boom"), "prompts/get", mcp.INTERNAL_ERROR},
	} {
		t.Run(tc.name, func(t *testing.T) {
			handlerErr = tc.err
			msg := `{"jsonrpc":"2.0","id":1,"method":"` + tc.method + `","params":` + requests[tc.method] + `}`
			code, isErr := responseError(t, s.HandleMessage(context.Background(), json.RawMessage(msg)))
			if !isErr {
				t.Fatalf("%s whose handler returns %q: a result, want error %d", tc.method, tc.err, tc.want)
			}
			if code != tc.want {
				t.Errorf("%s whose handler returns %q: error %d, want %d", tc.method, tc.err, code, tc.want)
			}
		})
	}
}
