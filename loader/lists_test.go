package loader

import (
	"testing"
	"time"
)

// TestListTTL: an endpoint's lists.ttl overrides the top-level one,
// which overrides the default; 0s is a value of its own (lists stale at
// once), not "unset".
func TestListTTL(t *testing.T) {
	p := writeFiles(t, `
plugins:
  - path: calc.wasm
lists: {ttl: 30s}
endpoints:
  - name: own
    lists: {ttl: 5s}
  - name: zero
    lists: {ttl: 0s}
  - name: inherits
`, "calc.wasm")
	cfg, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	list := cfg.EndpointList()
	for i, want := range []time.Duration{5 * time.Second, 0, 30 * time.Second} {
		if got := cfg.ListTTL(&list[i]); got != want {
			t.Errorf("ListTTL(%s) = %s, want %s", list[i].Name, got, want)
		}
	}

	p = writeFiles(t, "plugins:\n  - path: calc.wasm\n", "calc.wasm")
	if cfg, err = Load(p, nil); err != nil {
		t.Fatal(err)
	}
	def := cfg.EndpointList()[0]
	if got := cfg.ListTTL(&def); got != DefaultListTTL {
		t.Errorf("ListTTL without a lists section = %s, want the default %s", got, DefaultListTTL)
	}
}
