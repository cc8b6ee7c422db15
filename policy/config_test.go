package policy

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/time/rate"

	"github.com/wasmgate/wasmgate/config"
)

// normalize runs Normalize as the loader does and returns the errors.
func normalize(c *Config) []*config.Error {
	var errs []error
	c.Normalize("policy", config.NewEnv("/etc/wasmgate/gateway.yaml", &errs))
	var out []*config.Error
	for _, e := range errs {
		var ce *config.Error
		if errors.As(e, &ce) {
			out = append(out, ce)
		}
	}
	return out
}

func TestConfigErrors(t *testing.T) {
	ok := Rule{Principals: all("*"), Allow: Match{Tools: all("*")}}
	cases := []struct {
		name string
		cfg  Config
		// key -> what the message must contain
		want map[string]string
	}{
		{"default", Config{Default: "maybe"}, map[string]string{
			"policy.default": `"maybe": want allow or deny`,
		}},
		{"when: undeclared variable", Config{Rules: []Rule{ok, {Principals: all("*"), Allow: Match{Tools: all("*")}, When: "argz.x == 1"}}}, map[string]string{
			"policy.rules[1].when": "undeclared reference to 'argz'",
		}},
		{"when: syntax", Config{Rules: []Rule{{Principals: all("*"), Allow: Match{Tools: all("*")}, When: "args.x == "}}}, map[string]string{
			"policy.rules[0].when": "Syntax error",
		}},
		{"when: not a bool", Config{Rules: []Rule{{Principals: all("*"), Allow: Match{Tools: all("*")}, When: "principal.name + 'x'"}}}, map[string]string{
			"policy.rules[0].when": "want a bool",
		}},
		{"when: too long", Config{Rules: []Rule{{Principals: all("*"), Allow: Match{Tools: all("*")}, When: strings.Repeat("true && ", MaxWhenLen/8+1) + "true"}}}, map[string]string{
			"policy.rules[0].when": "size exceeds limit",
		}},
		{"rule rate", Config{Rules: []Rule{{Principals: all("*"), Allow: Match{Tools: all("*")}, RateLimit: &RateLimit{Rate: "10/x"}}}}, map[string]string{
			"policy.rules[0].rate_limit.rate": `"10/x": want N/s, N/m or N/h`,
		}},
		{"rule rate missing", Config{Rules: []Rule{{Principals: all("*"), Allow: Match{Tools: all("*")}, RateLimit: &RateLimit{Burst: 3}}}}, map[string]string{
			"policy.rules[0].rate_limit.rate": "missing",
		}},
		{"rule burst", Config{Rules: []Rule{{Principals: all("*"), Allow: Match{Tools: all("*")}, RateLimit: &RateLimit{Rate: "1/s", Burst: -1}}}}, map[string]string{
			"policy.rules[0].rate_limit.burst": "-1: want at least 1",
		}},
		{"rate limit on a deny-only rule", Config{Rules: []Rule{{Principals: all("*"), Deny: Match{Tools: all("x")}, RateLimit: &RateLimit{Rate: "1/s"}}}}, map[string]string{
			"policy.rules[0].rate_limit": "its allow is empty",
		}},
		{"gateway rate", Config{Default: "allow", RateLimit: &RateLimit{Rate: "0/s"}}, map[string]string{
			"policy.rate_limit.rate": `"0/s": the rate must be above 0`,
		}},
		{"principals", Config{Rules: []Rule{
			{Allow: Match{Tools: all("*")}},
			{Principals: all("ok", "", "group:", " sp", "group: x"), Allow: Match{Tools: all("*")}},
		}}, map[string]string{
			"policy.rules[0].principals":    "empty",
			"policy.rules[1].principals[1]": `"": want a principal name`,
			"policy.rules[1].principals[2]": `"group:": want group:NAME`,
			"policy.rules[1].principals[3]": `" sp": want a principal name`,
			"policy.rules[1].principals[4]": `"group: x": want group:NAME`,
		}},
		{"globs", Config{Rules: []Rule{{Principals: all("*"),
			Allow: Match{Tools: all("ok", ""), Resources: all(`file:///\`)},
			Deny:  Match{Prompts: all("p", "p", "\xfe")}}}}, map[string]string{
			"policy.rules[0].allow.tools[1]":     "empty pattern",
			"policy.rules[0].allow.resources[0]": `ends with a lone '\'`,
			"policy.rules[0].deny.prompts[2]":    "not valid UTF-8",
		}},
		{"a rule that does nothing", Config{Rules: []Rule{ok, {Principals: all("x"), When: "true"}}}, map[string]string{
			"policy.rules[1]": "neither allow nor deny",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := normalize(&c.cfg)
			got := map[string]string{}
			for _, e := range errs {
				if e.File != "/etc/wasmgate/gateway.yaml" {
					t.Errorf("error %v names file %q", e, e.File)
				}
				got[e.Key] = e.Msg
			}
			for key, want := range c.want {
				if !strings.Contains(got[key], want) {
					t.Errorf("%s: got %q, want it to contain %q", key, got[key], want)
				}
			}
			if len(got) != len(c.want) {
				t.Errorf("got errors %v, want exactly the keys of %v", got, c.want)
			}
			// A section that failed denies everything if used anyway.
			if p := c.cfg.Policy(); p == nil || p.Decide(tool(who("x"), "x")).Allowed {
				t.Errorf("Policy() of a bad section = %v, want one that denies", p)
			}
			// New reports the same keys.
			_, err := New(c.cfg)
			for key := range c.want {
				if err == nil || !strings.Contains(err.Error(), key+": ") {
					t.Errorf("New: %v, want an error naming %s", err, key)
				}
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	t.Run("no section: no policy", func(t *testing.T) {
		var c Config
		if errs := normalize(&c); len(errs) != 0 {
			t.Fatal(errs)
		}
		if c.Present() || c.Policy() != nil {
			t.Errorf("Present %v, Policy %v; want no policy", c.Present(), c.Policy())
		}
	})
	t.Run("empty rules: default deny", func(t *testing.T) {
		c := Config{Rules: []Rule{}}
		if errs := normalize(&c); len(errs) != 0 {
			t.Fatal(errs)
		}
		if c.Default != "deny" {
			t.Errorf("Default = %q, want deny", c.Default)
		}
		if p := c.Policy(); p == nil || p.Default() || p.Decide(tool(who("x"), "x")).Allowed {
			t.Errorf("Policy() = %+v, want a policy denying everything", p)
		}
	})
	t.Run("present but not normalized: denies", func(t *testing.T) {
		c := Config{Default: "allow"}
		if p := c.Policy(); p == nil || p.Decide(tool(who("x"), "x")).Allowed {
			t.Errorf("Policy() = %+v, want a policy denying everything", p)
		}
	})
	t.Run("default allow", func(t *testing.T) {
		c := Config{Default: "allow"}
		if errs := normalize(&c); len(errs) != 0 {
			t.Fatal(errs)
		}
		if p := c.Policy(); !p.Default() || !p.Decide(tool(who("x"), "x")).Allowed {
			t.Errorf("Policy() = %+v, want a policy allowing everything", p)
		}
	})
	t.Run("bursts", func(t *testing.T) {
		c := Config{Default: "allow", RateLimit: &RateLimit{Rate: "2.5/s"}}
		for _, r := range []string{"10/s", "100/m", "10/h", "0.5/s", " 3 / s ", "7/s"} {
			c.Rules = append(c.Rules, Rule{Principals: all("*"), Allow: Match{Tools: all("*")}, RateLimit: &RateLimit{Rate: Rate(r)}})
		}
		c.Rules[5].RateLimit.Burst = 2
		if errs := normalize(&c); len(errs) != 0 {
			t.Fatal(errs)
		}
		want := []int{10, 2, 1, 1, 3, 2}
		for i, w := range want {
			if got := c.Rules[i].RateLimit.Burst; got != w {
				t.Errorf("rules[%d] (%s): burst %d, want %d", i, c.Rules[i].RateLimit.Rate, got, w)
			}
		}
		if c.RateLimit.Burst != 3 {
			t.Errorf("gateway burst %d, want 3", c.RateLimit.Burst)
		}
	})
	t.Run("New does not change its argument", func(t *testing.T) {
		c := Config{Rules: []Rule{{Principals: all("*"), Allow: Match{Tools: all("*")}, RateLimit: &RateLimit{Rate: "10/s"}}}}
		if _, err := New(c); err != nil {
			t.Fatal(err)
		}
		if c.Default != "" || c.Rules[0].RateLimit.Burst != 0 {
			t.Errorf("New changed its argument: %+v %+v", c, c.Rules[0].RateLimit)
		}
	})
}

func TestParseRate(t *testing.T) {
	good := map[string]rate.Limit{"10/s": 10, "60/m": 1, "3600/h": 1, "0.5/s": 0.5, "1.5/m": 0.025, " 2/s ": 2}
	for s, want := range good {
		got, err := ParseRate(s)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "10", "10/x", "/s", "a/s", "-1/s", "0/m", "NaN/s", "Inf/s", "1e10/s", "10/s/s", "10/ms"} {
		if got, err := ParseRate(s); err == nil {
			t.Errorf("ParseRate(%q) = %v, want an error", s, got)
		}
	}
}

func TestRateUnmarshal(t *testing.T) {
	var r Rate
	if err := r.UnmarshalMapstructure("10/s"); err != nil || r != "10/s" {
		t.Errorf("string: %q, %v", r, err)
	}
	if err := r.UnmarshalMapstructure(10); err == nil || !strings.Contains(err.Error(), "10 needs a unit: write 10/s") {
		t.Errorf("int: %v", err)
	}
	if err := r.UnmarshalMapstructure([]any{1}); err == nil {
		t.Error("list: no error")
	}
}
