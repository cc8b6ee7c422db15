package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/pdk/jsnum"
)

// serveNative serves, on addr (a loopback host:port), mcp-go's own
// Streamable HTTP server at /mcp with one tool, calculate, implemented by a
// native Go handler that does what the calculator example plugin does. It
// is the ceiling `make bench` measures wasmgate against: the same stack
// (net/http, mcp-go, sessions) without the gateway and without WebAssembly.
// It prints "serving http://ADDR/mcp" once it listens, and returns when
// ctx ends.
func serveNative(ctx context.Context, addr string, stdout io.Writer) error {
	s := newNative()
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(s, server.WithEndpointPath("/mcp")))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "serving http://%s/mcp\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// serveNativeStdio serves newNative over stdin and stdout until stdin
// closes or ctx ends.
func serveNativeStdio(ctx context.Context, stdout io.Writer) error {
	err := server.NewStdioServer(newNative()).Listen(ctx, os.Stdin, stdout)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// newNative is mcp-go's server with the native calculate tool.
func newNative() *server.MCPServer {
	s := server.NewMCPServer("mcpbench-native", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("calculate",
		mcp.WithDescription("Performs basic arithmetic on two numbers: add, subtract, multiply or divide a by b."),
		mcp.WithString("operation", mcp.Required(), mcp.Enum("add", "subtract", "multiply", "divide")),
		mcp.WithNumber("a", mcp.Required()),
		mcp.WithNumber("b", mcp.Required()),
	), calculate)
	return s
}

// calculate is the calculator example's tool as a native handler.
func calculate(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args := req.GetArguments()
	op, _ := args["operation"].(string)
	a, okA := args["a"].(float64)
	b, okB := args["b"].(float64)
	if !okA || !okB {
		return mcp.NewToolResultError("Invalid operands: expected numbers a and b"), nil
	}
	var r float64
	switch op {
	case "add":
		r = a + b
	case "subtract":
		r = a - b
	case "multiply":
		r = a * b
	case "divide":
		if b == 0 {
			return mcp.NewToolResultError("Division by zero"), nil
		}
		r = a / b
	default:
		return mcp.NewToolResultError(fmt.Sprintf("Unknown operation %q: expected add, subtract, multiply or divide", op)), nil
	}
	return mcp.NewToolResultText(jsnum.Format(r)), nil
}
