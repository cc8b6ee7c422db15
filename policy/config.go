package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/time/rate"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/glob"
)

// Config is the policy section of gateway.yaml:
//
//	policy:
//	  default: deny            # allow | deny; deny when the section is there without it
//	  rate_limit: {rate: 100/s, burst: 200}   # optional, gateway-wide, per principal
//	  rules:
//	    - principals: [ci, group:ops, "*"]
//	      allow: {tools: ["calc_*"], resources: ["file:///docs/*"], prompts: ["*"]}
//	      deny:  {tools: ["calc_admin"]}
//	      when: 'args.n < 100 && transport == "http"'   # optional CEL
//	      rate_limit: {rate: 10/s, burst: 20}            # optional
//
// A file without the section has no policy: everything is allowed, as
// before policies existed. A section that sets any key is in force, and
// without default it denies what no rule allows (fail closed). A section
// with no keys at all (`policy:` or `policy: {}`) cannot be told apart
// from no section and is the same as no section.
//
// Normalize compiles the section; Policy returns the result.
type Config struct {
	Default   string     `koanf:"default"`
	Rules     []Rule     `koanf:"rules"`
	RateLimit *RateLimit `koanf:"rate_limit"`
	// RevealHidden answers a call of a tool, resource or prompt the caller
	// may not see with "denied by policy". By default (false) it gets the
	// answer an unknown name gets, so that names cannot be enumerated.
	RevealHidden bool `koanf:"reveal_hidden"`

	compiled *Policy
}

// Rule is one entry of policy.rules. It applies to a caller named in
// Principals; Deny and Allow name what it denies and allows, When (a CEL
// expression, optional) must also hold, and RateLimit limits the calls
// it allows, per principal and tool.
type Rule struct {
	Principals []string   `koanf:"principals"`
	Allow      Match      `koanf:"allow"`
	Deny       Match      `koanf:"deny"`
	When       string     `koanf:"when"`
	RateLimit  *RateLimit `koanf:"rate_limit"`
}

// Match lists globs of tool names, resource URIs and prompt names.
type Match struct {
	Tools     []string `koanf:"tools"`
	Resources []string `koanf:"resources"`
	Prompts   []string `koanf:"prompts"`
}

func (m Match) empty() bool { return len(m.Tools)+len(m.Resources)+len(m.Prompts) == 0 }

// RateLimit is a token bucket: Rate is written N/s, N/m or N/h (N may
// have a fraction, e.g. 0.5/s), Burst is how many calls may come at once;
// it defaults to the rate per second rounded up, at least 1.
type RateLimit struct {
	Rate  Rate `koanf:"rate"`
	Burst int  `koanf:"burst"`
}

// Rate is a rate written N/s, N/m or N/h; see ParseRate.
type Rate string

// UnmarshalMapstructure lets the loader's decoder explain a rate written
// as a bare number.
func (r *Rate) UnmarshalMapstructure(v any) error {
	switch v := v.(type) {
	case string:
		*r = Rate(v)
		return nil
	case int, int64, uint64, float64:
		return fmt.Errorf("%v needs a unit: write %v/s, %v/m or %v/h", v, v, v, v)
	}
	return fmt.Errorf("%v: want N/s, N/m or N/h, e.g. 10/s", v)
}

// MaxRatePerSecond bounds a rate limit's rate.
const MaxRatePerSecond = 1e9

// Present reports whether the section sets any key, i.e. whether a policy
// is in force.
func (c *Config) Present() bool {
	return c.Default != "" || c.Rules != nil || c.RateLimit != nil
}

// Normalize fills defaults (default: deny, each burst), compiles every
// glob and CEL condition and reports each bad value with its full key.
func (c *Config) Normalize(key string, env *config.Env) {
	c.compiled = nil
	if !c.Present() {
		return
	}
	p, ok := compile(c, key, env.Bad)
	if !ok {
		// The load fails; should the result be used anyway, it denies.
		p = denyAll()
	}
	c.compiled = p
}

// Policy returns the policy compiled by Normalize: nil (everything
// allowed) when the section is absent. A section that is present but was
// not normalized, or did not compile, gives a policy that denies
// everything.
func (c *Config) Policy() *Policy {
	if !c.Present() {
		return nil
	}
	if c.compiled == nil {
		return denyAll()
	}
	return c.compiled
}

// New compiles c as a present policy section (an empty Config denies
// everything) and returns every problem, each naming its key under
// "policy". c is not modified.
func New(c Config) (*Policy, error) {
	c.Rules = append([]Rule(nil), c.Rules...)
	for i := range c.Rules {
		if l := c.Rules[i].RateLimit; l != nil {
			cp := *l
			c.Rules[i].RateLimit = &cp
		}
	}
	if c.RateLimit != nil {
		cp := *c.RateLimit
		c.RateLimit = &cp
	}
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	p, ok := compile(&c, "policy", bad)
	if !ok {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

func denyAll() *Policy { return &Policy{} }

// compile fills c's defaults and builds its Policy, reporting problems
// through bad; ok is false if there were any.
func compile(c *Config, key string, bad config.Bad) (p *Policy, ok bool) {
	ok = true
	report := func(k, format string, args ...any) {
		ok = false
		bad(k, format, args...)
	}
	p = &Policy{revealHidden: c.RevealHidden}
	switch c.Default {
	case "", "deny":
		c.Default = "deny"
	case "allow":
		p.allowByDefault = true
	default:
		report(key+".default", "%q: want allow or deny", c.Default)
	}
	if c.RateLimit != nil {
		p.global = compileLimit(c.RateLimit, key+".rate_limit", -1, report)
		if p.global != nil {
			p.global.id = "gateway " + fingerprint(c.RateLimit)
		}
	}
	var cel *celEnv
	seen := map[string]int{}
	for i := range c.Rules {
		rk := fmt.Sprintf("%s.rules[%d]", key, i)
		r := &c.Rules[i]
		cr := rule{index: i}
		cr.who = compilePrincipals(r.Principals, rk+".principals", report)
		cr.allow = compileMatch(r.Allow, rk+".allow", report)
		cr.deny = compileMatch(r.Deny, rk+".deny", report)
		if r.Allow.empty() && r.Deny.empty() {
			report(rk, "neither allow nor deny names a tool, resource or prompt")
		}
		if r.When != "" {
			if cel == nil {
				var err error
				if cel, err = newCELEnv(); err != nil {
					report(rk+".when", "cannot set up CEL: %v", err)
					continue
				}
			}
			cond, err := cel.compile(r.When)
			if err != nil {
				report(rk+".when", "%v", err)
			}
			cr.when = cond
		}
		if r.RateLimit != nil {
			if r.Allow.empty() {
				report(rk+".rate_limit", "limits the calls this rule allows, and its allow is empty")
			}
			cr.limit = compileLimit(r.RateLimit, rk+".rate_limit", i, report)
		}
		if cr.limit != nil {
			// Identical rules get distinct limiters, each counting the
			// calls it allows; a rule edited in place gets a new one.
			fp := fingerprint(r)
			seen[fp]++
			cr.limit.id = fmt.Sprintf("rule %s#%d", fp, seen[fp])
			cr.limits = []*RuleLimit{cr.limit}
		}
		p.rules = append(p.rules, cr)
	}
	return p, ok
}

// fingerprint identifies a (normalized) rule or limit by its content.
func fingerprint(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// Plain strings, ints and slices always marshal.
		panic(fmt.Sprintf("policy: fingerprint: %v", err))
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

func compilePrincipals(names []string, key string, bad config.Bad) principals {
	var w principals
	if len(names) == 0 {
		bad(key, "empty; name principals, group:NAME, or \"*\" for everyone")
	}
	for j, n := range names {
		k := fmt.Sprintf("%s[%d]", key, j)
		switch {
		case n == "*":
			w.everyone = true
		case n == "" || strings.TrimSpace(n) != n:
			bad(k, "%q: want a principal name, group:NAME or \"*\"", n)
		case strings.HasPrefix(n, "group:"):
			g := strings.TrimPrefix(n, "group:")
			if g == "" || strings.TrimSpace(g) != g {
				bad(k, "%q: want group:NAME", n)
				continue
			}
			w.groups = append(w.groups, g)
		default:
			w.names = append(w.names, n)
		}
	}
	return w
}

func compileMatch(m Match, key string, bad config.Bad) matcher {
	var out matcher
	lists := [...]struct {
		name  string
		globs []string
	}{Tool: {"tools", m.Tools}, Resource: {"resources", m.Resources}, Prompt: {"prompts", m.Prompts}}
	for kind, l := range lists {
		for j, s := range l.globs {
			g, err := glob.Compile(s)
			if err != nil {
				bad(fmt.Sprintf("%s.%s[%d]", key, l.name, j), "%q: %v", s, err)
				continue
			}
			out[kind] = append(out[kind], g)
		}
	}
	return out
}

// compileLimit fills l's default burst and returns the limit, or nil
// after reporting a bad value.
func compileLimit(l *RateLimit, key string, ruleIndex int, bad config.Bad) *RuleLimit {
	perSec, err := ParseRate(string(l.Rate))
	if err != nil {
		bad(key+".rate", "%v", err)
		return nil
	}
	switch {
	case l.Burst < 0:
		bad(key+".burst", "%d: want at least 1 (or leave it out for the rate per second, rounded up)", l.Burst)
		return nil
	case l.Burst == 0:
		l.Burst = max(1, int(math.Ceil(float64(perSec))))
	}
	return &RuleLimit{Rule: ruleIndex, Limit: perSec, Burst: l.Burst}
}

// ParseRate reads a rate written N/s, N/m or N/h (N > 0, a fraction
// allowed) as events per second.
func ParseRate(s string) (rate.Limit, error) {
	const want = "want N/s, N/m or N/h, e.g. 10/s"
	if s == "" {
		return 0, errors.New("missing; " + want)
	}
	num, unit, found := strings.Cut(strings.TrimSpace(s), "/")
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if !found || err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, fmt.Errorf("%q: %s", s, want)
	}
	var per float64
	switch strings.TrimSpace(unit) {
	case "s":
		per = 1
	case "m":
		per = 60
	case "h":
		per = 3600
	default:
		return 0, fmt.Errorf("%q: %s", s, want)
	}
	if n <= 0 {
		return 0, fmt.Errorf("%q: the rate must be above 0 (to block calls, deny them)", s)
	}
	if n/per > MaxRatePerSecond {
		return 0, fmt.Errorf("%q: above %g per second", s, float64(MaxRatePerSecond))
	}
	return rate.Limit(n / per), nil
}
