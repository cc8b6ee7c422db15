package server

import (
	"context"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/tracing"
)

// attrTracer counts the spans it starts and keeps their attributes.
type attrTracer struct {
	spans []string
	attrs [][]tracing.Attribute
}

func (t *attrTracer) Start(ctx context.Context, name string, _ tracing.SpanKind, attrs ...tracing.Attribute) (context.Context, tracing.Span) {
	t.spans = append(t.spans, name)
	t.attrs = append(t.attrs, attrs)
	return ctx, nil
}

// TestStartMessageSpanWithoutTracer: a server with no tracer and no
// propagator builds nothing per message (no attributes, no span), and one
// with a tracer still gets its span with every attribute.
func TestStartMessageSpanWithoutTracer(t *testing.T) {
	h := http.Header{}
	h.Set(HeaderKeyProtocolVersion, "2025-11-25")
	ctx := context.Background()

	s := NewMCPServer("test", "1")
	allocs := testing.AllocsPerRun(100, func() {
		_, end := s.startMessageSpan(ctx, h, "tools/call")
		end(mcp.JSONRPCResponse{})
	})
	if allocs != 0 {
		t.Errorf("startMessageSpan without a tracer: %v allocations per message, want 0", allocs)
	}

	rt := &attrTracer{}
	s = NewMCPServer("test", "1")
	s.tracer = rt // as WithTracer sets it, without its tool middleware
	_, _ = s.startMessageSpan(ctx, h, "tools/call")
	if len(rt.spans) != 1 || rt.spans[0] != "mcp.tools/call" {
		t.Fatalf("spans with a tracer: %q, want [mcp.tools/call]", rt.spans)
	}
	want := []tracing.Attribute{tracing.String(attrMethod, "tools/call"), tracing.String(attrProtocolVersion, "2025-11-25")}
	if got := rt.attrs[0]; len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("attributes with a tracer: %v, want %v", got, want)
	}
}
