package gateway

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
)

// newTestGateway serves the calculator example in-process.
func newTestGateway(tb testing.TB) *Gateway {
	tb.Helper()
	return newTestGatewayWith(tb, "")
}

// newTestGatewayWith serves the calculator example in-process with extra
// top-level YAML (e.g. a transports: section) in its config.
func newTestGatewayWith(tb testing.TB, extra string) *Gateway {
	tb.Helper()
	return openTestGateway(tb, extra+"plugins:\n  - path: "+builtWasm(tb, "examples/plugins/calculator.wasm")+"\n")
}

// builtWasm is the path of a module built by `make plugins`, rel from
// the repository's root (e.g. examples/plugins/calculator.wasm),
// skipping tb when it is not built.
func builtWasm(tb testing.TB, rel string) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", filepath.FromSlash(rel))
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("%s not built (make plugins): %v", path, err)
	}
	return path
}

// calcRequest is the call the call-path benchmarks make: calculate,
// adding 5 and 3.
func calcRequest() mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = "calculate"
	req.Params.Arguments = map[string]any{"operation": "add", "a": 5.0, "b": 3.0}
	return req
}

// benchCallSerial calls calculate (calcRequest) through g's default
// endpoint in b.Loop, one caller at a time, under a cancellable context
// like a request's, failing b on an error.
func benchCallSerial(b *testing.B, g *Gateway) {
	b.Helper()
	h := g.Endpoint("default").Envelope().ToolHandler("calculate")
	req := calcRequest()
	ctx, cancel := context.WithCancel(context.Background()) // like a request's context
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		res, err := h(ctx, req)
		if err != nil || res.IsError {
			b.Fatalf("call failed: %v %+v", err, res)
		}
	}
}

// openTestGateway serves the config yaml in-process, closed at the end
// of the test.
func openTestGateway(tb testing.TB, yaml string) *Gateway {
	tb.Helper()
	cfgPath := filepath.Join(tb.TempDir(), "gateway.yaml")
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o644); err != nil {
		tb.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	compiler, err := loader.NewCompiler(filepath.Join(os.TempDir(), "wasmgate-bench-cache"), logger)
	if err != nil {
		tb.Fatal(err)
	}
	cfg, err := loader.Load(cfgPath, nil)
	if err != nil {
		tb.Fatal(err)
	}
	g, err := Open(context.Background(), cfg, Options{Logger: logger, Metrics: metrics.New("test", "test"), Compiler: compiler, ConfigPath: cfgPath})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { g.Close(context.Background()); compiler.Close(context.Background()) })
	return g
}

// BenchmarkCallTool measures the gateway's call path without a transport:
// validation, pool, the WebAssembly call, metrics.
func BenchmarkCallTool(b *testing.B) {
	g := newTestGateway(b)
	h := g.Endpoint("default").Envelope().ToolHandler("calculate")
	req := calcRequest()
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := h(ctx, req)
			if err != nil || res.IsError {
				b.Fatalf("call failed: %v %+v", err, res)
			}
		}
	})
}

// BenchmarkCallToolSerial is one caller at a time: the latency of a call.
func BenchmarkCallToolSerial(b *testing.B) {
	benchCallSerial(b, newTestGateway(b))
}

// BenchmarkCallToolTracing is BenchmarkCallToolSerial with tracing off,
// with sample_ratio 0 and with sample_ratio 1 (exported to a collector
// that is not there: the spans are built, batched and dropped), so the
// cost of tracing on the call path is the difference.
func BenchmarkCallToolTracing(b *testing.B) {
	for _, tc := range []struct{ name, yaml string }{
		{"off", ""},
		{"ratio0", "tracing: {endpoint: http://127.0.0.1:9, sample_ratio: 0}\n"},
		{"ratio1", "tracing: {endpoint: http://127.0.0.1:9, sample_ratio: 1}\n"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			benchCallSerial(b, newTestGatewayWith(b, tc.yaml))
		})
	}
}
