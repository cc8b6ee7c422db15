package server

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestWithMethodHandler(t *testing.T) {
	s := NewMCPServer("test", "1.0.0",
		WithMethodHandler("skills/list", func(ctx context.Context, id any, params json.RawMessage) (any, error) {
			var p struct {
				Cursor string `json:"cursor"`
			}
			if len(params) > 0 {
				if err := json.Unmarshal(params, &p); err != nil {
					return nil, &MethodError{Code: mcp.INVALID_PARAMS, Message: err.Error()}
				}
			}
			return map[string]any{"skills": []any{}, "cursor": p.Cursor}, nil
		}),
		WithMethodHandler("skills/get", func(ctx context.Context, id any, params json.RawMessage) (any, error) {
			return nil, errors.New("broken")
		}),
	)
	for _, tc := range []struct {
		msg  string
		want int // 0: a result
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"skills/list","params":{"cursor":"c"}}`, 0},
		{`{"jsonrpc":"2.0","id":2,"method":"skills/list","params":{"cursor":1}}`, mcp.INVALID_PARAMS},
		{`{"jsonrpc":"2.0","id":3,"method":"skills/get","params":{}}`, mcp.INTERNAL_ERROR},
		{`{"jsonrpc":"2.0","id":4,"method":"skills/other"}`, mcp.METHOD_NOT_FOUND},
	} {
		resp := s.HandleMessage(context.Background(), json.RawMessage(tc.msg))
		code, isErr := responseError(t, resp)
		if (tc.want == 0) == isErr || code != tc.want {
			data, _ := json.Marshal(resp)
			t.Errorf("%s: answered %s, want error code %d (0: a result)", tc.msg, data, tc.want)
		}
	}
}
