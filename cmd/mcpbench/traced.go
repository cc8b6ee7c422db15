package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// tracedNative is what -serve -trace-to adds to the native server: the
// spans the gateway records for a sampled tools/call (a server span for
// the request with the same six attributes, and a child span for the
// tool's own work), through the same OpenTelemetry SDK, batcher settings
// and OTLP/HTTP exporter, every call sampled. Beside the native server
// without it, it is what those libraries cost any Go MCP server on the
// same machine, whatever the server does besides (make bench-tracing).
type tracedNative struct {
	tp *sdktrace.TracerProvider
	tr trace.Tracer
}

func newTracedNative(ctx context.Context, endpoint string) (*tracedNative, error) {
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
	if err != nil {
		return nil, fmt.Errorf("-trace-to %q: %w", endpoint, err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(1))),
		sdktrace.WithBatcher(exp,
			sdktrace.WithMaxQueueSize(8192),
			sdktrace.WithMaxExportBatchSize(2048),
			sdktrace.WithBatchTimeout(time.Second),
			sdktrace.WithExportTimeout(10*time.Second)))
	return &tracedNative{tp: tp, tr: tp.Tracer("mcpbench")}, nil
}

// middleware records the call's child span around the tool handler, and
// the attributes on the request's span.
func (t *tracedNative) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		parent := trace.SpanFromContext(ctx)
		cctx, span := t.tr.Start(ctx, "native call")
		res, err := next(cctx, req)
		outcome := "ok"
		if err != nil || (res != nil && res.IsError) {
			outcome = "error"
			span.SetStatus(codes.Error, outcome)
		}
		span.End()
		parent.SetAttributes(
			attribute.String("mcp.method.name", "tools/call"),
			attribute.String("gen_ai.tool.name", req.Params.Name),
			attribute.String("wasmgate.principal", "anonymous"),
			attribute.String("wasmgate.source", "native"),
			attribute.String("wasmgate.source.kind", "native"),
			attribute.String("wasmgate.outcome", outcome))
		return res, err
	}
}

// handler starts the request's server span around h.
func (t *tracedNative) handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, span := t.tr.Start(r.Context(), "tools/call", trace.WithSpanKind(trace.SpanKindServer))
		h.ServeHTTP(w, r.WithContext(ctx))
		span.End()
	})
}

// shutdown flushes and stops the exporter.
func (t *tracedNative) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = t.tp.Shutdown(ctx)
}
