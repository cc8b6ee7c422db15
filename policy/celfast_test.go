package policy

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// bothWays evaluates a compiled condition on req with cel-go alone and
// with the fast form; decided reports whether the fast form decided.
func bothWays(t testing.TB, c *condition, req Request) (prg, fast truth, decided bool) {
	t.Helper()
	prg = c.prgEval(&activation{req: req})
	if c.fast == nil {
		return prg, 0, false
	}
	fast, decided = c.fast.truth(&req)
	if decided && fast != prg {
		t.Fatalf("%s on %+v: the fast form says %v, cel-go %v", c.src, req, fast, prg)
	}
	if !decided && prg != isError {
		// Declining is always allowed; the table below says where it
		// must not happen.
		return prg, fast, false
	}
	return prg, fast, decided
}

func compileWhen(t testing.TB, src string) *condition {
	t.Helper()
	env, err := newCELEnv()
	if err != nil {
		t.Fatal(err)
	}
	c, err := env.compile(src)
	if err != nil {
		t.Fatalf("compile %s: %v", src, err)
	}
	return c
}

func TestFastCondition(t *testing.T) {
	pr := Principal{Name: "alice", Groups: []string{"load", "ops"},
		Claims: map[string]any{"role": "admin", "roles": []any{"r1", 2.0}, "org": map[string]any{"id": "o1"}, "n": 3.0}}
	req := func(args map[string]any) Request {
		return Request{Principal: pr, Kind: Tool, Name: "calculate", Args: args, Transport: "http"}
	}
	a5 := map[string]any{"a": 5.0, "s": "x", "path": "/public/../secret", "b": true}
	for _, tc := range []struct {
		src  string
		args map[string]any
		want truth // cel-go's outcome
		fast bool  // the fast form must decide it
	}{
		{`transport == "http" && args.a < 1000`, a5, isTrue, true},
		{`transport == "http" && args.a < 1000`, map[string]any{"a": 5000.0}, isFalse, true},
		{`transport == "http" && args.a < 1000`, map[string]any{}, isError, false},         // no such key
		{`transport == "http" && args.a < 1000`, map[string]any{"a": "x"}, isError, false}, // no such overload
		{`transport == "http" && args.a < 1000`, nil, isError, false},
		{`args.missing < 1 && false`, a5, isFalse, true}, // an error and false: false
		{`false && args.missing < 1`, a5, isFalse, true},
		{`args.missing < 1 || true`, a5, isTrue, true},
		{`args.missing < 1 || false`, a5, isError, false},
		{`args.a == 5`, a5, isTrue, true},  // a double and an int
		{`args.a == 5u`, a5, isTrue, true}, // and a uint
		{`args.a == "5"`, a5, isFalse, true},
		{`args.a != "5"`, a5, isTrue, true},
		{`args.s == args.s`, a5, isTrue, false},                                               // tracked
		{`args.a < 9007199254740993`, map[string]any{"a": 9007199254740992.0}, isFalse, true}, // the int as a double
		{`args.a > 1u`, map[string]any{"a": -1.0}, isFalse, true},
		{`args.a >= -9223372036854775808`, map[string]any{"a": -1e19}, isFalse, true},
		{`args.a > 18446744073709551615u`, map[string]any{"a": 1e20}, isTrue, true},
		{`args.b`, a5, isTrue, true},
		{`args.s`, a5, isError, false}, // not a bool
		{`!args.b`, a5, isFalse, true},
		{`args.b < true`, map[string]any{"b": false}, isTrue, true},
		{`args.s < "y" && args.s >= "x"`, a5, isTrue, true},
		{`has(args.a) && !has(args.z)`, a5, isTrue, true},
		{`args["a"] > 2`, a5, isTrue, true},
		{`args.a in [1, 5, "x"]`, a5, isTrue, true},
		{`args.a in [1, 2]`, a5, isFalse, true},
		{`"a" in args`, a5, isTrue, true},
		{`"ops" in principal.groups && principal.name == "alice"`, nil, isTrue, false}, // tracked
		{`has(principal.groups) && principal.name == "alice"`, nil, isTrue, true},
		{`principal.claims.role == "admin" && principal.claims.org.id == "o1"`, nil, isTrue, true},
		{`"r1" in principal.claims.roles && 2 in principal.claims.roles`, nil, isTrue, false}, // tracked
		{`"org" in principal.claims && !("x" in principal.claims.org)`, nil, isTrue, false},   // tracked
		{`has(principal.claims.role) && !has(principal.claims.x) && has(principal.name)`, nil, isTrue, true},
		{`principal.nope == 1`, nil, isError, false},
		{`principal.claims.n > 2.5`, nil, isTrue, true},
		{`tool.startsWith("calc") && name.endsWith("late") && kind == "tool"`, nil, isTrue, true},
		{`tool.contains("cul")`, nil, isTrue, false}, // tracked
		{`kind == "tool" ? args.a < 3 : true`, a5, isFalse, true},
		{`args.s ? true : false`, a5, isError, false},
		{`!(transport == "stdio")`, nil, isTrue, true},
		{`path.clean(args.path) == "/secret"`, a5, isTrue, true},
		{`args.a == null`, a5, isFalse, false}, // null is left to cel-go
	} {
		c := compileWhen(t, tc.src)
		prg, _, decided := bothWays(t, c, req(tc.args))
		if prg != tc.want {
			t.Errorf("%s on %v: cel-go says %v, want %v", tc.src, tc.args, prg, tc.want)
		}
		if tc.fast && !decided {
			t.Errorf("%s on %v: the fast form did not decide (fast form: %v)", tc.src, tc.args, c.fast != nil)
		}
	}
}

// TestFastConditionShapes: what the fast form is not made for leaves the
// condition to cel-go whole.
func TestFastConditionShapes(t *testing.T) {
	for _, src := range []string{
		`[1] == [1]`,
		`args.exists(k, k == "a")`,
		`size(args.s) > 1`,
		`args.s.matches("^x")`,
		`args.?a.orValue(1) == 1`,
		`{"a": 1}.a == 1`,
		`int(args.a) == 5`,
		`"ops" in principal.groups`, // tracked, as below
	} {
		if c := compileWhen(t, src); c.fast != nil {
			t.Errorf("%s: has a fast form", src)
		}
	}
	// A condition whose cost cel-go tracks is never evaluated fast: the
	// fast form would not stop at MaxCost.
	if c := compileWhen(t, `args.s.contains("x")`); !c.tracked || c.fast != nil {
		t.Errorf("contains: tracked %v, fast form %v; want tracked and none", c.tracked, c.fast != nil)
	}
}

func TestDecideFastNoAllocation(t *testing.T) {
	p := mustNew(t, Config{Default: "deny", Rules: []Rule{{Principals: all("group:load"), Allow: Match{Tools: all("calculate")},
		When: `transport == "http" && args.a < 1000 && principal.name == "bench"`}}})
	req := Request{Principal: Principal{Name: "bench", Groups: []string{"load"}}, Kind: Tool, Name: "calculate",
		Args: map[string]any{"a": 5.0}, Transport: "http"}
	if d := p.Decide(req); !d.Allowed {
		t.Fatalf("denied: %+v", d)
	}
	if n := testing.AllocsPerRun(100, func() { p.Decide(req) }); n != 0 {
		t.Errorf("Decide allocates %v times a call with a fast condition; want 0", n)
	}
}

// atoms and ops of the conditions TestFastConditionRandom makes.
var (
	fastAtoms = []string{`args.a`, `args.b`, `args.s`, `args.n`, `args.l`, `args.m`, `args.z`, `args.m.k`,
		`principal.name`, `principal.claims.role`, `principal.claims.roles`, `tool`, `transport`, `kind`,
		`1`, `-1`, `0`, `1u`, `0u`, `2.5`, `-0.0`, `1e300`, `9007199254740993`, `18446744073709551615u`,
		`"x"`, `""`, `"a/../b"`, `true`, `false`, `null`, `[1, "x", true]`, `["load", "ops"]`, `principal.groups`, `args`}
	fastBinary = []string{`&&`, `||`, `==`, `!=`, `<`, `<=`, `>`, `>=`, `in`}
	fastArgs   = []any{5.0, -1.0, 0.0, 2.5, 1e300, 9007199254740992.0, 1.8446744073709552e19, "x", "", "a/../b", true, false, nil,
		[]any{1.0, "x"}, map[string]any{"k": "x"}}
)

func randomCond(r *rand.Rand, depth int) string {
	if depth == 0 || r.IntN(3) == 0 {
		return fastAtoms[r.IntN(len(fastAtoms))]
	}
	switch r.IntN(6) {
	case 0:
		return "!(" + randomCond(r, depth-1) + ")"
	case 1:
		return "(" + randomCond(r, depth-1) + " ? " + randomCond(r, depth-1) + " : " + randomCond(r, depth-1) + ")"
	case 2:
		fn := []string{"startsWith", "endsWith", "contains"}[r.IntN(3)]
		return "(" + randomCond(r, depth-1) + ")." + fn + "(" + randomCond(r, depth-1) + ")"
	case 3:
		return "path.clean(" + randomCond(r, depth-1) + ")"
	case 4:
		return "has(args." + []string{"a", "z", "m"}[r.IntN(3)] + ")"
	}
	return "(" + randomCond(r, depth-1) + " " + fastBinary[r.IntN(len(fastBinary))] + " " + randomCond(r, depth-1) + ")"
}

// TestFastConditionRandom compares the fast form with cel-go on random
// conditions (those cel-go's checker accepts) and random arguments.
func TestFastConditionRandom(t *testing.T) {
	env, err := newCELEnv()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	compiled, decidedN := 0, 0
	for range n {
		src := randomCond(r, 3)
		c, err := env.compile(src)
		if err != nil {
			continue
		}
		compiled++
		for range 8 {
			args := map[string]any{}
			for _, k := range []string{"a", "b", "s", "n", "l", "m"} {
				if r.IntN(4) > 0 {
					args[k] = fastArgs[r.IntN(len(fastArgs))]
				}
			}
			req := Request{Principal: Principal{Name: "p", Groups: []string{"load"}, Claims: map[string]any{"role": "x", "roles": []any{"x", 1.0}}},
				Kind: Tool, Name: []string{"calc", "x", ""}[r.IntN(3)], Args: args, Transport: "http"}
			if _, _, d := bothWays(t, c, req); d {
				decidedN++
			}
		}
	}
	t.Logf("%d random conditions, %d compiled; the fast form decided %d of their %d evaluations", n, compiled, decidedN, compiled*8)
	if decidedN == 0 {
		t.Fatal("the fast form decided nothing")
	}
}

// FuzzFastCondition compares the fast form with cel-go on a condition
// and the arguments of a call (a JSON object).
func FuzzFastCondition(f *testing.F) {
	for _, s := range [][2]string{
		{`transport == "http" && args.a < 1000`, `{"a":5}`},
		{`args.a < 9007199254740993 || args.b`, `{"a":9007199254740992,"b":false}`},
		{`"x" in args.l && args.m.k == "x"`, `{"l":[1,"x"],"m":{"k":"x"}}`},
		{`path.clean(args.p).startsWith("/public/")`, `{"p":"/public/../etc"}`},
		{`args.a > 1u ? args.s == "" : has(args.z)`, `{"a":-1,"s":""}`},
		{`principal.claims.role == "admin" || "ops" in principal.groups`, `{}`},
	} {
		f.Add(s[0], s[1])
	}
	env, err := newCELEnv()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src, args string) {
		if len(src) > 512 || strings.Count(src, "(") > 32 {
			return
		}
		c, err := env.compile(src)
		if err != nil {
			return
		}
		var m map[string]any
		if json.Unmarshal([]byte(args), &m) != nil {
			return
		}
		req := Request{Principal: Principal{Name: "alice", Groups: []string{"ops"}, Claims: map[string]any{"role": "admin"}},
			Kind: Tool, Name: "calculate", Args: m, Transport: "http"}
		prg, _, _ := bothWays(t, c, req)
		if got := c.eval(&activation{req: req}); got != prg { // as Decide and Visible see it
			t.Fatalf("%s on %s: eval says %v, cel-go %v", src, args, got, prg)
		}
	})
}
