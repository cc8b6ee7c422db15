package loader

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestLoadReportsEveryDecodeError: bad values in two sections are both
// reported (issue 48: validate named only the first).
func TestLoadReportsEveryDecodeError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gateway.yaml")
	harness.WriteFile(t, path, []byte("server:\n  shutdown_timeout: 5x\nplugins: []\nupstreams:\n  - name: x\n    command: [/bin/true]\n    limits: {timeout: 3q}\n"))
	_, err := Load(path, nil)
	if err == nil {
		t.Fatal("Load succeeded")
	}
	for _, want := range []string{
		`server.shutdown_timeout: invalid duration "5x" (write e.g. 5s, 250ms, 1m) (line 2, column 3)`,
		`upstreams[0].limits.timeout: invalid duration "3q" (write e.g. 5s, 250ms, 1m) (line 7, column 14)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
}
