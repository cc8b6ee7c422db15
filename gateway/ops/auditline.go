package ops

import (
	"log/slog"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
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
		b = appendJSONString(b, a.Key)
		b = append(b, ':')
		if a.Value.Kind() == slog.KindString {
			b = appendJSONString(b, a.Value.String())
		} else {
			b = appendJSONFloat(b, a.Value.Float64())
		}
	}
	return append(b, "}\n"...), true
}

// appendJSONString appends s quoted as slog's JSON handler quotes it:
// encoding/json's escapes without HTML escaping, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
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
