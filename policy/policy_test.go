package policy

import (
	"strings"
	"testing"
)

func mustNew(t testing.TB, c Config) *Policy {
	t.Helper()
	p, err := New(c)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func all(s ...string) []string { return s }

// mainPolicy has a rule for each feature; the tests below name rules by
// their index.
var mainConfig = Config{
	Default: "deny",
	Rules: []Rule{
		0: {Principals: all("*"), Allow: Match{Tools: all("echo", "calc_?"), Prompts: all("greet")}},
		1: {Principals: all("group:ops"), Allow: Match{Tools: all("*"), Resources: all("file:///*")}, Deny: Match{Tools: all("*_admin")}},
		2: {Principals: all("alice"), Allow: Match{Tools: all("calc_admin")}},
		3: {Principals: all("ci"), Allow: Match{Tools: all("deploy")}, When: `args.env == "staging" && transport == "http"`},
		4: {Principals: all("group:ops"), Deny: Match{Resources: all("file:///secret/*")}},
		5: {Principals: all("*"), Allow: Match{Tools: all("beta_*")}, When: `principal.claims.beta == true`},
		6: {Principals: all("*"), Deny: Match{Tools: all("danger")}, When: `principal.claims.level > 3`},
		7: {Principals: all("*"), Allow: Match{Tools: all("danger")}},
		8: {Principals: all("*"), Allow: Match{Resources: all("storage://public/*")}},
		9: {Principals: all("bob"), Allow: Match{Tools: all("*")}, When: `args.n < 10`},
		10: {Principals: all("cost"), Allow: Match{Tools: all("*")},
			When: `args.l.all(x, args.l.all(y, args.l.all(z, x + y + z >= 0)))`},
		11: {Principals: all("cost"), Deny: Match{Tools: all("heavy")},
			When: `args.l.exists(x, args.l.exists(y, args.l.exists(z, x + y + z < 0)))`},
		12: {Principals: all("dyn"), Allow: Match{Tools: all("*")}, When: `args.flag`},
		13: {Principals: all("kinds"), Allow: Match{Tools: all("*"), Prompts: all("*")}, When: `kind == "prompt" && name == tool && tool.startsWith("p")`},
	},
}

var defaultAllowConfig = Config{
	Default: "allow",
	Rules: []Rule{
		0: {Principals: all("guest"), Deny: Match{Tools: all("write_*")}},
		1: {Principals: all("*"), Deny: Match{Prompts: all("secret")}, When: `transport == "stdio"`},
		2: {Principals: all("guest"), Allow: Match{Tools: all("read_*")}, When: `false`},
	},
}

type decideCase struct {
	name    string
	req     Request
	allowed bool
	rule    int
}

func who(name string, groups ...string) Principal { return Principal{Name: name, Groups: groups} }

func withClaims(name string, claims map[string]any) Principal {
	return Principal{Name: name, Claims: claims}
}

func tool(p Principal, name string) Request {
	return Request{Principal: p, Kind: Tool, Name: name, Transport: "http"}
}

func call(p Principal, name string, args map[string]any, transport string) Request {
	return Request{Principal: p, Kind: Tool, Name: name, Args: args, Transport: transport}
}

func res(p Principal, uri string) Request {
	return Request{Principal: p, Kind: Resource, Name: uri, Transport: "http"}
}

func prompt(p Principal, name string) Request {
	return Request{Principal: p, Kind: Prompt, Name: name, Transport: "http"}
}

func longList(n int) []any {
	l := make([]any, n)
	for i := range l {
		l[i] = float64(i)
	}
	return l
}

func TestDecide(t *testing.T) {
	mainPol := mustNew(t, mainConfig)
	allowPol := mustNew(t, defaultAllowConfig)
	carol, alice := who("carol", "ops"), who("alice", "dev", "ops")
	policies := []struct {
		name  string
		pol   *Policy
		cases []decideCase
	}{
		{"main", mainPol, []decideCase{
			{"everyone: exact name", tool(who("x"), "echo"), true, 0},
			{"everyone: ? is one character", tool(who("x"), "calc_1"), true, 0},
			{"? is not two", tool(who("x"), "calc_10"), false, -1},
			{"? is one code point", tool(who("x"), "calc_é"), true, 0},
			{"names are case-sensitive", tool(who("x"), "ECHO"), false, -1},
			{"unnamed principal is in *", tool(Principal{}, "echo"), true, 0},
			{"a prompt glob", prompt(who("x"), "greet"), true, 0},
			{"kinds are separate: greet is not a tool", tool(who("x"), "greet"), false, -1},
			{"kinds are separate: echo is not a prompt", prompt(who("x"), "echo"), false, -1},
			{"group member, * tool", tool(carol, "x/y z"), true, 1},
			{"group deny glob", tool(carol, "calc_admin"), false, 1},
			{"deny wins over a later allow naming the principal", tool(alice, "calc_admin"), false, 1},
			{"the same allow without the group", tool(who("alice", "dev"), "calc_admin"), true, 2},
			{"not in the group", tool(who("dave", "opsx"), "anything"), false, -1},
			{"CEL on args and transport", call(who("ci"), "deploy", map[string]any{"env": "staging"}, "http"), true, 3},
			{"CEL false on args", call(who("ci"), "deploy", map[string]any{"env": "prod"}, "http"), false, -1},
			{"CEL false on transport", call(who("ci"), "deploy", map[string]any{"env": "staging"}, "stdio"), false, -1},
			{"CEL error (missing arg) is false in an allow", call(who("ci"), "deploy", nil, "http"), false, -1},
			{"group resource", res(carol, "file:///docs/a.md"), true, 1},
			{"group resource deny", res(carol, "file:///secret/k"), false, 4},
			{"* crosses /", res(carol, "file:///secret/a/b"), false, 4},
			{"everyone resource", res(who("x"), "storage://public/a"), true, 8},
			{"resource not allowed", res(who("x"), "storage://private/a"), false, -1},
			{"resource glob is not a tool glob", tool(who("x"), "storage://public/a"), false, -1},
			{"CEL on a claim", tool(withClaims("e", map[string]any{"beta": true}), "beta_x"), true, 5},
			{"CEL on a claim, false", tool(withClaims("e", map[string]any{"beta": false}), "beta_x"), false, -1},
			{"CEL on a missing claim", tool(who("e"), "beta_x"), false, -1},
			{"deny with CEL true", tool(withClaims("e", map[string]any{"level": 5.0}), "danger"), false, 6},
			{"deny with CEL false", tool(withClaims("e", map[string]any{"level": 1.0}), "danger"), true, 7},
			{"deny with CEL error denies", tool(who("e"), "danger"), false, 6},
			{"deny with CEL type error denies", tool(withClaims("e", map[string]any{"level": "high"}), "danger"), false, 6},
			{"int arg compared", call(who("bob"), "f", map[string]any{"n": 3}, "http"), true, 9},
			{"float arg compared with an int", call(who("bob"), "f", map[string]any{"n": 3.5}, "http"), true, 9},
			{"arg too big", call(who("bob"), "f", map[string]any{"n": 30}, "http"), false, -1},
			{"arg of the wrong type", call(who("bob"), "f", map[string]any{"n": "3"}, "http"), false, -1},
			{"cheap enough", call(who("cost"), "f", map[string]any{"l": longList(10)}, "http"), true, 10},
			{"over the cost limit is false in an allow", call(who("cost"), "f", map[string]any{"l": longList(200)}, "http"), false, -1},
			{"over the cost limit is true in a deny", call(who("cost"), "heavy", map[string]any{"l": longList(200)}, "http"), false, 11},
			{"not over it, deny false", call(who("cost"), "heavy", map[string]any{"l": longList(5)}, "http"), true, 10},
			{"dyn result true", call(who("dyn"), "f", map[string]any{"flag": true}, "http"), true, 12},
			{"dyn result not a bool", call(who("dyn"), "f", map[string]any{"flag": "yes"}, "http"), false, -1},
			{"kind, name and tool", prompt(who("kinds"), "plan"), true, 13},
			{"kind is tool", tool(who("kinds"), "plan"), false, -1},
			{"a kind out of range", Request{Principal: who("x"), Kind: Kind(7), Name: "echo"}, false, -1},
		}},
		{"default allow", allowPol, []decideCase{
			{"denied for the principal", tool(who("guest"), "write_file"), false, 0},
			{"default for another tool", tool(who("guest"), "list"), true, -1},
			{"an allow whose when is false falls to the default", tool(who("guest"), "read_x"), true, -1},
			{"default for another principal", tool(who("admin"), "write_file"), true, -1},
			{"deny on transport", Request{Principal: who("x"), Kind: Prompt, Name: "secret", Transport: "stdio"}, false, 1},
			{"not on the other transport", Request{Principal: who("x"), Kind: Prompt, Name: "secret", Transport: "http"}, true, -1},
		}},
		{"documented guards and functions", mustNew(t, Config{Rules: []Rule{
			0: {Principals: all("*"), Allow: Match{Tools: all("opt")}, When: `args.?n.orValue(0) < 10`},
			1: {Principals: all("*"), Allow: Match{Tools: all("has")}, When: `has(args.n) && args.n < 10`},
			2: {Principals: all("*"), Allow: Match{Tools: all("ext")}, When: `principal.name.lowerAscii() == "ci" && "ops" in principal.groups`},
			3: {Principals: all("*"), Allow: Match{Tools: all("re")}, When: `args.branch.matches("^release/[0-9]+$")`},
		}}), []decideCase{
			{"optional, absent", call(who("x"), "opt", nil, "http"), true, 0},
			{"optional, present", call(who("x"), "opt", map[string]any{"n": 20.0}, "http"), false, -1},
			{"has, absent", call(who("x"), "has", nil, "http"), false, -1},
			{"has, present", call(who("x"), "has", map[string]any{"n": 2.0}, "http"), true, 1},
			{"string extension and groups", tool(who("CI", "ops"), "ext"), true, 2},
			{"not in the group", tool(who("CI", "dev"), "ext"), false, -1},
			{"matches", call(who("x"), "re", map[string]any{"branch": "release/12"}, "http"), true, 3},
			{"does not match", call(who("x"), "re", map[string]any{"branch": "main"}, "http"), false, -1},
		}},
		{"no policy", nil, []decideCase{
			{"tool", tool(who("x"), "anything"), true, -1},
			{"resource", res(Principal{}, "file:///etc/passwd"), true, -1},
		}},
		{"present but empty", mustNew(t, Config{}), []decideCase{
			{"tool", tool(who("x"), "echo"), false, -1},
			{"prompt", prompt(who("x"), "greet"), false, -1},
		}},
	}
	for _, pc := range policies {
		for _, c := range pc.cases {
			t.Run(pc.name+"/"+c.name, func(t *testing.T) {
				d := pc.pol.Decide(c.req)
				if d.Allowed != c.allowed || d.Rule != c.rule {
					t.Errorf("Decide(%+v) = allowed %v by rule %d, want %v by rule %d", c.req, d.Allowed, d.Rule, c.allowed, c.rule)
				}
				if !d.Allowed && len(d.Limits) != 0 {
					t.Errorf("denied with limits %v", d.Limits)
				}
				// Whatever a call may do, a list shows.
				if d.Allowed && c.req.Kind.valid() && !pc.pol.Visible(c.req.Principal, c.req.Kind, c.req.Name) {
					t.Errorf("allowed but not Visible")
				}
			})
		}
	}
}

func TestVisible(t *testing.T) {
	mainPol := mustNew(t, mainConfig)
	allowPol := mustNew(t, defaultAllowConfig)
	cases := []struct {
		name    string
		pol     *Policy
		p       Principal
		kind    Kind
		item    string
		visible bool
	}{
		{"allowed by a plain rule", mainPol, who("x"), Tool, "echo", true},
		{"allowed by nothing", mainPol, who("x"), Tool, "nope", false},
		{"when on args and transport could be true", mainPol, who("ci"), Tool, "deploy", true},
		{"not the principal of that rule", mainPol, who("cd"), Tool, "deploy", false},
		{"deny without when hides", mainPol, who("carol", "ops"), Tool, "calc_admin", false},
		{"deny on a resource hides", mainPol, who("carol", "ops"), Resource, "file:///secret/x", false},
		{"allowed resource", mainPol, who("carol", "ops"), Resource, "file:///docs/x", true},
		{"when on a claim, true", mainPol, withClaims("e", map[string]any{"beta": true}), Tool, "beta_1", true},
		{"when on a claim, false", mainPol, withClaims("e", map[string]any{"beta": false}), Tool, "beta_1", false},
		{"deny when on a claim, true", mainPol, withClaims("e", map[string]any{"level": 9}), Tool, "danger", false},
		{"deny when on a claim, false", mainPol, withClaims("e", map[string]any{"level": 0}), Tool, "danger", true},
		{"deny when that fails hides", mainPol, who("e"), Tool, "danger", false},
		{"when on an arg", mainPol, who("bob"), Tool, "anything", true},
		{"dyn when on an arg", mainPol, who("dyn"), Tool, "anything", true},
		{"deny when on args does not hide", mainPol, who("cost"), Tool, "heavy", true},
		{"when on kind and name, known to lists", mainPol, who("kinds"), Prompt, "plan", true},
		{"when on kind and name, false", mainPol, who("kinds"), Prompt, "list", false},
		{"prompt", mainPol, who("x"), Prompt, "greet", true},
		{"a kind out of range", mainPol, who("x"), Kind(-1), "echo", false},
		{"default allow", allowPol, who("x"), Tool, "write_file", true},
		{"default allow, denied", allowPol, who("guest"), Tool, "write_file", false},
		{"default allow, deny when on transport", allowPol, who("x"), Prompt, "secret", true},
		{"no policy", nil, who("x"), Tool, "anything", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.pol.Visible(c.p, c.kind, c.item); got != c.visible {
				t.Errorf("Visible(%v, %v, %q) = %v, want %v", c.p, c.kind, c.item, got, c.visible)
			}
		})
	}
}

func TestVisibleTemplate(t *testing.T) {
	mainPol := mustNew(t, mainConfig)
	carol := who("carol", "ops")
	whenPol := mustNew(t, Config{Rules: []Rule{
		{Principals: all("*"), Allow: Match{Resources: all("db://*")}},
		{Principals: all("*"), Deny: Match{Resources: all("db://*")}, When: `name.endsWith("/private")`},
		{Principals: all("*"), Deny: Match{Resources: all("kv://*")}, When: `principal.name == "mallory"`},
		{Principals: all("*"), Allow: Match{Resources: all("kv://*")}, When: `name.startsWith("kv://public/")`},
	}})
	cases := []struct {
		name    string
		pol     *Policy
		p       Principal
		tmpl    string
		visible bool
	}{
		{"an allow glob narrower than the template", mainPol, who("x"), "storage://{key}", true},
		{"an allow glob covering the template", mainPol, who("x"), "storage://public/{key}", true},
		{"a literal part that no glob allows", mainPol, who("x"), "storage://private/{key}", false},
		{"another scheme", mainPol, who("x"), "other://{x}", false},
		{"group allow", mainPol, carol, "file:///{+path}", true},
		{"a deny glob covering every expansion", mainPol, carol, "file:///secret/{k}", false},
		{"a deny glob covering some expansions", mainPol, carol, "file:///{dir}/x", true},
		{"deny when on the name does not hide", whenPol, who("x"), "db://{table}", true},
		{"deny when on the principal hides", whenPol, who("mallory"), "kv://{k}", false},
		{"allow when on the name could be true", whenPol, who("x"), "kv://{k}", true},
		{"default allow", mustNew(t, defaultAllowConfig), who("x"), "any://{x}", true},
		{"present but empty", mustNew(t, Config{}), who("x"), "any://{x}", false},
		{"no policy", nil, who("x"), "any://{x}", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.pol.VisibleTemplate(c.p, c.tmpl); got != c.visible {
				t.Errorf("VisibleTemplate(%v, %q) = %v, want %v", c.p, c.tmpl, got, c.visible)
			}
		})
	}
	// A read is decided on the concrete URI, whatever the template list showed.
	for _, c := range []struct {
		uri     string
		allowed bool
	}{{"storage://public/a", true}, {"storage://other/a", false}} {
		if d := mainPol.Decide(res(who("x"), c.uri)); d.Allowed != c.allowed {
			t.Errorf("read %s: allowed %v, want %v", c.uri, d.Allowed, c.allowed)
		}
	}
}

func TestDecisionLimits(t *testing.T) {
	p := mustNew(t, Config{
		Default:   "allow",
		RateLimit: &RateLimit{Rate: "100/s"},
		Rules: []Rule{
			0: {Principals: all("*"), Allow: Match{Tools: all("calc_*")}, RateLimit: &RateLimit{Rate: "10/s", Burst: 20}},
			1: {Principals: all("ci"), Allow: Match{Tools: all("*")}, RateLimit: &RateLimit{Rate: "60/m"}},
			2: {Principals: all("ci"), Allow: Match{Tools: all("calc_add")}},
		},
	})
	cases := []struct {
		req   Request
		rule  int
		rules []int
	}{
		{tool(who("x"), "calc_add"), 0, []int{0}},
		{tool(who("ci"), "calc_add"), 0, []int{0, 1}},
		{tool(who("ci"), "other"), 1, []int{1}},
		{tool(who("x"), "other"), -1, nil},
	}
	for _, c := range cases {
		d := p.Decide(c.req)
		var got []int
		for _, l := range d.Limits {
			got = append(got, l.Rule)
		}
		if !d.Allowed || d.Rule != c.rule || !equalInts(got, c.rules) {
			t.Errorf("Decide(%v %s) = %v rule %d limits %v, want allowed rule %d limits %v", c.req.Principal.Name, c.req.Name, d.Allowed, d.Rule, got, c.rule, c.rules)
		}
	}
	if l := p.GatewayLimit(); l == nil || l.Limit != 100 || l.Burst != 100 || l.Rule != -1 {
		t.Errorf("GatewayLimit = %+v, want 100/s burst 100", l)
	}
	d := p.Decide(tool(who("ci"), "calc_add"))
	if l := d.Limits[0]; l.Limit != 10 || l.Burst != 20 {
		t.Errorf("rule 0 limit = %+v", l)
	}
	if l := d.Limits[1]; l.Limit != 1 || l.Burst != 1 {
		t.Errorf("rule 1 limit = %+v", l)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Tool: "tool", Resource: "resource", Prompt: "prompt", Kind(9): "unknown"} {
		if k.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(k), k.String(), want)
		}
	}
}

// BenchmarkDecide decides a call under three rules, one with a CEL
// condition on an argument and the transport, the call reaching the
// conditional rule after a deny that does not match.
func BenchmarkDecide(b *testing.B) {
	p := mustNew(b, Config{
		Default: "deny",
		Rules: []Rule{
			{Principals: all("group:readers"), Allow: Match{Tools: all("read_*", "list_*"), Resources: all("file:///docs/*")}},
			{Principals: all("*"), Deny: Match{Tools: all("*_admin")}},
			{Principals: all("ci"), Allow: Match{Tools: all("calc_*")}, When: `args.a < 1000 && transport == "http"`,
				RateLimit: &RateLimit{Rate: "100/s"}},
		},
	})
	req := Request{Principal: Principal{Name: "ci", Groups: []string{"builders"}}, Kind: Tool, Name: "calc_add",
		Args: map[string]any{"a": 2.0, "b": 3.0}, Transport: "http"}
	if d := p.Decide(req); !d.Allowed || d.Rule != 2 {
		b.Fatalf("Decide = %+v", d)
	}
	b.ReportAllocs()
	for b.Loop() {
		p.Decide(req)
	}
}

// BenchmarkDecidePlain is BenchmarkDecide without the CEL condition.
func BenchmarkDecidePlain(b *testing.B) {
	p := mustNew(b, Config{
		Rules: []Rule{
			{Principals: all("group:readers"), Allow: Match{Tools: all("read_*", "list_*")}},
			{Principals: all("*"), Deny: Match{Tools: all("*_admin")}},
			{Principals: all("ci"), Allow: Match{Tools: all("calc_*")}},
		},
	})
	req := Request{Principal: Principal{Name: "ci"}, Kind: Tool, Name: "calc_add", Transport: "http"}
	b.ReportAllocs()
	for b.Loop() {
		p.Decide(req)
	}
}

// BenchmarkVisible filters a 100-tool list through a conditional rule.
func BenchmarkVisible(b *testing.B) {
	p := mustNew(b, Config{
		Rules: []Rule{
			{Principals: all("*"), Deny: Match{Tools: all("*_admin")}},
			{Principals: all("ci"), Allow: Match{Tools: all("calc_*")}, When: `args.a < 1000 && transport == "http"`},
		},
	})
	names := make([]string, 100)
	for i := range names {
		names[i] = "calc_" + strings.Repeat("x", i%7) + string(rune('a'+i%26))
	}
	pr := Principal{Name: "ci"}
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range names {
			p.Visible(pr, Tool, n)
		}
	}
}

func TestCostTrackingOnlyWhenUnbounded(t *testing.T) {
	env, err := newCELEnv()
	if err != nil {
		t.Fatal(err)
	}
	for src, unbounded := range map[string]bool{
		`args.a < 1000 && transport == "http"`: false,
		`principal.claims.level > 3 || false`:  false,
		`"ops" in principal.groups`:            true,
		`args.l.all(x, x > 0)`:                 true,
		`args.s.contains("x")`:                 true,
	} {
		c, err := env.compile(src)
		if err != nil {
			t.Fatal(err)
		}
		if c.tracked != unbounded {
			t.Errorf("%s: cost tracked %v, want %v", src, c.tracked, unbounded)
		}
	}
}
