package main

import (
	"bytes"
	"encoding/json"
	"errors"
)

// RedactJSON redacts raw, a JSON value (a result), without decoding it:
// every string in it except object keys is searched, and a match replaced
// in place; everything else is copied as it is. It returns raw itself and
// false when nothing matched.
//
// An escape (\n, \", ...) is a boundary no pattern spans, as the
// character it stands for is in none of the patterns; a string with a
// \u escape, which may hide a character that is, is decoded, redacted
// and encoded again.
func (r *Redactor) RedactJSON(raw []byte) ([]byte, bool, error) {
	var out []byte
	last := 0 // raw[last:] is not in out yet
	for i := 0; i < len(raw); {
		k := bytes.IndexByte(raw[i:], '"')
		if k < 0 {
			break
		}
		start := i + k
		end, escaped, unicode := stringEnd(raw, start+1)
		if end < 0 {
			return nil, false, errors.New("redact: unterminated string in the result")
		}
		i = end + 1
		if isKey(raw, i) {
			continue
		}
		body := raw[start+1 : end]
		var repl []byte
		switch {
		case unicode:
			var s string
			if err := json.Unmarshal(raw[start:end+1], &s); err != nil {
				return nil, false, err
			}
			red := r.Redact(s)
			if red == s {
				continue
			}
			q, err := quote(red)
			if err != nil {
				return nil, false, err
			}
			repl = q[1 : len(q)-1]
		case escaped:
			var ok bool
			if repl, ok = r.redactEscaped(body); !ok {
				continue
			}
		default:
			var ok bool
			if repl, ok = r.redact(body); !ok {
				continue
			}
		}
		if out == nil {
			out = make([]byte, 0, len(raw)+len(raw)/4)
		}
		out = append(out, raw[last:start+1]...)
		out = append(out, repl...)
		last = end
	}
	if out == nil {
		return raw, false, nil
	}
	return append(out, raw[last:]...), true, nil
}

// stringEnd is the index of the quote that ends the string whose body
// starts at raw[p], and whether the body has escapes, \u ones among them;
// -1 when it does not end.
func stringEnd(raw []byte, p int) (end int, escaped, unicode bool) {
	for p < len(raw) {
		switch raw[p] {
		case '"':
			return p, escaped, unicode
		case '\\':
			escaped = true
			if p+1 < len(raw) && raw[p+1] == 'u' {
				unicode = true
			}
			p += 2
		default:
			p++
		}
	}
	return -1, escaped, unicode
}

// isKey reports whether the string that ended before raw[p] is an object
// key: the next character that is not white space is ':'.
func isKey(raw []byte, p int) bool {
	for ; p < len(raw); p++ {
		switch raw[p] {
		case ' ', '\t', '\n', '\r':
		case ':':
			return true
		default:
			return false
		}
	}
	return false
}

// redactEscaped redacts a string body holding escapes but no \u: the
// text between escapes is redacted piece by piece, each escape kept.
func (r *Redactor) redactEscaped(body []byte) ([]byte, bool) {
	var out []byte
	last := 0
	changed := false
	for p := 0; p <= len(body); {
		k := bytes.IndexByte(body[p:], '\\')
		if k < 0 {
			k = len(body) - p
		}
		piece := body[p : p+k]
		if red, ok := r.redact(piece); ok {
			out = append(out, body[last:p]...)
			out = append(out, red...)
			last = p + k
			changed = true
		}
		p += k + 2 // past the escape
	}
	if !changed {
		return body, false
	}
	return append(out, body[last:]...), true
}

// quote is s as a JSON string, with <, > and & as they are.
func quote(s string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
