package client

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TestWithToolResultParser: a client given a parser reads every tools/call
// result with it (the bytes the server sent), and one without reads them
// with mcp.ParseCallToolResult as before.
func TestWithToolResultParser(t *testing.T) {
	s := server.NewMCPServer("test", "1")
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	var seen []string
	parse := func(raw *json.RawMessage) (*mcp.CallToolResult, error) {
		seen = append(seen, string(*raw))
		return mcp.ParseCallToolResult(raw)
	}
	for _, withParser := range []bool{false, true} {
		seen = nil
		var opts []ClientOption
		if withParser {
			opts = append(opts, WithToolResultParser(parse))
		}
		c, err := NewInProcessClientWithOptions(s, opts...)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
		if _, err := c.Initialize(ctx, init); err != nil {
			t.Fatalf("initialize: %v", err)
		}
		req := mcp.CallToolRequest{}
		req.Params.Name = "echo"
		req.Params.Arguments = map[string]any{"text": "hi"}
		res, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("tools/call: %v", err)
		}
		if tc, ok := res.Content[0].(mcp.TextContent); !ok || tc.Text != "hi" {
			t.Errorf("parser %v: result %+v, want the text hi", withParser, res.Content)
		}
		switch {
		case withParser && (len(seen) != 1 || !strings.Contains(seen[0], `"content":[{"type":"text","text":"hi"}]`)):
			t.Errorf("the parser read %q, want the one result as the server sent it", seen)
		case !withParser && len(seen) != 0:
			t.Errorf("without the option the parser read %q", seen)
		}
		c.Close()
	}
}
