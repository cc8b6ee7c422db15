// Package native is the baseline of make bench: mcp-go's own server with
// one tool, calculate, implemented by a native Go handler that does what
// the calculator example plugin does. mcpbench serves it built with the
// mcp-go wasmgate builds (third_party/mcp-go, patched); bench/stock
// serves it built with the mcp-go release itself, unpatched, which is
// what a user who writes the tool natively in mcp-go gets.
//
// It uses only mcp-go API the release has, so both builds compile it.
package native

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/pdk/jsnum"
)

// Server is mcp-go's own server with the native calculate tool, and opts
// (mcpbench -trace-to's tool middleware).
func Server(opts ...server.ServerOption) *server.MCPServer {
	s := server.NewMCPServer("mcpbench-native", "1", append([]server.ServerOption{server.WithToolCapabilities(false)}, opts...)...)
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
	text, isErr := Calculate(op, a, b)
	if isErr {
		return mcp.NewToolResultError(text), nil
	}
	return mcp.NewToolResultText(text), nil
}

// Calculate is the calculator example's arithmetic: the result's text, or
// the error's and true.
func Calculate(op string, a, b float64) (string, bool) {
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
			return "Division by zero", true
		}
		r = a / b
	default:
		return fmt.Sprintf("Unknown operation %q: expected add, subtract, multiply or divide", op), true
	}
	return jsnum.Format(r), false
}

// Serve serves h on addr (a loopback host:port), printing "serving http://ADDR<path>" once
// it listens, until ctx ends (then shuts down within 5s).
func Serve(ctx context.Context, addr, path string, h http.Handler, stdout io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "serving http://%s%s\n", ln.Addr(), path)
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
