package harness

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Protocol revisions the tests speak. mcp-go v1.2.1 prefers the stateless
// 2026-07-28 revision (server/discover, no sessions); every client in use
// today (Claude Desktop, the TypeScript SDK) speaks the 2025-11-25
// initialize handshake with Mcp-Session-Id sessions. The gateway must
// serve both.
const (
	ProtoSessions  = mcp.LATEST_LEGACY_PROTOCOL_VERSION // "2025-11-25"
	ProtoStateless = mcp.LATEST_PROTOCOL_VERSION        // "2026-07-28"
)

// Client connects an initialized mcp-go client to g over Streamable HTTP
// with mcp-go's preferred protocol revision.
func (g *Gateway) Client(t testing.TB, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	c, _ := HTTPClient(t, g.MCPURL, ProtoStateless, opts...)
	return c
}

// SessionClient connects an initialized mcp-go client to g over
// Streamable HTTP with the 2025-11-25 handshake, so it gets an
// Mcp-Session-Id session.
func (g *Gateway) SessionClient(t testing.TB, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	c, _ := HTTPClient(t, g.MCPURL, ProtoSessions, opts...)
	if c.GetSessionId() == "" {
		t.Fatalf("no Mcp-Session-Id after a %s initialize", ProtoSessions)
	}
	return c
}

// StdioClient connects an initialized mcp-go client to a gateway started
// with Options.Stdio, with the 2025-11-25 handshake.
func (g *Gateway) StdioClient(t testing.TB) *client.Client {
	t.Helper()
	c, _ := g.StdioClientVersion(t, ProtoSessions)
	return c
}

// StdioClientVersion is StdioClient asking for protocol version, and the
// server's answer to initialize.
func (g *Gateway) StdioClientVersion(t testing.TB, version string) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	c := client.NewClient(transport.NewIO(g.Stdout, g.Stdin, nil))
	return c, Init(t, c, version)
}

// HTTPClient connects an initialized mcp-go client to the Streamable HTTP
// endpoint url asking for protocol version, and returns the server's
// answer to initialize.
func HTTPClient(t testing.TB, url, version string, opts ...transport.StreamableHTTPCOption) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c, Init(t, c, version)
}

// AskedClient connects an initialized mcp-go client with opts (its
// sampling, elicitation and roots handlers and capabilities) to the
// Streamable HTTP endpoint url asking for protocol version: with
// ProtoSessions it keeps a session and its GET stream, where a server's
// requests of its client can come; with ProtoStateless the server asks
// with input_required, which the client answers by itself.
func AskedClient(t testing.TB, url, version string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	var topts []transport.StreamableHTTPCOption
	if version == ProtoSessions {
		topts = append(topts, transport.WithContinuousListening())
		opts = append(opts, client.WithSession())
	}
	tr, err := transport.NewStreamableHTTP(url, topts...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, opts...)
	Init(t, c, version)
	return c
}

// Init starts c, closed at the end of the test, and initializes it asking
// for protocol version.
func Init(t testing.TB, c *client.Client, version string) *mcp.InitializeResult {
	t.Helper()
	res, err := InitErr(t, c, version)
	if err != nil {
		t.Fatalf("initialize (%s): %v", version, err)
	}
	return res
}

// InitErr is Init returning initialize's error, for a client the gateway
// should refuse; a client that cannot start still fails the test.
func InitErr(t testing.TB, c *client.Client, version string) (*mcp.InitializeResult, error) {
	t.Helper()
	// Start's context is the client's life, the test's, not initialize's:
	// mcp-go reads a session's GET stream (WithContinuousListening) under
	// it, so with initialize's 30 s the stream was cut 30 s in, and a
	// notification the gateway had just written on it was lost unread.
	if err := c.Start(t.Context()); err != nil {
		t.Fatalf("start client: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := Ctx(t, 30*time.Second)
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "wasmgate-e2e", Version: "1"}
	return c.Initialize(ctx, req)
}

// CallTool calls name with args and returns the joined text and isError.
// A JSON-RPC error fails the test.
func CallTool(ctx context.Context, t testing.TB, c *client.Client, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := CallToolErr(ctx, c, name, args)
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	return ResultText(res), res.IsError
}

// CallToolErr calls name with args.
func CallToolErr(ctx context.Context, c *client.Client, name string, args map[string]any) (*mcp.CallToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return c.CallTool(ctx, req)
}

// ResultText joins the text items of a tool result with newlines.
func ResultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ReadResource reads uri and fails the test on a JSON-RPC error.
func ReadResource(ctx context.Context, t testing.TB, c *client.Client, uri string) []mcp.ResourceContents {
	t.Helper()
	res, err := ReadResourceErr(ctx, c, uri)
	if err != nil {
		t.Fatalf("resources/read %s: %v", uri, err)
	}
	return res.Contents
}

// ReadResourceErr reads uri.
func ReadResourceErr(ctx context.Context, c *client.Client, uri string) (*mcp.ReadResourceResult, error) {
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	return c.ReadResource(ctx, req)
}

// ReadText reads uri, which must hold exactly one text item for uri, and
// returns its text.
func ReadText(ctx context.Context, t testing.TB, c *client.Client, uri string) string {
	t.Helper()
	contents := ReadResource(ctx, t, c, uri)
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

// GetPrompt gets the prompt name with args.
func GetPrompt(ctx context.Context, c *client.Client, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	req := mcp.GetPromptRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return c.GetPrompt(ctx, req)
}

// PromptText joins the text of every message of a prompt result, and
// checks each has role user or assistant.
func PromptText(t testing.TB, res *mcp.GetPromptResult) string {
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

// Tools lists the tool names the client sees, sorted; an error fails the
// test.
func Tools(ctx context.Context, t testing.TB, c *client.Client) []string {
	t.Helper()
	names, err := ToolsErr(ctx, c)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	return names
}

// ToolsErr lists the tool names the client sees, sorted.
func ToolsErr(ctx context.Context, c *client.Client) ([]string, error) {
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	return sortedNames(res.Tools, func(tl mcp.Tool) (string, bool) { return tl.Name, true }), nil
}

// Resources lists the URIs of the resources the client sees, sorted;
// an error fails the test.
func Resources(ctx context.Context, t testing.TB, c *client.Client) []string {
	t.Helper()
	res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatalf("resources/list: %v", err)
	}
	return sortedNames(res.Resources, func(r mcp.Resource) (string, bool) { return r.URI, true })
}

// Templates lists the URI templates of the resource templates the
// client sees, sorted; an error fails the test.
func Templates(ctx context.Context, t testing.TB, c *client.Client) []string {
	t.Helper()
	res, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatalf("resources/templates/list: %v", err)
	}
	return sortedNames(res.ResourceTemplates, func(r mcp.ResourceTemplate) (string, bool) {
		if r.URITemplate == nil {
			return "", false
		}
		return r.URITemplate.Raw(), true
	})
}

// Prompts lists the names of the prompts the client sees, sorted; an
// error fails the test.
func Prompts(ctx context.Context, t testing.TB, c *client.Client) []string {
	t.Helper()
	res, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatalf("prompts/list: %v", err)
	}
	return sortedNames(res.Prompts, func(p mcp.Prompt) (string, bool) { return p.Name, true })
}

// sortedNames is the name of each of items that has one (name's ok),
// sorted.
func sortedNames[T any](items []T, name func(T) (string, bool)) []string {
	var names []string
	for _, it := range items {
		if n, ok := name(it); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// WaitTools polls tools/list until it is want (in any order) or d has
// passed, which fails the test.
func WaitTools(ctx context.Context, t testing.TB, c *client.Client, d time.Duration, want ...string) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	var got []string
	if !WaitFor(d, func() bool {
		got, _ = ToolsErr(ctx, c)
		return slices.Equal(got, want)
	}) {
		t.Fatalf("tools/list is %v after %v, want %v", got, d, want)
	}
}

// Calc calls the example calculator's calculate with a+b and checks the
// exact result.
func Calc(ctx context.Context, t testing.TB, c *client.Client, a, b int) {
	t.Helper()
	CalcTool(ctx, t, c, "calculate", a, b)
}

// CalcTool is Calc with the calculator's tool exposed as name.
func CalcTool(ctx context.Context, t testing.TB, c *client.Client, name string, a, b int) {
	t.Helper()
	text, isErr := CallTool(ctx, t, c, name, map[string]any{"operation": "add", "a": a, "b": b})
	if isErr || text != fmt.Sprint(a+b) {
		t.Fatalf("%s %d+%d = %q (isError %v), want %d", name, a, b, text, isErr, a+b)
	}
}
