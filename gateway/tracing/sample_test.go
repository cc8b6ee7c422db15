package tracing

import (
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// TestSamplerRatioZero: with sample_ratio 0 a caller's sampled
// traceparent is not followed; above 0 it is, and an unsampled one never.
func TestSamplerRatioZero(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	remote := func(flags trace.TraceFlags) trace.SpanContext {
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: flags, Remote: true})
	}
	for _, tc := range []struct {
		ratio  float64
		parent trace.SpanContext
		want   bool
	}{
		{0, remote(trace.FlagsSampled), false},
		{0, remote(0), false},
		{0, trace.SpanContext{}, false},
		{0.000001, remote(trace.FlagsSampled), true},
		{1, remote(trace.FlagsSampled), true},
		{1, remote(0), false},
		{1, trace.SpanContext{}, true},
	} {
		ctx := trace.ContextWithRemoteSpanContext(t.Context(), tc.parent)
		if !tc.parent.IsValid() {
			ctx = t.Context()
		}
		res := sampler(tc.ratio).ShouldSample(sdktrace.SamplingParameters{ParentContext: ctx, TraceID: tid, Name: "x"})
		if got := res.Decision == sdktrace.RecordAndSample; got != tc.want {
			t.Errorf("ratio %v, parent sampled %v (valid %v): sampled %v, want %v", tc.ratio, tc.parent.IsSampled(), tc.parent.IsValid(), got, tc.want)
		}
	}
}
