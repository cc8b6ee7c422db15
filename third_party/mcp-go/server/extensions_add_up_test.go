package server

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestWithExtensionsAddsUp(t *testing.T) {
	s := NewMCPServer("test", "1.0.0",
		WithExtensions(map[string]any{"io.example/skills": map[string]any{}}),
		WithExtensions(map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []any{"text/html;profile=mcp-app"}}}),
		// A later call replaces what an earlier one set for the same identifier.
		WithExtensions(map[string]any{"io.example/skills": map[string]any{"version": "2"}}),
	)
	msg := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + mcp.ProtocolVersion20251125 +
		`","clientInfo":{"name":"test-client","version":"1.0.0"},"capabilities":{}}}`
	data, err := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(msg)))
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Result struct {
			Capabilities struct {
				Extensions map[string]any `json:"extensions"`
			} `json:"capabilities"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	want := map[string]any{
		"io.example/skills":          map[string]any{"version": "2"},
		"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []any{"text/html;profile=mcp-app"}},
	}
	if got := resp.Result.Capabilities.Extensions; !reflect.DeepEqual(got, want) {
		t.Errorf("initialize declared extensions %v, want %v", got, want)
	}
}
