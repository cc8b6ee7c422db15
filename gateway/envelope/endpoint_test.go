package envelope

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/metrics"
	"github.com/wasmgate/wasmgate/policy"
	"github.com/wasmgate/wasmgate/wire"
)

// echoSource is a source named echo-src with a tool echo, which answers
// its arguments, and a prompt hi.
type echoSource struct{}

func (echoSource) Name() string           { return "echo-src" }
func (echoSource) Key() string            { return "plugins[0]" }
func (echoSource) Prefix() string         { return "" }
func (echoSource) Timeout() time.Duration { return 5 * time.Second }
func (echoSource) Descriptor() abi.Descriptor {
	return abi.Descriptor{
		Tools:   []wire.Tool{{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Prompts: []wire.Prompt{{Name: "hi"}},
	}
}
func (echoSource) CallTool(_ context.Context, _ string, args json.RawMessage) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText(string(args)), nil
}
func (echoSource) ReadResource(context.Context, abi.Resource, string, map[string]string) ([]mcp.ResourceContents, error) {
	return nil, nil
}
func (echoSource) GetPrompt(context.Context, string, map[string]string) ([]mcp.PromptMessage, error) {
	return []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("hi"))}, nil
}

// indexState serves an index without a policy.
type indexState struct{ x *source.Index }

func (s indexState) Index() *source.Index    { return s.x }
func (s indexState) Policy() *policy.Policy  { return nil }
func (s indexState) Stdio() policy.Principal { return policy.Principal{Name: "local"} }

// recorder keeps the calls it observes.
type recorder struct {
	mu    sync.Mutex
	calls []Call
}

func (r *recorder) Observe(_ context.Context, c *Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, *c)
}

// TestEndpointLabels: the endpoint an envelope runs the calls of
// (Options.Endpoint; default when it is empty) is the endpoint label of
// the call metrics, beside the label source, the Endpoint of the call
// every observer sees (the audit line, the status page) and the span's
// wasmgate.endpoint.
func TestEndpointLabels(t *testing.T) {
	for _, tc := range []struct{ endpoint, want string }{{"", "default"}, {"dev", "dev"}} {
		x := source.NewIndex()
		if errs := x.Add("g.yaml", echoSource{}); len(errs) != 0 {
			t.Fatal(errs)
		}
		m := metrics.New("test", "test")
		rec := &recorder{}
		spans := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
		e := New(Options{
			Endpoint: tc.endpoint,
			Begin:    func() (State, func(), error) { return indexState{x}, func() {}, nil },
			Metrics:  m,
			Observer: Observers{NewMetrics(m), rec},
			Logger:   slog.New(slog.DiscardHandler),
			Tracer:   func(context.Context) trace.Tracer { return tp.Tracer("test") },
		})
		ctx := context.Background()
		req := mcp.CallToolRequest{}
		req.Params.Name = "echo"
		req.Params.Arguments = map[string]any{"a": 1}
		if res, err := e.ToolHandler("echo")(ctx, req); err != nil || res.IsError {
			t.Fatalf("echo: %v %+v", err, res)
		}
		preq := mcp.GetPromptRequest{}
		preq.Params.Name = "hi"
		if _, err := e.PromptHandler("hi")(ctx, preq); err != nil {
			t.Fatalf("hi: %v", err)
		}
		e.Close()
		_ = tp.Shutdown(ctx)

		if n := testutil.ToFloat64(m.ToolCalls.WithLabelValues("echo", "echo-src", tc.want, metrics.OutcomeOK)); n != 1 {
			t.Errorf("endpoint %q: wasmgate_tool_calls_total{tool=echo,source=echo-src,endpoint=%s,outcome=ok} = %v, want 1", tc.endpoint, tc.want, n)
		}
		if n := testutil.ToFloat64(m.PromptGets.WithLabelValues("echo-src", tc.want, metrics.OutcomeOK)); n != 1 {
			t.Errorf("endpoint %q: wasmgate_prompt_gets_total{source=echo-src,endpoint=%s,outcome=ok} = %v, want 1", tc.endpoint, tc.want, n)
		}
		// One series each, no other endpoint: in flight (back to 0), the
		// histogram, the calls.
		for name, c := range map[string]int{"in flight": testutil.CollectAndCount(m.ToolsInFlight), "duration": testutil.CollectAndCount(m.ToolDuration), "calls": testutil.CollectAndCount(m.ToolCalls)} {
			if c != 1 {
				t.Errorf("endpoint %q: %d %s series, want 1", tc.endpoint, c, name)
			}
		}
		if v := testutil.ToFloat64(m.ToolsInFlight.WithLabelValues("echo-src", tc.want)); v != 0 {
			t.Errorf("endpoint %q: in flight %v after the call, want 0", tc.endpoint, v)
		}
		if len(rec.calls) != 2 {
			t.Fatalf("endpoint %q: %d calls observed, want 2", tc.endpoint, len(rec.calls))
		}
		for _, c := range rec.calls {
			if c.Endpoint != tc.want || c.Source != "echo-src" {
				t.Errorf("endpoint %q: observed %s %s with endpoint %q, source %q; want %q, echo-src", tc.endpoint, c.Kind, c.Name, c.Endpoint, c.Source, tc.want)
			}
		}
		var found int
		for _, s := range spans.Ended() {
			for _, a := range s.Attributes() {
				if a.Key == "wasmgate.endpoint" {
					found++
					if a.Value.AsString() != tc.want {
						t.Errorf("endpoint %q: span %q has wasmgate.endpoint %q, want %q", tc.endpoint, s.Name(), a.Value.AsString(), tc.want)
					}
				}
			}
		}
		if found != 2 {
			t.Errorf("endpoint %q: %d spans with wasmgate.endpoint, want the 2 calls'", tc.endpoint, found)
		}
	}
}
