package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestRequestIDFromContext(t *testing.T) {
	ids := make(chan any, 1)
	s := NewMCPServer("test", "1.0.0", WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("id"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		id, ok := RequestIDFromContext(ctx)
		if !ok {
			id = "none"
		}
		ids <- id
		return mcp.NewToolResultText("ok"), nil
	})
	for _, tc := range []struct {
		id   string
		want any
	}{
		{`7`, mcp.NewRequestId(int64(7))},
		{`"call-7"`, mcp.NewRequestId("call-7")},
	} {
		msg := `{"jsonrpc":"2.0","id":` + tc.id + `,"method":"tools/call","params":{"name":"id"}}`
		if code, isErr := responseError(t, s.HandleMessage(context.Background(), json.RawMessage(msg))); isErr {
			t.Fatalf("%s: error %d", msg, code)
		}
		got := <-ids
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(tc.want)
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("RequestIDFromContext for the id %s: %s (%T), want %s", tc.id, gotJSON, got, wantJSON)
		}
	}
	if _, ok := RequestIDFromContext(context.Background()); ok {
		t.Error("RequestIDFromContext outside a request: ok, want none")
	}
}
