package plugin

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
)

// TestTooManyNotificationsLogsTraceID: the warning of a call stopped at
// limits.max_notifications carries the call's trace id when it is
// traced, and none when it is not.
func TestTooManyNotificationsLogsTraceID(t *testing.T) {
	var buf bytes.Buffer
	h := &Host{Logger: slog.New(slog.NewTextHandler(&buf, nil)), Metrics: metrics.New("test", "test")}
	spec := loader.PluginSpec{Name: "p"}
	spec.Limits.MaxNotifications = 1
	src := &Source{name: "p", spec: spec, h: h}
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	})
	for _, tc := range []struct {
		ctx  context.Context
		want string
	}{
		{trace.ContextWithSpanContext(context.Background(), sc), "trace_id=4bf92f3577b34da6a3ce929d0e0e4736"},
		{context.Background(), ""},
	} {
		buf.Reset()
		c := src.newCall(tc.ctx)
		if err := c.spend("log"); err != nil {
			t.Fatalf("the first notification: %v", err)
		}
		if err := c.spend("log"); err == nil || !strings.Contains(err.Error(), "limits.max_notifications") {
			t.Fatalf("the second notification: %v, want refused", err)
		}
		line := buf.String()
		if !strings.Contains(line, "too many notifications") {
			t.Fatalf("no warning logged: %q", line)
		}
		if tc.want != "" && !strings.Contains(line, tc.want) {
			t.Errorf("warning of a traced call: %q, want %s", line, tc.want)
		}
		if tc.want == "" && strings.Contains(line, "trace_id") {
			t.Errorf("warning of an untraced call carries a trace id: %q", line)
		}
	}
}
