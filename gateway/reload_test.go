package gateway

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestRestartHint: systemctl only under systemd, told by the environment
// the caller passes in.
func TestRestartHint(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want string
	}{
		{nil, "restart wasmgate"},
		{[]string{"HOME=/root", "INVOCATION_ID="}, "restart wasmgate"},
		{[]string{"INVOCATION_ID=0123abcd"}, "systemctl restart wasmgate"},
		{[]string{"NOTIFY_SOCKET=/run/systemd/notify"}, "systemctl restart wasmgate"},
		{[]string{"MY_INVOCATION_ID=x"}, "restart wasmgate"},
	} {
		if got := RestartHint(c.env); got != c.want {
			t.Errorf("RestartHint(%q) = %q, want %q", c.env, got, c.want)
		}
	}
}

// TestShownFiles: saved files are shown relative to the config's folder
// when inside it, else as they are.
func TestShownFiles(t *testing.T) {
	dir := t.TempDir()
	g := &Gateway{opts: Options{ConfigPath: filepath.Join(dir, "gateway.yaml")}}
	got := g.shownFiles([]string{filepath.Join(dir, "gateway.yaml"), filepath.Join(dir, "plugins", "p.wasm"), "/elsewhere/q.wasm", filepath.Join(dir, "..x", "r.wasm")})
	want := []string{"gateway.yaml", filepath.Join("plugins", "p.wasm"), "/elsewhere/q.wasm", filepath.Join("..x", "r.wasm")}
	if !slices.Equal(got, want) {
		t.Errorf("shownFiles = %q, want %q", got, want)
	}
}
