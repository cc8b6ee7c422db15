package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func initializeResult(t *testing.T, s *MCPServer) mcp.InitializeResult {
	t.Helper()
	msg := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + mcp.ProtocolVersion20251125 +
		`","clientInfo":{"name":"test-client","version":"1.0.0"},"capabilities":{}}}`
	data, err := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(msg)))
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Result mcp.InitializeResult `json:"result"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	return resp.Result
}

func TestSetIdentity(t *testing.T) {
	s := NewMCPServer("test", "1.0.0", WithTitle("Before"), WithInstructions("old instructions"))
	if got := initializeResult(t, s); got.ServerInfo.Title != "Before" || got.Instructions != "old instructions" {
		t.Fatalf("initialize before SetIdentity: title %q, instructions %q", got.ServerInfo.Title, got.Instructions)
	}
	s.SetIdentity("After", "new instructions")
	got := initializeResult(t, s)
	if got.ServerInfo.Title != "After" || got.Instructions != "new instructions" {
		t.Errorf("initialize after SetIdentity: title %q, instructions %q, want %q, %q",
			got.ServerInfo.Title, got.Instructions, "After", "new instructions")
	}
	if got.ServerInfo.Name != "test" || got.ServerInfo.Version != "1.0.0" {
		t.Errorf("initialize after SetIdentity: name %q, version %q, want unchanged", got.ServerInfo.Name, got.ServerInfo.Version)
	}
}
