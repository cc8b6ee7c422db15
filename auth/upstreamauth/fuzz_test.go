package upstreamauth

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzTopLevelString: the scanner that reads a caller token's "sub" (the
// cache key's identity, without allocating) never panics, and on every
// JSON object encoding/json reads without escapes or repeated keys it
// finds what encoding/json finds: the top-level "sub" string, or none.
func FuzzTopLevelString(f *testing.F) {
	for _, s := range []string{
		`{"sub":"alice"}`,
		`{"iss":"x","sub":"bob","act":{"sub":"gateway"}}`,
		`{"act":{"sub":"gateway"},"aud":["sub"],"sub":"carol"}`,
		`{"a":"sub","sub":"d"}`,
		`{"sub":1}`,
		`{"sub" : "spaced"}`,
		`{"nested":[{"sub":"no"}]}`,
		`{"sub":"esc\"aped"}`,
		`{"sub":"unterminated`,
		`[{"sub":"array"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := topLevelString(b, "sub")
		// Escapes and invalid UTF-8 (which encoding/json replaces with
		// U+FFFD, and the scanner keeps as bytes: either identifies the
		// subject) are left to encoding/json's own tests.
		if bytes.IndexByte(b, '\\') >= 0 || !utf8.Valid(b) || !json.Valid(b) {
			return
		}
		var m map[string]any
		if json.Unmarshal(b, &m) != nil || repeatsKey(b) {
			return
		}
		want, has := m["sub"].(string)
		if ok != has || string(got) != want {
			t.Fatalf("%q: the scanner read %q (%v); encoding/json %q (%v)", b, got, ok, want, has)
		}
	})
}

// repeatsKey reports whether b, a valid JSON object, names a top-level
// key twice (encoding/json keeps the last, the scanner the first).
func repeatsKey(b []byte) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	seen := map[string]bool{}
	depth := 0
	expectKey := false
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				depth++
				expectKey = depth == 1 && v == '{'
				continue
			case '}', ']':
				depth--
			}
		case string:
			if depth == 1 && expectKey {
				if seen[v] {
					return true
				}
				seen[v] = true
				expectKey = false
				continue
			}
		}
		if depth == 1 {
			expectKey = true
		}
	}
}
