package servercard

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// The draft schema's name pattern, and the AI Catalog identifier's shape.
var (
	namePattern = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	urnPattern  = regexp.MustCompile(`^urn:air:[a-zA-Z0-9.-]+:mcp:[a-zA-Z0-9._-]+$`)
)

// FuzzName: whatever Host header a request brings, a card's name
// matches the draft's pattern and the catalog identifier keeps its
// shape (an endpoint name is letters, digits, _ - . by the loader's
// check), and neither panics.
func FuzzName(f *testing.F) {
	for _, h := range []string{"mcp.example.com", "127.0.0.1:8080", "[::1]:8080", "", ":", "a/b", "ex ample.com", "ä.example", "..", "x:y:z"} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if n := Name(host, "dev"); !namePattern.MatchString(n) || len(n) < 3 {
			t.Errorf("Name(%q) = %q: not the draft's name pattern", host, n)
		}
		if id := Identifier(host, "dev"); !urnPattern.MatchString(id) {
			t.Errorf("Identifier(%q) = %q", host, id)
		}
	})
}

// FuzzDescription: any text becomes a description of at most 100
// characters, valid UTF-8, not empty when the text has a letter.
func FuzzDescription(f *testing.F) {
	for _, s := range []string{"", "Tools.", strings.Repeat("word ", 40), strings.Repeat("ü", 150), "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := Description(s)
		if utf8.RuneCountInString(d) > MaxDescription || !utf8.ValidString(d) && utf8.ValidString(s) {
			t.Errorf("Description(%q) = %q (%d characters)", s, d, utf8.RuneCountInString(d))
		}
		if strings.TrimSpace(s) != "" && d == "" {
			t.Errorf("Description(%q) is empty", s)
		}
	})
}

// FuzzETagMatches: an If-None-Match header never panics, and a header
// holding the tag among others matches it.
func FuzzETagMatches(f *testing.F) {
	for _, s := range []string{"", "*", `"a"`, `W/"a", "b"`, ",,,", `"a`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		etagMatches(header, `"tag"`)
		if !etagMatches(header+`, "tag"`, `"tag"`) {
			t.Errorf("%q with the tag added does not match", header)
		}
	})
}
