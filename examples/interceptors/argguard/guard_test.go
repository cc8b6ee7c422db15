package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestUnder(t *testing.T) {
	g, err := NewGuard(Config{Root: "/srv/data/"})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{
		"/srv/data":                  true,
		"/srv/data/a.txt":            true,
		"/srv/data/x/../y":           true,
		"a/b.txt":                    true, // relative to the root
		"./a":                        true,
		".":                          true,
		"/srv/data/../data/a":        true,
		"/srv/data/..":               false,
		"/srv/data/../etc/passwd":    false,
		"../etc/passwd":              false,
		"a/../../x":                  false,
		"/srv/database":              false, // a sibling with the root as prefix
		"/etc/passwd":                false,
		"//srv/data/a":               true,
		"/srv/data/a\x00/../../../x": false,
		"":                           false,
	} {
		if got := g.Under(p); got != want {
			t.Errorf("Under(%q) = %v, want %v", p, got, want)
		}
	}
	if _, err := NewGuard(Config{Root: "srv"}); err == nil {
		t.Error("a relative root: no error")
	}
}

func TestCheck(t *testing.T) {
	g, err := NewGuard(Config{Root: "/srv/data", PathArgs: []string{"path", "source", "destination", "paths"}, NoShellMeta: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args string
		deny string // a part of the reason; "" for no refusal
	}{
		{`{"path":"/srv/data/a.txt"}`, ""},
		{`{"source":"a","destination":"b/c","mode":"fast"}`, ""},
		{`{"paths":["a","/srv/data/b"]}`, ""},
		{`{"paths":["a","/etc/shadow"]}`, `paths[1]: "/etc/shadow" is outside /srv/data`},
		{`{"paths":["a",1]}`, `paths[1] is not a string`},
		{`{"path":"../../etc/passwd"}`, `argument path: "../../etc/passwd" is outside /srv/data`},
		{`{"source":"/srv/data/a","destination":"/tmp/x"}`, `argument destination`},
		{`{"path":42}`, `argument path is not a path`},
		{`{"path":null}`, ""},
		{`{"query":"a; rm -rf /"}`, `argument query holds a shell metacharacter (";")`},
		{`{"opts":{"cmd":["ls","$(id)"]}}`, `argument opts.cmd[1] holds a shell metacharacter ("$")`},
		{"{\"text\":\"a\\nb\"}", `argument text holds a shell metacharacter ("\n")`},
		{"{\"text\":\"`id`\"}", "argument text holds a shell metacharacter"},
		{`{"text":"a > b"}`, "shell metacharacter"},
		{`{"text":"plain words, (parens) and 'quotes' are fine"}`, ""},
		{`[1]`, "not a JSON object"},
	} {
		err := g.Check(json.RawMessage(c.args))
		switch {
		case c.deny == "" && err != nil:
			t.Errorf("Check(%s): %v", c.args, err)
		case c.deny != "" && (err == nil || !strings.Contains(err.Error(), c.deny)):
			t.Errorf("Check(%s) = %v, want an error holding %q", c.args, err, c.deny)
		}
	}
	lax, err := NewGuard(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := lax.Check(json.RawMessage(`{"path":"/etc/passwd","q":"a;b"}`)); err != nil {
		t.Errorf("without root and no_shell_meta: %v", err)
	}
}
