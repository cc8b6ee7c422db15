package loader

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/loader/fetch/sigstore/sigstoretest"
)

// TestLoadVerify: verify's paths resolve against the config's folder and
// are watched (a new key or bundle reloads); a local module with
// verify.bundle is checked on every fetch.
func TestLoadVerify(t *testing.T) {
	p := writeFiles(t, `
plugins:
  - name: local
    path: mods/local.wasm
    verify: {key_file: keys/tools.pub, bundle: mods/local.wasm.sigstore.json}
  - name: remote
    path: https://example.com/tools.wasm
    verify: {key_file: keys/tools.pub}
  - name: unsigned
    path: mods/local.wasm
`, "mods/local.wasm")
	dir := filepath.Dir(p)
	key, other := sigstoretest.NewKey(t), sigstoretest.NewKey(t)
	os.MkdirAll(filepath.Join(dir, "keys"), 0o755)
	pub := key.WritePublic(t, filepath.Join(dir, "keys"), "tools.pub")
	module := []byte("\x00asm")
	bundle := filepath.Join(dir, "mods", "local.wasm.sigstore.json")
	if err := os.WriteFile(bundle, key.Sign(t, module), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	v := cfg.Plugins[0].Verify
	if v.KeyFile != pub || v.Bundle != bundle {
		t.Errorf("paths not resolved: key_file %q, bundle %q", v.KeyFile, v.Bundle)
	}
	if cfg.Plugins[1].Verify.Bundle != "" || cfg.Plugins[2].Verify != nil {
		t.Errorf("verify of plugins[1], [2]: %+v %+v", cfg.Plugins[1].Verify, cfg.Plugins[2].Verify)
	}
	for _, f := range []string{pub, bundle} {
		if !slices.Contains(cfg.WatchFiles(), f) {
			t.Errorf("%s is not watched: %v", f, cfg.WatchFiles())
		}
	}

	ctx := context.Background()
	if _, err := Fetch(ctx, cfg.Plugins[0]); err != nil {
		t.Fatalf("local module, good bundle: %v", err)
	}
	if err := os.WriteFile(bundle, other.Sign(t, module), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Fetch(ctx, cfg.Plugins[0])
	want := `plugin "local" (plugins[0].verify): signature check failed: ` + filepath.Join(dir, "mods", "local.wasm") + ": bundle " + bundle + ": signed by a key other than verify.key_file (" + pub + ")"
	if err == nil || err.Error() != want {
		t.Errorf("local module, bundle of another key:\n got %v\nwant %s", err, want)
	}

	// A spec whose verify section was never normalized refuses its module.
	raw := cfg.Plugins[0]
	raw.Verify = &VerifySpec{KeyFile: pub, Bundle: bundle}
	if _, err := Fetch(ctx, raw); err == nil || !strings.Contains(err.Error(), "signature check failed") {
		t.Errorf("unnormalized verify: %v", err)
	}
}
