package gateway

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkCallToolFlows is BenchmarkCallToolSerial without a flows
// section, and with a lethal-trifecta rule and calculate labelled
// [private, egress] (each call reads its scope's taint, the rule does not
// fire, and its labels are there already) or [private] (each call adds
// its label): what flow control adds to a call in memory is the
// difference.
//
//	go test -run '^$' -bench 'CallToolFlows' -count 6 ./gateway
func BenchmarkCallToolFlows(b *testing.B) {
	_, file, _, _ := runtime.Caller(0)
	wasm := filepath.Join(filepath.Dir(file), "..", "examples", "plugins", "calculator.wasm")
	if _, err := os.Stat(wasm); err != nil {
		b.Skipf("%s not built (make plugins): %v", wasm, err)
	}
	rule := "flows:\n  rules:\n    - {name: trifecta, after: [private, untrusted], block: [egress]}\n"
	plugins := func(labels string) string {
		return "plugins:\n  - {path: " + wasm + ", labels: " + labels + "}\n  - {name: u, path: " + wasm + ", prefix: u, labels: [untrusted, egress]}\n"
	}
	for _, tc := range []struct{ name, yaml string }{
		{"off", "plugins:\n  - {path: " + wasm + "}\n"},
		{"blockable", rule + plugins("[private, egress]")},
		{"tainting", rule + plugins("[private]")},
	} {
		b.Run(tc.name, func(b *testing.B) {
			g := openTestGateway(b, tc.yaml)
			h := g.Endpoint("default").Envelope().ToolHandler("calculate")
			req := mcp.CallToolRequest{}
			req.Params.Name = "calculate"
			req.Params.Arguments = map[string]any{"operation": "add", "a": 5.0, "b": 3.0}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b.ReportAllocs()
			for b.Loop() {
				res, err := h(ctx, req)
				if err != nil || res.IsError {
					b.Fatalf("call failed: %v %+v", err, res)
				}
			}
		})
	}
}
