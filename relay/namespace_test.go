package relay

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/wasmgate/wasmgate/config"
)

// A page registers resources only under the schemes its site owns: the
// one derived from its prefix, or resource_schemes. What is outside is
// refused for itself (a warning in the registered frame, counted); the
// page keeps the rest.
func TestResourcesConfinedToTheSiteNamespace(t *testing.T) {
	f := newFixture(t, demo(), SiteConfig{Name: "files", ResourceSchemes: []string{"Docs", "notes"}})
	p := f.connect("demo")
	ack := p.register(map[string]any{"id": 1,
		"resources": []any{
			map[string]any{"uri": "demo://about", "name": "about"},
			map[string]any{"uri": "storage://secret-plans", "name": "intruder"},
			map[string]any{"uri": "DEMO://upper", "name": "upper"},
		},
		"resourceTemplates": []any{
			map[string]any{"uriTemplate": "storage://{key}", "name": "storage"},
			map[string]any{"uriTemplate": "demo://storage/{key}", "name": "mine"},
		}})
	f.waitChange("demo")
	if got := fmt.Sprint(ack["resources"]); got != "[demo://about DEMO://upper demo://storage/{key}]" {
		t.Errorf("registered resources %s, want the site's own only", got)
	}
	warns := fmt.Sprint(ack["warnings"])
	for _, want := range []string{`resource "storage://secret-plans" not published: outside the site's namespace`,
		`resource template "storage://{key}" not published: outside the site's namespace`, "demo://"} {
		if !strings.Contains(warns, want) {
			t.Errorf("warnings %s: want %q", warns, want)
		}
	}
	if got := testutil.ToFloat64(f.m.ClaimsRefused.WithLabelValues("demo")); got != 2 {
		t.Errorf("wasmgate_claims_refused_total{source=demo} = %v, want 2", got)
	}
	d := f.site("demo").Descriptor()
	if len(d.Resources) != 3 {
		t.Errorf("descriptor has %d resources, want 3: %+v", len(d.Resources), d.Resources)
	}
	for _, r := range d.Resources {
		if strings.HasPrefix(r.URI, "storage:") {
			t.Errorf("descriptor publishes %s", r.URI)
		}
	}

	// A granted scheme replaces the derived one.
	q := f.connect("files")
	ack = q.register(map[string]any{"id": 1, "resources": []any{
		map[string]any{"uri": "docs://a", "name": "a"},
		map[string]any{"uri": "notes://b", "name": "b"},
		map[string]any{"uri": "files://c", "name": "c"},
	}})
	f.waitChange("files")
	if got := fmt.Sprint(ack["resources"]); got != "[docs://a notes://b]" {
		t.Errorf("files registered %s, want [docs://a notes://b]", got)
	}
	if !strings.Contains(fmt.Sprint(ack["warnings"]), `resource "files://c" not published`) {
		t.Errorf("files warnings %v", ack["warnings"])
	}
}

func TestResourceSchemesConfig(t *testing.T) {
	cases := []struct {
		sites []SiteConfig
		want  string
	}{
		{[]SiteConfig{{Name: "a", TokenEnv: "X", ResourceSchemes: []string{"storage://"}}}, `relay.sites[0].resource_schemes[0]: "storage://" is not a URI scheme`},
		{[]SiteConfig{{Name: "a", TokenEnv: "X", ResourceSchemes: []string{"9p"}}}, `relay.sites[0].resource_schemes[0]: "9p" is not a URI scheme`},
		{[]SiteConfig{{Name: "a", TokenEnv: "X", ResourceSchemes: []string{"Shared"}}, {Name: "b", TokenEnv: "X", ResourceSchemes: []string{"shared"}}},
			`relay.sites[1].resource_schemes: URI scheme "shared" is also the resource namespace of relay.sites[0]`},
		{[]SiteConfig{{Name: "my_app", TokenEnv: "X"}, {Name: "my-app", TokenEnv: "X"}},
			`relay.sites[1].resource_schemes: URI scheme "my-app" is also the resource namespace of relay.sites[0]`},
	}
	for _, c := range cases {
		var errs []error
		cfg := Config{Sites: c.sites}
		cfg.Normalize("relay", config.NewEnv("/test/gateway.yaml", &errs))
		if err := errors.Join(errs...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.sites, err, c.want)
		}
	}
	if got := (SiteConfig{Prefix: "My_App_"}).Schemes(); fmt.Sprint(got) != "[my-app]" {
		t.Errorf("default scheme of prefix My_App_ = %v", got)
	}
	if got := (SiteConfig{Prefix: "1x_"}).Schemes(); got != nil {
		t.Errorf("default scheme of prefix 1x_ = %v, want none", got)
	}
}
