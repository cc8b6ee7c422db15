package ops

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestStatusPageRenders: the page shows what is in force, every relay
// site (connected or not, with the last refusal), the calls by endpoint
// and their latency quantiles, with plurals right.
func TestStatusPageRenders(t *testing.T) {
	now := time.Now()
	s := Status{
		Version: "v-test", Generated: now, RecentS: 300,
		Sessions: map[string]int{"http": 0, "stdio": 0},
		InForce: InForce{
			Auth:   AuthStatus{Enabled: true, Principals: 1, JWT: true, JWTIssuer: "https://issuer.example"},
			Policy: PolicyStatus{Enabled: true, Default: "deny", Rules: 2},
		},
		RelaySites: []RelaySiteStatus{
			{Name: "demo", Declared: "relay.sites[0]", Protocol: "wasmgate/1", Since: now.Add(-time.Minute),
				LastRefusal: &RelayRefusal{Outcome: "bad_proof", At: now, Origin: "http://127.0.0.1:5173", Error: "wrong proof"}},
			{Name: "shop", Declared: "relay.sites[1]", Protocol: "wasmgate/1", Connected: true, Origin: "https://shop.example", Since: now},
		},
		Calls: []CallStats{{Endpoint: "dev", Kind: "tool", Name: "calculate", Source: "calc", Total: 3, Recent: 3, AvgMS: 1, P50MS: 0.25, P95MS: 2.5, P99MS: 3.75}},
	}
	page, err := renderStatus(s)
	if err != nil {
		t.Fatal(err)
	}
	tags := regexp.MustCompile(`<[^>]+>`)
	text := strings.Join(strings.Fields(tags.ReplaceAllString(string(page), " ")), " ")
	for _, want := range []string{
		"authentication on : 1 principal (static tokens), JWT access tokens from https://issuer.example",
		"policy on : 2 rules, default deny",
		"audit the log",
		"demo relay.sites[0] · wasmgate/1 no page connected",
		"bad_proof at", "from http://127.0.0.1:5173", "wrong proof",
		"shop relay.sites[1] · wasmgate/1 connected https://shop.example",
		"0.25 / 2.5 / 3.8",
		"dev tool calculate calc 3", // the endpoint the calls came through, then the call
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not say %q:\n%s", want, text)
		}
	}
	s.InForce = InForce{}
	s.RelaySites = nil
	page, err = renderStatus(s)
	if err != nil {
		t.Fatal(err)
	}
	text = strings.Join(strings.Fields(tags.ReplaceAllString(string(page), " ")), " ")
	for _, want := range []string{"authentication off : callers over HTTP are not authenticated", "policy off : every caller may call everything"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Relay sites") {
		t.Errorf("a relay sites table without sites")
	}
}
