// Command stock serves make bench's native baseline (the calculate tool
// of cmd/mcpbench/native, on mcp-go's Streamable HTTP server at /mcp)
// built with the mcp-go release wasmgate's go.mod names, unpatched: this
// module has no replace for mcp-go, so it compiles the release itself,
// not third_party/mcp-go. It is what a user who writes the tool natively
// in mcp-go gets, beside `mcpbench -serve`, the same server built with
// wasmgate's patched mcp-go.
//
//	stock 127.0.0.1:PORT    (prints "serving http://ADDR/mcp"; stops on SIGINT or SIGTERM)
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/cmd/mcpbench/native"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: stock 127.0.0.1:PORT")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	mux := http.NewServeMux()
	mux.Handle("/mcp", server.NewStreamableHTTPServer(native.Server(), server.WithEndpointPath("/mcp")))
	if err := native.Serve(ctx, os.Args[1], "/mcp", mux, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "stock:", err)
		os.Exit(1)
	}
}
