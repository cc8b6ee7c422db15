package glob

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// FuzzGlob checks the matcher against regexp, and the template checks
// (overlaps, covers) for soundness on expansions of the template.
func FuzzGlob(f *testing.F) {
	f.Add("calc_*", "calc_{op}", "add")
	f.Add("file:///docs/*", "file:///{+path}", "docs/a/b")
	f.Add("a?c*", "a{x}c", "b")
	f.Add(`a\*b\?`, "a*b{q}", "?")
	f.Add("*a*a*a*b", "{x}a{y}", "aaaaaaaaaaaa")
	f.Add("?é*", "{x}é", "ü")
	f.Add("**x", "{a}{b}x", "")
	f.Fuzz(func(t *testing.T, pattern, tmpl, s string) {
		g, err := Compile(pattern)
		if err != nil {
			lone := (len(pattern)-len(strings.TrimRight(pattern, `\`)))%2 == 1
			if pattern != "" && len(pattern) <= MaxLen && utf8.ValidString(pattern) && !lone {
				t.Fatalf("Compile(%q): %v", pattern, err)
			}
			return
		}
		got := g.Match(s)
		if re := regexp.MustCompile(globRegexp(pattern)); re.MatchString(s) != got {
			t.Fatalf("glob %q on %q: %v, regexp %s says %v", pattern, s, got, re, !got)
		}
		if matchTokens(g.toks, s) != got {
			t.Fatalf("glob %q on %q: fast path %v, general path %v", pattern, s, got, !got)
		}
		if !overlaps(g.toks, g.toks) {
			t.Fatalf("glob %q does not overlap itself", pattern)
		}
		tt := templateTokens(tmpl)
		if overlaps(g.toks, tt) != overlaps(tt, g.toks) {
			t.Fatalf("overlaps(%q, %q) is not symmetric", pattern, tmpl)
		}
		for _, u := range []string{harness.ExpandTemplate(tmpl, s), s} {
			if !matchTokens(tt, u) {
				continue
			}
			m := g.Match(u)
			if m && !overlaps(g.toks, tt) {
				t.Fatalf("glob %q matches %q, an expansion of %q, but overlaps says no", pattern, u, tmpl)
			}
			if !m && covers(g.toks, tt) {
				t.Fatalf("covers(%q, %q) but the glob does not match the expansion %q", pattern, tmpl, u)
			}
		}
	})
}
