package main

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Protocol revisions the tests speak. mcp-go v1.2.1 prefers the stateless
// 2026-07-28 revision (server/discover, no sessions); every client in use
// today (Claude Desktop, the TypeScript SDK) speaks the 2025-11-25
// initialize handshake with Mcp-Session-Id sessions. The gateway must serve
// both.
const (
	protoSessions  = mcp.LATEST_LEGACY_PROTOCOL_VERSION // "2025-11-25"
	protoStateless = mcp.LATEST_PROTOCOL_VERSION        // "2026-07-28"
)

// httpClient connects an initialized mcp-go client to g over Streamable
// HTTP with mcp-go's preferred protocol revision.
func httpClient(t testing.TB, g *Gateway, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	c, _ := httpClientVersion(t, g.MCPURL, protoStateless, opts...)
	return c
}

// sessionClient connects an initialized mcp-go client over Streamable HTTP
// with the 2025-11-25 handshake, so it gets an Mcp-Session-Id session.
func sessionClient(t testing.TB, g *Gateway, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	c, _ := httpClientVersion(t, g.MCPURL, protoSessions, opts...)
	if c.GetSessionId() == "" {
		t.Fatalf("no Mcp-Session-Id after a %s initialize", protoSessions)
	}
	return c
}

// httpClientVersion connects to url asking for protocol version.
func httpClientVersion(t testing.TB, url, version string, opts ...transport.StreamableHTTPCOption) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, initClient(t, c, version)
}

// stdioClient connects an initialized mcp-go client to a gateway started
// with --stdio.
func stdioClient(t testing.TB, g *Gateway) *client.Client {
	t.Helper()
	c, _ := stdioClientVersion(t, g, protoSessions)
	return c
}

func stdioClientVersion(t testing.TB, g *Gateway, version string) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	c := client.NewClient(transport.NewIO(g.Stdout, g.Stdin, nil))
	return c, initClient(t, c, version)
}

func initClient(t testing.TB, c *client.Client, version string) *mcp.InitializeResult {
	t.Helper()
	ctx := ctxTimeout(t, 30e9)
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "wasmgate-e2e", Version: "1"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatalf("initialize (%s): %v", version, err)
	}
	return res
}

// callTool calls name with args and returns the joined text and isError.
// A JSON-RPC error fails the test.
func callTool(ctx context.Context, t testing.TB, c *client.Client, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := callToolErr(ctx, c, name, args)
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	return resultText(res), res.IsError
}

func callToolErr(ctx context.Context, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return c.CallTool(ctx, req)
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

// readResource reads uri and fails the test on a JSON-RPC error.
func readResource(ctx context.Context, t testing.TB, c *client.Client, uri string) []mcp.ResourceContents {
	t.Helper()
	res, err := readResourceErr(ctx, c, uri)
	if err != nil {
		t.Fatalf("resources/read %s: %v", uri, err)
	}
	return res.Contents
}

func readResourceErr(ctx context.Context, c *client.Client, uri string) (*mcp.ReadResourceResult, error) {
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	return c.ReadResource(ctx, req)
}

// readText reads uri, which must hold exactly one text item for uri, and
// returns its text.
func readText(ctx context.Context, t testing.TB, c *client.Client, uri string) string {
	t.Helper()
	contents := readResource(ctx, t, c, uri)
	if len(contents) != 1 {
		t.Fatalf("resources/read %s: %d contents, want 1: %#v", uri, len(contents), contents)
	}
	tc, ok := mcp.AsTextResourceContents(contents[0])
	if !ok {
		t.Fatalf("resources/read %s: %T, want text contents", uri, contents[0])
	}
	if tc.URI != uri {
		t.Errorf("resources/read %s: contents uri %q", uri, tc.URI)
	}
	return tc.Text
}

func getPrompt(ctx context.Context, c *client.Client, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	req := mcp.GetPromptRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return c.GetPrompt(ctx, req)
}

// promptText joins the text of every message of a prompt result, and
// checks each has role user or assistant.
func promptText(t testing.TB, res *mcp.GetPromptResult) string {
	t.Helper()
	var parts []string
	for _, m := range res.Messages {
		if m.Role != mcp.RoleUser && m.Role != mcp.RoleAssistant {
			t.Errorf("prompt message role %q", m.Role)
		}
		tc, ok := mcp.AsTextContent(m.Content)
		if !ok {
			t.Errorf("prompt message content %T, want text", m.Content)
			continue
		}
		parts = append(parts, tc.Text)
	}
	return strings.Join(parts, "\n")
}
