package relay

import (
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/internal/relaytest"
)

// TestRegisterRateLimit: a page sending register frames faster than
// max_registrations_per_minute gets an error frame for each one over the
// burst (counted as rate_limited), stays connected, and what it
// registered before still serves.
func TestRegisterRateLimit(t *testing.T) {
	site := demo()
	site.MaxRegistrations = 60 // bursts of 6, then one a second
	f := newFixture(t, site)
	p := f.connect("demo")
	for i := range 6 {
		p.register(map[string]any{"id": i, "tools": []any{relaytest.CalcTool()}})
		f.waitChange("demo")
	}
	const flood = 200
	for i := range flood {
		p.send(map[string]any{"type": "register", "id": 100 + i, "tools": []any{map[string]any{"name": "intruder"}}})
	}
	refused, published := 0, 0
	for range flood {
		fr := p.read()
		switch fr["type"] {
		case "error":
			refused++
			if fr["reason"] != "rate_limited" || !strings.Contains(fr["message"].(string), "max_registrations_per_minute") {
				t.Fatalf("error frame %v", fr)
			}
		case "registered":
			published++
		default:
			t.Fatalf("frame %v", fr)
		}
	}
	if refused < flood-2 || refused+published != flood {
		t.Fatalf("%d refused and %d published of %d sent over the limit", refused, published, flood)
	}
	if got := f.rejected("demo", "rate_limited"); got != float64(refused) {
		t.Errorf("rate_limited counted %v, want %d", got, refused)
	}
	// The page is still the site's, and serves what it registered.
	if d := f.site("demo").Descriptor(); len(d.Tools) != 1 {
		t.Fatalf("the page's tools after the flood: %+v", d.Tools)
	}
}
