package relay

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/coder/websocket"

	"github.com/wasmgate/wasmgate/internal/relaytest"
)

// BenchmarkCallTool is one tool call through the relay to a page written
// in Go that answers at once: the relay's own cost per call (framing,
// WebSocket, ids), without MCP or a browser.
func BenchmarkCallTool(b *testing.B) {
	f := newFixture(b, demo())
	p := mustDial(b, f.url("demo"))
	p.auth("demo", testToken)
	p.register(map[string]any{"tools": []any{relaytest.CalcTool()}})
	<-f.changes
	go func() {
		ctx := context.Background()
		for {
			_, data, err := p.c.Read(ctx)
			if err != nil {
				return
			}
			var call struct{ ID uint64 }
			json.Unmarshal(data, &call)
			out, _ := json.Marshal(map[string]any{"type": "result", "id": call.ID, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "8"}}}})
			p.c.Write(ctx, websocket.MessageText, out)
		}
	}()
	site := f.site("demo")
	args := json.RawMessage(`{"operation":"add","a":5,"b":3}`)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := site.CallTool(context.Background(), "demo_calculate", args); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
