package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/cmd/mcpbench/native"
)

// serveNative serves, on addr (a loopback host:port), mcp-go's own
// Streamable HTTP server at /mcp with one tool, calculate, implemented by a
// native Go handler that does what the calculator example plugin does. It
// is the ceiling `make bench` measures wasmgate against: the same stack
// (net/http, mcp-go, sessions) without the gateway and without WebAssembly.
// It prints "serving http://ADDR/mcp" once it listens, and returns when
// ctx ends.
// With traceTo (an OTLP/HTTP endpoint, -trace-to), every call is traced as
// the gateway traces one (tracedNative).
func serveNative(ctx context.Context, addr, traceTo string, stdout io.Writer) error {
	var opts []server.ServerOption
	wrap := func(h http.Handler) http.Handler { return h }
	if traceTo != "" {
		t, err := newTracedNative(ctx, traceTo)
		if err != nil {
			return err
		}
		defer t.shutdown()
		opts = append(opts, server.WithToolHandlerMiddleware(t.middleware))
		wrap = t.handler
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", wrap(server.NewStreamableHTTPServer(native.Server(opts...), server.WithEndpointPath("/mcp"))))
	return native.Serve(ctx, addr, "/mcp", mux, stdout)
}

// serveOTLPSink accepts OTLP/HTTP exports on addr and discards them (the
// collector of make bench-tracing).
func serveOTLPSink(ctx context.Context, addr string, stdout io.Writer) error {
	return native.Serve(ctx, addr, "/v1/traces", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}), stdout)
}

// serveReverseProxy serves, on addr, net/http/httputil's reverse proxy to
// target's host, with keep-alive connections enough for every client: an
// HTTP proxy that does nothing but forward, the floor under what any
// gateway fronting an HTTP upstream can reach on the same machine. It
// prints "serving http://ADDR/…" once it listens, and returns when ctx
// ends.
func serveReverseProxy(ctx context.Context, addr string, target *url.URL, stdout io.Writer) error {
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	rp.Transport = newTransport(maxClients)
	return native.Serve(ctx, addr, target.Path, rp, stdout)
}

// serveNativeStdio serves the native server over stdin and stdout (the
// stdio upstream of make bench's upstream figures) until stdin ends or
// ctx does.
func serveNativeStdio(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	err := server.NewStdioServer(native.Server()).Listen(ctx, stdin, stdout)
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
