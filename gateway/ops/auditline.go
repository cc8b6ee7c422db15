package ops

import (
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/wasmgate/wasmgate/internal/canon"
)

// appendLine appends the line slog's JSONHandler (with default options,
// no groups) writes for an info record "call" at t with attrs, byte for
// byte, newline included: audit.file's format, without the handler's
// costs (a Record whose attributes past the fifth are allocated, a
// json.Marshal for each float). It reports false, appending nothing,
// for what it does not format as the handler does: attributes other
// than strings and finite floats, an empty key, a year outside 0–9999. FuzzAuditLine
// compares the two.
func appendLine(b []byte, t time.Time, attrs []slog.Attr) ([]byte, bool) {
	if y := t.Year(); y < 0 || y >= 10000 {
		return b, false
	}
	for _, a := range attrs {
		if a.Key == "" { // the handler leaves some of these out
			return b, false
		}
		switch a.Value.Kind() {
		case slog.KindString:
		case slog.KindFloat64:
			if f := a.Value.Float64(); math.IsInf(f, 0) || math.IsNaN(f) {
				return b, false
			}
		default:
			return b, false
		}
	}
	b = append(b, `{"time":"`...)
	b = t.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"call"`...)
	for _, a := range attrs {
		b = append(b, ',')
		b = canon.AppendString(b, a.Key)
		b = append(b, ':')
		if a.Value.Kind() == slog.KindString {
			b = canon.AppendString(b, a.Value.String())
		} else {
			b = appendJSONFloat(b, a.Value.Float64())
		}
	}
	return append(b, "}\n"...), true
}

// appendJSONFloat appends f as encoding/json writes a float64 (which
// slog's JSON handler calls): the shortest form, exponent notation
// below 1e-6 and from 1e21, a two-digit negative exponent trimmed.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
