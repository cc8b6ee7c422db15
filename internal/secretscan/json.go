package secretscan

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON redacts every string of the JSON text b, member names included,
// and returns the text encoded again, with true, when it replaced any;
// else b itself and false. Numbers keep the digits b has. Text in which
// no shape's literal appears, and no \u escape could hide one, is not
// decoded: that is the common case, and costs a few substring searches.
func JSON(b []byte, found func(Kind)) ([]byte, bool, error) {
	if !mayHold(b) {
		return b, false, nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return b, false, fmt.Errorf("decoding JSON to scan for secrets: %w", err)
	}
	n := 0
	v = Value(v, func(k Kind) {
		n++
		if found != nil {
			found(k)
		}
	})
	if n == 0 {
		return b, false, nil
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b, false, fmt.Errorf("encoding JSON with secrets replaced: %w", err)
	}
	return out, true, nil
}

// mayHold reports whether a string of the JSON text b could hold a match:
// b holds a literal of some shape, or a \u escape of a character the
// literals are made of, the one way a JSON string can spell them other
// than as themselves. (encoding/json escapes <, > and & as \u003c,
// \u003e and \u0026: text with those alone stays on the fast path.)
func mayHold(b []byte) bool {
	if escapesHint(b) {
		return true
	}
	var lower []byte
	for _, sh := range shapes {
		text := b
		if sh.fold {
			if lower == nil {
				lower = bytes.ToLower(b)
			}
			text = lower
		}
		for _, h := range sh.hints {
			if bytes.Contains(text, []byte(h)) {
				return true
			}
		}
	}
	return false
}

// escapesHint reports whether b has a \u escape of a letter, a digit,
// '_', '-' or a space: the characters of the literals.
func escapesHint(b []byte) bool {
	for {
		i := bytes.Index(b, []byte(`\u`))
		if i < 0 {
			return false
		}
		b = b[i+2:]
		if len(b) < 4 {
			return true // not JSON: decoding will say so
		}
		if b[0] != '0' || b[1] != '0' {
			continue // beyond ASCII
		}
		c, ok := unhex(b[2], b[3])
		if !ok || c == ' ' || c == '-' || c == '_' ||
			'0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			return true
		}
	}
}

func unhex(hi, lo byte) (byte, bool) {
	h, ok1 := hexDigit(hi)
	l, ok2 := hexDigit(lo)
	return h<<4 | l, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// Recoded is v with every string of its JSON encoding redacted (JSON):
// when one was replaced, the redacted text decoded into a new T, which
// is what the caller sends instead of v; else v itself. T must decode
// what it encodes (mcp-go's request and result types do).
func Recoded[T any](v T, found func(Kind)) (T, error) {
	return RecodedWith(v, found, func(b []byte) (T, error) {
		var out T
		err := json.Unmarshal(b, &out)
		return out, err
	})
}

// RecodedWith is Recoded with the redacted text decoded by decode (for
// types that json.Unmarshal cannot fill, such as mcp-go's results, whose
// content items are interfaces).
func RecodedWith[T any](v T, found func(Kind), decode func([]byte) (T, error)) (T, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return v, fmt.Errorf("encoding to scan for secrets: %w", err)
	}
	b, changed, err := JSON(b, found)
	if err != nil || !changed {
		return v, err
	}
	out, err := decode(b)
	if err != nil {
		return v, fmt.Errorf("decoding with secrets replaced: %w", err)
	}
	return out, nil
}
