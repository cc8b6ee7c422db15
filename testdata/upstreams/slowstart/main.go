// Command slowstart is an MCP server over stdio (mcp-go's) that is slow
// to answer initialize, for the tests and benchmarks of catalogs kept
// across restarts and of start: lazy (docs/upstreams.md, "Catalogs kept
// between runs" and "Lazy upstreams").
//
// It reads nothing of its stdin until it may start:
//
//	SLOWSTART_GATE   a file: it starts once the file exists
//	SLOWSTART_DELAY  a duration (5s): it starts after it
//
// Then it serves SLOWSTART_TOOLS tools (default 3) named tool_0, tool_1,
// ..., each described as "Tool N" (tool_0's with SLOWSTART_DESC, or the
// text of the file SLOWSTART_DESC_FILE read at start, added), answering
// "tool_N from PID"; and the tool pid, answering its process id. Each
// start appends its process id and a newline to the file SLOWSTART_STARTS
// when set.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "slowstart:", err)
		os.Exit(1)
	}
}

func run() error {
	if f := os.Getenv("SLOWSTART_STARTS"); f != "" {
		out, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%d\n", os.Getpid())
		out.Close()
	}
	if d := os.Getenv("SLOWSTART_DELAY"); d != "" {
		dur, err := time.ParseDuration(d)
		if err != nil {
			return fmt.Errorf("SLOWSTART_DELAY: %w", err)
		}
		time.Sleep(dur)
	}
	if gate := os.Getenv("SLOWSTART_GATE"); gate != "" {
		for {
			if _, err := os.Stat(gate); err == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	n := 3
	if v := os.Getenv("SLOWSTART_TOOLS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			return fmt.Errorf("SLOWSTART_TOOLS: %w", err)
		}
	}
	desc := os.Getenv("SLOWSTART_DESC")
	if f := os.Getenv("SLOWSTART_DESC_FILE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		desc = string(b)
	}
	pid := os.Getpid()
	s := server.NewMCPServer("slowstart-upstream", "1.0.0", server.WithToolCapabilities(true))
	for i := range n {
		name := fmt.Sprintf("tool_%d", i)
		d := fmt.Sprintf("Tool %d", i)
		if i == 0 {
			d += desc
		}
		s.AddTool(mcp.NewTool(name, mcp.WithDescription(d)),
			func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText(fmt.Sprintf("%s from %d", name, pid)), nil
			})
	}
	s.AddTool(mcp.NewTool("pid", mcp.WithDescription("Its process id")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strconv.Itoa(pid)), nil
		})
	return server.ServeStdio(s)
}
