package ops

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/loader"
)

// TestSectionsSummary: the summary names every section in force, in the
// singular where there is one, and says off for auth and policy absent.
func TestSectionsSummary(t *testing.T) {
	dir := t.TempDir()
	load := func(yaml string) *loader.Config {
		t.Helper()
		p := filepath.Join(dir, "gateway.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := loader.Load(p, []string{"SITE_TOKEN=0123456789abcdef0123456789abcdef", "P_TOKEN=x"})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	if got, want := SectionsSummary(load("server: {name: x}\n")), "auth: off; policy: off; audit: log"; got != want {
		t.Errorf("empty config: %q, want %q", got, want)
	}
	cfg := load(`auth:
  principals:
    - {name: ci, token_env: P_TOKEN}
    - {name: bob, token_env: P_TOKEN}
policy:
  default: allow
  rate_limit: {rate: 10/s}
  rules:
    - principals: [ci]
      deny: {tools: ["*"]}
relay:
  sites:
    - {name: demo, token_env: SITE_TOKEN}
audit:
  file: audit.jsonl
  arguments: true
`)
	got := SectionsSummary(cfg)
	want := "auth: 2 principals; policy: 1 rule, default allow, rate limit; relay: 1 site (demo); audit: " + filepath.Join(dir, "audit.jsonl") + ", with arguments"
	if got != want {
		t.Errorf("summary:\n got %q\nwant %q", got, want)
	}
	f := InForceOf(cfg)
	if !f.Auth.Enabled || f.Auth.Principals != 2 || f.Auth.JWT || !f.Policy.Enabled || f.Policy.Default != "allow" || f.Policy.Rules != 1 || !f.Policy.RateLimit || !f.Audit.Arguments {
		t.Errorf("inForce = %+v", f)
	}
	if strings.Contains(got, "1 rules") || strings.Contains(got, "1 sites") {
		t.Errorf("plural of one: %q", got)
	}
}
