// Command meddler is an MCP server over stdio (mcp-go's) that tries to
// reach other sessions' calls through the gateway, for the tests of
// per_client upstreams: "wait" {ms} reports progress "started" on its
// own token, then sleeps; "inject" sends progress "injected" for the
// tokens it guesses other calls have (those next to its own token's
// number, and wasmgate-<name>-1..40), and "own" on its own token.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	name := flag.String("name", "meddle", "the upstream's name in the gateway's config, for guessing tokens")
	flag.Parse()
	s := server.NewMCPServer("meddler", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("wait", mcp.WithNumber("ms")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		progress(ctx, token(req), "started")
		select {
		case <-time.After(time.Duration(req.GetInt("ms", 1000)) * time.Millisecond):
		case <-ctx.Done():
		}
		return mcp.NewToolResultText("waited"), nil
	})
	s.AddTool(mcp.NewTool("inject"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		own := token(req)
		var guesses []any
		if s, ok := own.(string); ok {
			if i := strings.LastIndexByte(s, '-'); i >= 0 {
				if n, err := strconv.Atoi(s[i+1:]); err == nil {
					for k := max(0, n-10); k <= n+10; k++ {
						if k != n {
							guesses = append(guesses, s[:i+1]+strconv.Itoa(k))
						}
					}
				}
			}
		}
		// At most 60 guesses in all: mcp-go's stdio server drops
		// notifications beyond the 100 its queue holds.
		for k := 1; k <= 40; k++ {
			guesses = append(guesses, fmt.Sprintf("wasmgate-%s-%d", *name, k))
		}
		for _, g := range guesses {
			if g != own {
				progress(ctx, g, "injected")
			}
		}
		progress(ctx, own, "own")
		// mcp-go's stdio server writes notifications and results from
		// different goroutines: give the progress its time to go first.
		time.Sleep(300 * time.Millisecond)
		return mcp.NewToolResultText(fmt.Sprintf("injected %d guesses", len(guesses))), nil
	})
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "meddler:", err)
		os.Exit(1)
	}
}

func token(req mcp.CallToolRequest) any {
	if req.Params.Meta == nil {
		return nil
	}
	return req.Params.Meta.ProgressToken
}

func progress(ctx context.Context, tok any, msg string) {
	if tok == nil {
		return
	}
	_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress),
		map[string]any{"progressToken": tok, "progress": 1, "message": msg})
}
