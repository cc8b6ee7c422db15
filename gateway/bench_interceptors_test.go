package gateway

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkCallToolInterceptors is a tool call without interceptors,
// with a no-op interceptor in both phases (the Go pass example, the WAT
// noop example), and, over a result of about 10 KiB holding personal
// data, without and with the redact example, in Go and in Rust
// (redact-rs): what an interceptor adds to a call is the difference.
//
//	go test -run '^$' -bench 'CallToolInterceptors' -count 6 ./gateway
func BenchmarkCallToolInterceptors(b *testing.B) {
	wasm := func(p string) string { return builtWasm(b, p) }
	calc, greeter := wasm("examples/plugins/calculator.wasm"), wasm("examples/plugins/greeter.wasm")
	plugins := "plugins:\n  - {path: " + calc + "}\n  - {path: " + greeter + "}\n"
	ic := func(name, path, phase string) string {
		return "interceptors:\n  - {name: " + name + ", path: " + wasm(path) + ", on: [tools/call], phase: " + phase + "}\n"
	}
	// about 10 KiB of text with an address, an IBAN and a card number in
	// each kilobyte
	var big strings.Builder
	for big.Len() < 10<<10 {
		big.WriteString("Contact jane.doe@example.com, IBAN DE89 3704 0044 0532 0130 00, card 4111 1111 1111 1111. ")
		big.WriteString(strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 14))
	}
	for _, tc := range []struct{ name, yaml, tool string }{
		{"off", plugins, "calculate"},
		{"go-pass", plugins + ic("pass", "examples/interceptors/pass.wasm", "both"), "calculate"},
		{"wat-noop", plugins + ic("noop", "examples/interceptors/noop.wasm", "both"), "calculate"},
		{"10KiB-off", plugins, "say_hello"},
		{"10KiB-redact", plugins + ic("redact", "examples/interceptors/redact.wasm", "response"), "say_hello"},
		{"10KiB-redact-rs", plugins + ic("redact", "examples/interceptors/redact-rs.wasm", "response"), "say_hello"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			g := openTestGateway(b, tc.yaml)
			h := g.Endpoint("default").Envelope().ToolHandler(tc.tool)
			req := mcp.CallToolRequest{}
			req.Params.Name = tc.tool
			req.Params.Arguments = map[string]any{"operation": "add", "a": 5.0, "b": 3.0}
			if tc.tool == "say_hello" {
				req.Params.Arguments = map[string]any{"name": big.String()}
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			res, err := h(ctx, req)
			if err != nil || res.IsError {
				b.Fatalf("call failed: %v %+v", err, res)
			}
			if strings.Contains(tc.name, "redact") && strings.Contains(fmtText(res), "jane.doe@example.com") {
				b.Fatal("the redact interceptor did not redact")
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func fmtText(res *mcp.CallToolResult) string {
	var s strings.Builder
	for _, c := range res.Content {
		if t, ok := mcp.AsTextContent(c); ok {
			s.WriteString(t.Text)
		}
	}
	return s.String()
}
