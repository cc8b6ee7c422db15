package abi

import (
	"strings"
	"testing"
)

func TestURITemplate(t *testing.T) {
	tpl, err := ParseURITemplate("storage://{key}")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := tpl.Match("storage://theme"); !ok || v["key"] != "theme" {
		t.Errorf("Match = %v %v", v, ok)
	}
	for _, uri := range []string{"storage://", "storage://a/b", "other://x"} {
		if _, ok := tpl.Match(uri); ok {
			t.Errorf("Match(%q) matched", uri)
		}
	}
	tpl2, err := ParseURITemplate("db://{table}/rows/{id}")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := tpl2.Match("db://users/rows/42"); !ok || v["table"] != "users" || v["id"] != "42" {
		t.Errorf("Match = %v %v", v, ok)
	}
	for _, bad := range []string{"x://{a", "x://{a-b}", "x://{}"} {
		if _, err := ParseURITemplate(bad); err == nil {
			t.Errorf("ParseURITemplate(%q) succeeded", bad)
		}
	}
}

// FuzzURITemplate: parsing never panics and a template matches the URI
// built from it by substituting its variables.
func FuzzURITemplate(f *testing.F) {
	f.Add("storage://{key}", "v")
	f.Add("db://{a}/x/{b}", "1")
	f.Add("plain://x", "")
	f.Fuzz(func(t *testing.T, raw, val string) {
		tpl, err := ParseURITemplate(raw)
		if err != nil {
			return
		}
		if val == "" || strings.ContainsAny(val, "/?#") {
			return
		}
		uri := raw
		for _, v := range tpl.Vars {
			uri = strings.Replace(uri, "{"+v+"}", val, 1)
		}
		got, ok := tpl.Match(uri)
		if !ok {
			t.Fatalf("%q does not match %q", uri, raw)
		}
		_ = got
	})
}
