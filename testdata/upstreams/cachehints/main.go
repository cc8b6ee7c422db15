// Command cachehints is an MCP server over stdio (mcp-go's) that puts
// SEP-2549 caching hints on its list results, whatever the protocol
// revision of the request, for the tests of the gateway's list caching
// (docs/config.md, "lists"): tools/list says ttlMs 5000 and cacheScope
// private, prompts/list ttlMs 7200000 (two hours) and public,
// resources/list ttlMs 3000 and public.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	hooks := &server.Hooks{}
	hooks.AddAfterListTools(func(_ context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		res.SetCacheHints(5000, mcp.CacheScopePrivate)
	})
	hooks.AddAfterListPrompts(func(_ context.Context, _ any, _ *mcp.ListPromptsRequest, res *mcp.ListPromptsResult) {
		res.SetCacheHints(2*60*60*1000, mcp.CacheScopePublic)
	})
	hooks.AddAfterListResources(func(_ context.Context, _ any, _ *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		res.SetCacheHints(3000, mcp.CacheScopePublic)
	})
	s := server.NewMCPServer("cachehints-upstream", "1.0.0", server.WithHooks(hooks),
		server.WithToolCapabilities(true), server.WithPromptCapabilities(true), server.WithResourceCapabilities(false, true))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echoes a message"), mcp.WithString("message", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("message", "")), nil
		})
	s.AddPrompt(mcp.NewPrompt("hint", mcp.WithPromptDescription("A prompt")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("hint", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("hint"))}), nil
		})
	s.AddResource(mcp.NewResource("hint://doc", "doc", mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "hint://doc", MIMEType: "text/plain", Text: "doc"}}, nil
		})
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "cachehints:", err)
		os.Exit(1)
	}
}
