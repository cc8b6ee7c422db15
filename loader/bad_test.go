package loader

import (
	"errors"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestBadConfigs loads every config in testdata/bad: each must be refused
// with a *ConfigError naming the file and saying what its "# want:" lines
// say (see harness.BadConfig). cmd/wasmgate runs a few of them through
// `wasmgate validate` as well.
func TestBadConfigs(t *testing.T) {
	// The configs name the example plugins, as a user's would: without
	// them built, every case would also fail on a missing module.
	harness.Wasm(t, "examples/plugins/calculator")
	harness.Wasm(t, "examples/plugins/greeter")
	harness.Wasm(t, "examples/rankers/keyword")
	for _, c := range harness.BadConfigs(t, "testdata/bad") {
		t.Run(c.Name, func(t *testing.T) {
			_, err := Load(c.Path, c.Env)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.Name+".yaml") {
				t.Errorf("the error does not name the file:\n%s", msg)
			}
			for _, w := range c.Want {
				if !strings.Contains(msg, w) {
					t.Errorf("the error does not contain %q:\n%s", w, msg)
				}
			}
			for _, n := range c.Not {
				if strings.Contains(msg, n) {
					t.Errorf("the error contains %q:\n%s", n, msg)
				}
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Errorf("the error is %T, want a *ConfigError inside", err)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("more than one error: each file must have nothing wrong but what it tests:\n%s", msg)
			}
		})
	}
}
