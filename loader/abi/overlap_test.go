package abi

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func mustTemplate(t testing.TB, raw string) *URITemplate {
	t.Helper()
	tpl, err := ParseURITemplate(raw)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func TestOverlap(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"storage://{key}", "storage://{name}", true},
		{"storage://{key}", "storage://{key}", true},
		{"storage://{key}", "storage://x/{k}", false}, // a value has no '/'
		{"storage://{key}", "storage://a{k}", true},
		{"storage://{key}", "store://{key}", false},
		{"a://{x}", "b://{x}", false},
		{"a://{x}.json", "a://{y}.txt", false},
		{"a://{x}.json", "a://{y}", true},
		{"a://{x}.json", "a://{y}n", true},
		{"a://{x}/b", "a://c/{y}", true},
		{"a://{x}/b", "a://c/{y}/d", false},
		{"a://{x}{y}", "a://{z}", true},
		{"a://{x}{y}", "a://c", false}, // two expressions need two bytes
		{"a://{x}{y}", "a://cd", true},
		{"a://{x}", "a://", false}, // a value is not empty
		{"x://{a}?q={b}", "x://{c}", false},
		{"x://{a}?q={b}", "x://{c}?q=1", true},
		{"x://{a}#f", "x://{a}#g", false},
		{"a://{x}/", "a:///{y}", false},
		{"a://{x}/", "a://{y}/", true},
		{"é://{a}", "é://{b}", true},
		{"é://{a}", "e://{b}", false},
		{"db://{table}/rows/{id}", "db://users/{what}/{id}", true},
		{"db://{table}/rows/{id}", "db://{t}/cols/{id}", false},
		{"plain://x", "plain://x", true},
		{"plain://x", "plain://y", false},
		{"p://{a}-{b}", "p://{c}", true},
		{"p://{a}-{b}", "p://x/{c}", false},
	} {
		a, b := mustTemplate(t, c.a), mustTemplate(t, c.b)
		for _, order := range [][2]*URITemplate{{a, b}, {b, a}} {
			uri, ok := Overlap(order[0], order[1])
			if ok != c.want {
				t.Errorf("Overlap(%q, %q) = %q, %v; want %v", order[0].Raw, order[1].Raw, uri, ok, c.want)
				continue
			}
			if ok {
				if _, m := a.Match(uri); !m {
					t.Errorf("Overlap(%q, %q): %q does not match %q", order[0].Raw, order[1].Raw, uri, a.Raw)
				}
				if _, m := b.Match(uri); !m {
					t.Errorf("Overlap(%q, %q): %q does not match %q", order[0].Raw, order[1].Raw, uri, b.Raw)
				}
			}
		}
	}
}

// A pair too large to decide within the bound is taken to overlap.
func TestOverlapUndecidedIsOverlap(t *testing.T) {
	a := mustTemplate(t, "s://"+strings.Repeat("{a}x", 400))
	b := mustTemplate(t, "s://"+strings.Repeat("x{b}", 399)+"xx")
	if _, ok := Overlap(a, b); !ok {
		t.Error("an undecided pair is not taken to overlap")
	}
}

// FuzzURITemplateOverlap: an overlap's URI matches both templates; a
// URI built from one template that the other matches is found as an
// overlap (no false "apart"); the answer does not depend on the order.
func FuzzURITemplateOverlap(f *testing.F) {
	f.Add("storage://{key}", "storage://{name}", "x")
	f.Add("storage://{key}", "storage://a{k}", "a")
	f.Add("a://{x}/b", "a://c/{y}", "c,b")
	f.Add("a://{x}{y}", "a://cd", "c,d")
	f.Add("x://{a}?q={b}", "x://{c}?q=1", "v,1")
	f.Add("p://{a}-{b}", "p://{c}", "1-2,3")
	f.Add("é://{a}", "é://{b}", "\xc3")
	f.Fuzz(func(t *testing.T, rawA, rawB, vals string) {
		if len(rawA) > 200 || len(rawB) > 200 {
			return
		}
		a, errA := ParseURITemplate(rawA)
		b, errB := ParseURITemplate(rawB)
		if errA != nil || errB != nil {
			return
		}
		uri, ok := Overlap(a, b)
		if ok && uri != "" {
			if _, m := a.Match(uri); !m {
				t.Fatalf("Overlap(%q, %q) = %q, which does not match the first", rawA, rawB, uri)
			}
			if _, m := b.Match(uri); !m {
				t.Fatalf("Overlap(%q, %q) = %q, which does not match the second", rawA, rawB, uri)
			}
		}
		if uri2, ok2 := Overlap(b, a); ok2 != ok {
			t.Fatalf("Overlap(%q, %q) = %v, the other way round %v (%q)", rawA, rawB, ok, ok2, uri2)
		}
		values := strings.Split(vals, ",")
		for _, x := range [][2]*URITemplate{{a, b}, {b, a}} {
			built, good := expand(x[0], values)
			if !good {
				continue
			}
			if _, m := x[0].Match(built); !m {
				t.Fatalf("%q built from %q does not match it", built, x[0].Raw)
			}
			if _, m := x[1].Match(built); m && !ok {
				t.Fatalf("%q matches both %q and %q, but Overlap says they are apart", built, rawA, rawB)
			}
		}
	})
}

// expand is t with its expressions replaced by values in turn; good is
// false when a value could not be an expression's, or is not valid
// UTF-8 (two values' bytes could make one character, which two
// expressions cannot share).
func expand(t *URITemplate, values []string) (string, bool) {
	var b strings.Builder
	for i, lit := range t.lits {
		b.WriteString(lit)
		if i < len(t.Vars) {
			v := values[i%len(values)]
			if v == "" || strings.ContainsAny(v, "/?#") || !utf8.ValidString(v) {
				return "", false
			}
			b.WriteString(v)
		}
	}
	return b.String(), true
}
