package policy

import (
	"os"
	"strings"
	"testing"
)

// TestPathClean: path.clean and the path checks docs/policy.md shows,
// against the paths that slip past a bare startsWith.
func TestPathClean(t *testing.T) {
	env, err := newCELEnv()
	if err != nil {
		t.Fatal(err)
	}
	const (
		safe  = `has(args.path) && path.clean(args.path).startsWith("/public/")`
		exact = `has(args.path) && path.clean(args.path) == args.path && args.path.startsWith("/public/")`
		regex = `has(args.path) && args.path.startsWith("/public/") && !args.path.matches("(^|/)\\.\\.?(/|$)")`
		naive = `has(args.path) && args.path.startsWith("/public/")`
	)
	tests := []struct {
		path                     any
		clean                    string
		safe, exact, regex, nave truth
	}{
		{"/public/ok", "/public/ok", isTrue, isTrue, isTrue, isTrue},
		{"/public/a/b.txt", "/public/a/b.txt", isTrue, isTrue, isTrue, isTrue},
		{"/public/../secret", "/secret", isFalse, isFalse, isFalse, isTrue},
		{"/public/a/../../secret", "/secret", isFalse, isFalse, isFalse, isTrue},
		{"/public/..", "/", isFalse, isFalse, isFalse, isTrue},
		{"/public/./a/../b", "/public/b", isTrue, isFalse, isFalse, isTrue},
		{"/public//a", "/public/a", isTrue, isFalse, isTrue, isTrue},
		{"/public/", "/public", isFalse, isFalse, isTrue, isTrue},
		{"/public/..secret", "/public/..secret", isTrue, isTrue, isTrue, isTrue}, // a file named "..secret"
		{"public/../../x", "../x", isFalse, isFalse, isFalse, isFalse},
		{"/secret", "/secret", isFalse, isFalse, isFalse, isFalse},
		{"", ".", isFalse, isFalse, isFalse, isFalse},
		{42, "", isError, isError, isError, isError},
	}
	compile := func(src string) *condition {
		c, err := env.compile(src)
		if err != nil {
			t.Fatalf("compile %s: %v", src, err)
		}
		return c
	}
	cleanEq := func(want string) *condition { return compile(`path.clean(args.path) == "` + want + `"`) }
	conds := []*condition{compile(safe), compile(exact), compile(regex), compile(naive)}
	for _, tt := range tests {
		a := &activation{req: Request{Args: map[string]any{"path": tt.path}}}
		if tt.clean != "" {
			if got := cleanEq(tt.clean).eval(a); got != isTrue {
				t.Errorf("path.clean(%q) is not %q", tt.path, tt.clean)
			}
		}
		for i, want := range []truth{tt.safe, tt.exact, tt.regex, tt.nave} {
			if got := conds[i].eval(a); got != want {
				t.Errorf("%s with path %q = %v, want %v", conds[i].src, tt.path, got, want)
			}
		}
	}
	doc, err := os.ReadFile("../docs/policy.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{safe, exact, regex} {
		if !strings.Contains(string(doc), "when: '"+src+"'") {
			t.Errorf("docs/policy.md does not show when: '%s'", src)
		}
	}
	if _, err := env.compile(`path.clean(1) == "x"`); err == nil {
		t.Error("path.clean(int) compiled")
	}
}
