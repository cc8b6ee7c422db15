package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/search"
)

// syntheticServer is an MCP server with the n tools of search.Synthetic(n,
// seed): each doc's name, title and description, and its parameters as
// optional string properties with their descriptions.
func syntheticServer(n int, seed uint64) *server.MCPServer {
	s := server.NewMCPServer("searchbench-synthetic", "1", server.WithToolCapabilities(false))
	docs := search.Synthetic(n, seed)
	tools := make([]server.ServerTool, 0, len(docs))
	for _, d := range docs {
		opts := []mcp.ToolOption{mcp.WithDescription(d.Description)}
		for _, p := range d.Params {
			opts = append(opts, mcp.WithString(p.Name, mcp.Description(p.Description)))
		}
		t := mcp.NewTool(d.Name, opts...)
		t.Title = d.Title
		tools = append(tools, server.ServerTool{Tool: t, Handler: answer})
	}
	s.AddTools(tools...)
	return s
}

// answer is every served tool's handler: "ok" and the tool's name.
func answer(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("ok " + req.Params.Name), nil
}

// catalogFile is the shape of gateway/search/testdata/catalog.json: each
// source's tools as the gateway lists them.
type catalogFile struct {
	Sources []struct {
		Name  string            `json:"name"`
		Tools []json.RawMessage `json:"tools"`
	} `json:"sources"`
}

func readCatalog(path string) (catalogFile, error) {
	var c catalogFile
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// catalogServer is an MCP server listing the tools source lists in the
// catalog file at path, their schemas as they are there.
func catalogServer(path, source string) (*server.MCPServer, error) {
	c, err := readCatalog(path)
	if err != nil {
		return nil, err
	}
	s := server.NewMCPServer("searchbench-"+source, "1", server.WithToolCapabilities(false))
	for _, src := range c.Sources {
		if src.Name != source {
			continue
		}
		for _, raw := range src.Tools {
			t, err := replayTool(raw)
			if err != nil {
				return nil, fmt.Errorf("%s: source %s: %w", path, source, err)
			}
			s.AddTool(t, answer)
		}
		return s, nil
	}
	return nil, fmt.Errorf("%s has no source %q", path, source)
}

// replayTool decodes a listed tool, keeping its input and output schemas
// as they are (mcp-go's ToolInputSchema would drop what it does not
// model).
func replayTool(raw json.RawMessage) (mcp.Tool, error) {
	var t mcp.Tool
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, err
	}
	var schemas struct {
		In  json.RawMessage `json:"inputSchema"`
		Out json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(raw, &schemas); err != nil {
		return t, err
	}
	if len(schemas.In) > 0 {
		t.InputSchema, t.RawInputSchema = mcp.ToolInputSchema{}, schemas.In
	}
	if len(schemas.Out) > 0 {
		t.OutputSchema, t.RawOutputSchema = mcp.ToolOutputSchema{}, schemas.Out
	}
	return t, nil
}

// serveStdio serves s over stdin and stdout until stdin ends or ctx does.
func serveStdio(ctx context.Context, s *server.MCPServer, stdin io.Reader, stdout io.Writer) error {
	err := server.NewStdioServer(s).Listen(ctx, stdin, stdout)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// printCatalogBytes prints the bytes of every tool of the catalog file at
// path as one tools/list result, {"tools":[...]} compacted, as JSON.
func printCatalogBytes(path string, stdout io.Writer) error {
	c, err := readCatalog(path)
	if err != nil {
		return err
	}
	var all []json.RawMessage
	for _, src := range c.Sources {
		for _, raw := range src.Tools {
			var b bytes.Buffer
			if err := json.Compact(&b, raw); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			all = append(all, b.Bytes())
		}
	}
	res, err := json.Marshal(struct {
		Tools []json.RawMessage `json:"tools"`
	}{all})
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(map[string]int{"tools": len(all), "bytes": len(res), "sources": len(c.Sources)})
}
