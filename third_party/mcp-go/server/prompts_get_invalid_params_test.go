package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// responseError returns the code of the JSON-RPC error resp carries, and
// whether it carries one.
func responseError(t *testing.T, resp mcp.JSONRPCMessage) (int, bool) {
	t.Helper()
	data, err := json.Marshal(resp)
	if err != nil {
		t.Fatalf("encoding the response: %v", err)
	}
	var decoded struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &decoded); err != nil {
		t.Fatalf("decoding the response %s: %v", data, err)
	}
	if decoded.Error == nil {
		return 0, false
	}
	return decoded.Error.Code, true
}

func TestPromptsGetUndecodableParams(t *testing.T) {
	s := NewMCPServer("test", "1.0.0", WithPromptCapabilities(false))
	s.AddPrompt(mcp.NewPrompt("greet", mcp.WithArgument("name")),
		func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("greeting", nil), nil
		})

	for _, tc := range []struct {
		name, params string
		want         int // 0: no error
	}{
		{"string argument", `{"name":"greet","arguments":{"name":"ada"}}`, 0},
		// Arguments are a map of strings: a number there is invalid
		// params (-32602), not an invalid request.
		{"number argument", `{"name":"greet","arguments":{"name":42}}`, mcp.INVALID_PARAMS},
		{"arguments not an object", `{"name":"greet","arguments":[1]}`, mcp.INVALID_PARAMS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":` + tc.params + `}`
			code, isErr := responseError(t, s.HandleMessage(context.Background(), json.RawMessage(msg)))
			switch {
			case tc.want == 0 && isErr:
				t.Errorf("prompts/get %s: error %d, want a result", tc.params, code)
			case tc.want != 0 && !isErr:
				t.Errorf("prompts/get %s: a result, want error %d", tc.params, tc.want)
			case code != tc.want:
				t.Errorf("prompts/get %s: error %d, want %d", tc.params, code, tc.want)
			}
		})
	}
}
