package ops

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"testing"
	"time"
)

// slogLine is the line slog's JSON handler writes for the record
// appendLine formats.
func slogLine(t time.Time, attrs []slog.Attr) []byte {
	var buf bytes.Buffer
	rec := slog.NewRecord(t, slog.LevelInfo, "call", 0)
	rec.AddAttrs(attrs...)
	_ = slog.NewJSONHandler(&buf, nil).Handle(context.Background(), rec)
	return buf.Bytes()
}

// FuzzAuditLine checks that appendLine writes what slog's JSON handler
// writes, byte for byte, or declines.
func FuzzAuditLine(f *testing.F) {
	f.Add(int64(1764630000123456789), 0, "bench", "http", "mcp-session-1", "tool", "calculate", "ok", 0.012, "")
	f.Add(int64(0), 3600, "", "stdio", "", "prompt", "greet", "error", 1234.5, "4bf92f3577b34da6a3ce929d0e0e4736")
	f.Add(int64(-62135596800000000), -7*3600, "a\"b\\c\n\r\t\x00\x1f", "<&>", "\u2028\u2029", "\xff\xfe", "é✓😀", "x\x7f", 1e-7, "k")
	f.Add(int64(253402300799999999), 0, "", "", "", "", "", "", 1e21, "")
	f.Add(int64(1), 0, "", "", "", "", "", "", math.Inf(1), "")
	f.Add(int64(1), 0, "", "", "", "", "", "", -0.0, "")
	f.Add(int64(1), 0, "", "", "", "", "", "", 5e-324, "")
	f.Add(int64(1), 0, "", "", "", "", "", "", 1.0, "-no key")
	f.Fuzz(func(t *testing.T, unixNano int64, offset int, principal, transport, session, kind, name, outcome string, ms float64, trace string) {
		at := time.Unix(0, unixNano).In(time.FixedZone("z", offset%(24*3600)))
		attrs := []slog.Attr{
			slog.String("principal", principal), slog.String("transport", transport), slog.String("session", session),
			slog.String("kind", kind), slog.String("name", name), slog.String("outcome", outcome),
			slog.Float64("duration_ms", ms),
		}
		if trace != "" {
			attrs = append(attrs, slog.String("trace_id", trace))
		}
		if len(trace) > 1 && trace[0] == '-' { // an attribute without a key: slog's handler's
			attrs = append(attrs, slog.String("", trace))
		}
		got, ok := appendLine([]byte("prefix"), at, attrs)
		if string(got[:6]) != "prefix" {
			t.Fatalf("appendLine lost what the buffer held: %q", got)
		}
		if !ok {
			if len(got) != 6 {
				t.Fatalf("appendLine declined but appended %q", got[6:])
			}
			if y := at.Year(); y >= 0 && y < 10000 && !math.IsInf(ms, 0) && !math.IsNaN(ms) && !(len(trace) > 1 && trace[0] == '-') {
				t.Fatalf("appendLine declined a line it formats (year %d, %v ms)", y, ms)
			}
			return
		}
		if want := slogLine(at, attrs); !bytes.Equal(got[6:], want) {
			t.Fatalf("appendLine:\n%s\nslog's JSON handler:\n%s", got[6:], want)
		}
	})
}

// TestAppendLineDeclines: a value kind appendLine does not format sends
// the line to slog's handler instead.
func TestAppendLineDeclines(t *testing.T) {
	now := time.Now()
	for _, a := range []slog.Attr{slog.Int("n", 1), slog.Bool("b", true), slog.Any("x", []int{1}), slog.Float64("f", math.NaN())} {
		if b, ok := appendLine(nil, now, []slog.Attr{a}); ok || len(b) != 0 {
			t.Errorf("appendLine(%v) = %q, %v; want it declined", a, b, ok)
		}
	}
}

// BenchmarkAuditLine: one audit line formatted by appendLine, and by
// slog's JSON handler as before.
func BenchmarkAuditLine(b *testing.B) {
	attrs := []slog.Attr{
		slog.String("principal", "bench"), slog.String("transport", "http"), slog.String("session", "mcp-session-4d0a3c1e-8b51-4a43-9d7e-0f5e6f1c2b3a"),
		slog.String("endpoint", "default"), slog.String("kind", "tool"), slog.String("name", "calculate"), slog.String("outcome", "ok"),
		slog.Float64("duration_ms", 0.187), slog.String("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"),
	}
	b.Run("appendLine", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = appendLine(buf[:0], time.Now(), attrs)
		}
	})
	b.Run("slog", func(b *testing.B) {
		var buf bytes.Buffer
		h := slog.NewJSONHandler(&buf, nil)
		for b.Loop() {
			buf.Reset()
			rec := slog.NewRecord(time.Now(), slog.LevelInfo, "call", 0)
			rec.AddAttrs(attrs...)
			_ = h.Handle(context.Background(), rec)
		}
	})
}
