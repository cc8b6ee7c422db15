package glob

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		glob, s string
		want    bool
	}{
		{"*", "", true},
		{"*", "a/b:c", true},
		{"**", "", true},
		{"echo", "echo", true},
		{"echo", "echo2", false},
		{"echo", "Echo", false},
		{"a*", "a", true},
		{"a*", "ba", false},
		{"*.txt", "x.txt", true},
		{"*.txt", "x.txt.bak", false},
		{"a*b", "acb", true},
		{"a*b", "ab", true},
		{"a*b", "ac", false},
		{"a*a", "a", false},
		{"*ab", "aab", true},
		{"*a*b*c", "xaybzc", true},
		{"*a*b*c", "xaybz", false},
		{"a?c*", "abcdef", true},
		{"?", "é", true},
		{"??", "é", false},
		{"?", "", false},
		{"calc_?", "calc_10", false},
		{`a\*`, "a*", true},
		{`a\*`, "ab", false},
		{`\?`, "?", true},
		{`\?`, "x", false},
		{`a\\b`, `a\b`, true},
		{`\a`, "a", true},
		{"file:///docs/*", "file:///docs/a/b.md", true},
		{"file:///docs/*", "file:///docs", false},
		{"https://x/y?q=*", "https://x/y?q=1", true},
		{"*/*", "a/b/c", true},
		{"*/*", "abc", false},
	}
	for _, c := range cases {
		g, err := Compile(c.glob)
		if err != nil {
			t.Fatalf("Compile(%q): %v", c.glob, err)
		}
		if got := g.Match(c.s); got != c.want {
			t.Errorf("glob %q match %q = %v, want %v", c.glob, c.s, got, c.want)
		}
		if got := matchTokens(g.toks, c.s); got != c.want {
			t.Errorf("glob %q (general path) match %q = %v, want %v", c.glob, c.s, got, c.want)
		}
		if got := refMatch(t, c.glob, c.s); got != c.want {
			t.Errorf("reference: glob %q match %q = %v, want %v", c.glob, c.s, got, c.want)
		}
	}
}

func TestGlobErrors(t *testing.T) {
	for glob, want := range map[string]string{
		"":                            "empty pattern",
		`a\`:                          `ends with a lone '\'`,
		"a\xff":                       "not valid UTF-8",
		strings.Repeat("a", MaxLen+1): "longer than 1024 bytes",
	} {
		_, err := Compile(glob)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Compile(%q) = %v, want an error with %q", glob, err, want)
		}
	}
}

// TestGlobNotExponential would take years with a backtracking matcher.
func TestGlobNotExponential(t *testing.T) {
	g, err := Compile(strings.Repeat("*a", 30) + "b")
	if err != nil {
		t.Fatal(err)
	}
	if g.Match(strings.Repeat("a", 20000)) {
		t.Error("matched a string without b")
	}
	if !overlaps(g.toks, templateTokens(strings.Repeat("{x}a", 30)+"c{y}")) {
		t.Error("no overlap")
	}
}

func TestTemplateTokens(t *testing.T) {
	for tmpl, want := range map[string]string{
		"storage://{key}":       "storage://*",
		"file:///{+path}{?q,r}": "file:///*",
		"a{x}b{y}":              "a*b*",
		"no-vars":               "no-vars",
		"open{":                 "open{",
		"{a}{b}":                "*",
		"x://{a}/{b}":           "x://*/*",
	} {
		if got := tokensString(templateTokens(tmpl)); got != want {
			t.Errorf("templateTokens(%q) = %q, want %q", tmpl, got, want)
		}
	}
}

// tokensString writes tokens back as a glob (for literal '*', '?', '\'
// not escaped: the tests avoid them).
func tokensString(toks []token) string {
	var b strings.Builder
	for _, t := range toks {
		switch t.op {
		case opStar:
			b.WriteByte('*')
		case opOne:
			b.WriteByte('?')
		default:
			b.WriteRune(t.r)
		}
	}
	return b.String()
}

func TestOverlapsAndCovers(t *testing.T) {
	cases := []struct {
		glob, tmpl      string
		overlap, covers bool
	}{
		{"storage://*", "storage://{key}", true, true},
		{"storage://public/*", "storage://{key}", true, false},
		{"storage://public/*", "storage://public/{key}", true, true},
		{"storage://public/*", "storage://private/{key}", false, false},
		{"file:///*", "storage://{k}", false, false},
		{"*", "anything{x}", true, true},
		{"*/*", "{a}/{b}", true, true},
		{"a?c", "a{x}c", true, false},
		{"a?c", "abc", true, true},
		{"a?c", "abd", false, false},
		{"*x", "{a}y", false, false},
		{"*x", "{a}x", true, true},
		{"*x*", "{a}", true, false},
		{"db://?/*", "db://{a}/{b}", true, false},
		{"db://t/*", "db://t/{a}/x", true, true},
	}
	for _, c := range cases {
		g, err := Compile(c.glob)
		if err != nil {
			t.Fatal(err)
		}
		tt := templateTokens(c.tmpl)
		if got := overlaps(g.toks, tt); got != c.overlap {
			t.Errorf("overlaps(%q, %q) = %v, want %v", c.glob, c.tmpl, got, c.overlap)
		}
		if got := overlaps(tt, g.toks); got != c.overlap {
			t.Errorf("overlaps(%q, %q) = %v, want %v (reversed)", c.tmpl, c.glob, got, c.overlap)
		}
		if got := covers(g.toks, tt); got != c.covers {
			t.Errorf("covers(%q, %q) = %v, want %v", c.glob, c.tmpl, got, c.covers)
		}
	}
}

// refMatch is the glob as a regular expression, the reference for tests.
func refMatch(t testing.TB, glob, s string) bool {
	t.Helper()
	re, err := regexp.Compile(globRegexp(glob))
	if err != nil {
		t.Fatalf("reference regexp for %q: %v", glob, err)
	}
	return re.MatchString(s)
}

func globRegexp(glob string) string {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	for i := 0; i < len(glob); {
		r, size := utf8.DecodeRuneInString(glob[i:])
		i += size
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '\\':
			r, size = utf8.DecodeRuneInString(glob[i:])
			i += size
			b.WriteString(regexp.QuoteMeta(string(r)))
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(`\z`)
	return b.String()
}
