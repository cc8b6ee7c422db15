package main

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// httpClient connects an initialized mcp-go client to g over Streamable HTTP.
func httpClient(t testing.TB, g *Gateway, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(g.MCPURL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	initClient(t, c)
	return c
}

// stdioClient connects an initialized mcp-go client to a gateway started
// with --stdio.
func stdioClient(t testing.TB, g *Gateway) *client.Client {
	t.Helper()
	c := client.NewClient(transport.NewIO(g.Stdout, g.Stdin, nil))
	initClient(t, c)
	return c
}

func initClient(t testing.TB, c *client.Client) {
	t.Helper()
	ctx := ctxTimeout(t, 30e9)
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "wasmgate-e2e", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
}

// callTool calls name with args and returns the joined text and isError.
func callTool(ctx context.Context, t testing.TB, c *client.Client, name string, args map[string]any) (string, bool) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	return resultText(res), res.IsError
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func TestSmokeHTTPAndStdio(t *testing.T) {
	cfg := writeConfig(t, examplesConfig(t, ""))
	g := startGateway(t, cfg, nil, "--stdio")
	ctx := ctxTimeout(t, 60e9)
	for name, c := range map[string]*client.Client{"http": httpClient(t, g), "stdio": stdioClient(t, g)} {
		text, isErr := callTool(ctx, t, c, "calculate", map[string]any{"operation": "add", "a": 5, "b": 3})
		if text != "8" || isErr {
			t.Errorf("%s: calculate add 5 3 = %q (isError %v), want 8", name, text, isErr)
		}
	}
}
