package main

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

// serveNative serves, on addr (a loopback host:port), mcp-go's own
// Streamable HTTP server at /mcp with one tool, calculate, implemented by a
// native Go handler that does what the calculator example plugin does. It
// is the ceiling `make bench` measures wasmgate against: the same stack
// (net/http, mcp-go, sessions) without the gateway and without WebAssembly.
// It prints "serving http://ADDR/mcp" once it listens, and returns when
// ctx ends.
func serveNative(ctx context.Context, addr string, stdout io.Writer) error {
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(nativeServer(), server.WithEndpointPath("/mcp")))
	return serveUntil(ctx, addr, "/mcp", mux, stdout)
}

// serveOTLPSink accepts OTLP/HTTP exports on addr and discards them (the
// collector of make bench-tracing).
func serveOTLPSink(ctx context.Context, addr string, stdout io.Writer) error {
	return serveUntil(ctx, addr, "/v1/traces", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}), stdout)
}

// serveUntil serves h on addr, printing "serving http://ADDR<path>" once
// it listens, until ctx ends (then shuts down within 5s).
func serveUntil(ctx context.Context, addr, path string, h http.Handler, stdout io.Writer) error {
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

// nativeServer is mcp-go's own server with the native calculate tool.
func nativeServer() *server.MCPServer {
	s := server.NewMCPServer("mcpbench-native", "1", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("calculate",
		mcp.WithDescription("Performs basic arithmetic on two numbers: add, subtract, multiply or divide a by b."),
		mcp.WithString("operation", mcp.Required(), mcp.Enum("add", "subtract", "multiply", "divide")),
		mcp.WithNumber("a", mcp.Required()),
		mcp.WithNumber("b", mcp.Required()),
	), calculate)
	return s
}

// serveNativeStdio serves the native server over stdin and stdout (the
// stdio upstream of make bench's upstream figures) until stdin ends or
// ctx does.
func serveNativeStdio(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	err := server.NewStdioServer(nativeServer()).Listen(ctx, stdin, stdout)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
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
