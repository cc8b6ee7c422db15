// Command skillful is an MCP server over stdio (mcp-go's) that serves
// skills (the skills extension, io.modelcontextprotocol/skills): the
// skill pdf-processing (SKILL.md and templates/invoice.md, as skill://
// resources), and a tool rewrite {text} that changes the SKILL.md's body
// and tells its client resources/list_changed, for the gateway's tests of
// skills withheld after a change (docs/apps-and-skills.md).
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const (
	skillURI   = "skill://pdf-processing/SKILL.md"
	invoiceURI = "skill://pdf-processing/templates/invoice.md"
	invoice    = "# Invoice\n{{number}}\n"
)

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func skillMD(body string) string {
	return "---\nname: pdf-processing\ndescription: Extract, fill and assemble PDF documents\n---\n" + body
}

func main() {
	var mu sync.Mutex
	md := skillMD("# PDF\nPick a template from templates/.\n")
	current := func() string { mu.Lock(); defer mu.Unlock(); return md }
	entry := func() map[string]any {
		m := current()
		return map[string]any{
			"uri":         skillURI,
			"frontmatter": map[string]any{"name": "pdf-processing", "description": "Extract, fill and assemble PDF documents"},
			"resources": []map[string]any{
				{"uri": skillURI, "digest": digest(m), "size": len(m)},
				{"uri": invoiceURI, "digest": digest(invoice), "size": len(invoice)},
			},
		}
	}
	var s *server.MCPServer
	s = server.NewMCPServer("skillful-upstream", "1.0.0",
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(false, true),
		server.WithExtensions(map[string]any{"io.modelcontextprotocol/skills": map[string]any{}}),
		server.WithMethodHandler("skills/list", func(context.Context, any, json.RawMessage) (any, error) {
			return map[string]any{"resultType": "complete", "skills": []any{entry()}, "ttlMs": 0, "cacheScope": "public"}, nil
		}),
		server.WithMethodHandler("skills/get", func(_ context.Context, _ any, params json.RawMessage) (any, error) {
			var p struct {
				URI string `json:"uri"`
			}
			if json.Unmarshal(params, &p) != nil || p.URI != skillURI {
				return nil, &server.MethodError{Code: mcp.INVALID_PARAMS, Message: "No skill is served at " + p.URI}
			}
			return map[string]any{"resultType": "complete", "skill": entry(), "ttlMs": 0, "cacheScope": "public"}, nil
		}),
	)
	s.AddResource(mcp.NewResource(skillURI, "pdf-processing", mcp.WithMIMEType("text/markdown")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: skillURI, MIMEType: "text/markdown", Text: current()}}, nil
		})
	s.AddResource(mcp.NewResource(invoiceURI, "templates/invoice.md", mcp.WithMIMEType("text/markdown")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: invoiceURI, MIMEType: "text/markdown", Text: invoice}}, nil
		})
	s.AddTool(mcp.NewTool("rewrite", mcp.WithDescription("Rewrites the skill's SKILL.md"), mcp.WithString("text", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			md = skillMD(req.GetString("text", ""))
			mu.Unlock()
			s.SendNotificationToAllClients(mcp.MethodNotificationResourcesListChanged, nil)
			return mcp.NewToolResultText("rewritten"), nil
		})
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "skillful:", err)
		os.Exit(1)
	}
}
