package oci_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/fetch/oci"
	"github.com/wasmgate/wasmgate/loader/fetch/sigstore"
	"github.com/wasmgate/wasmgate/loader/fetch/sigstore/sigstoretest"
)

// TestSigned: an oci:// module with verify.key_file and verify.bundle (a
// bundle of the module's bytes) loads; one signed by another key, or a
// bundle of other bytes, is refused and nothing is cached; after a good
// pull the registry can go away and the module still loads, by digest
// and by sha256 pin, from a restarted Fetcher.
func TestSigned(t *testing.T) {
	module, f, cache := setup(t, fetch.Options{})
	dir := t.TempDir()
	key, other := sigstoretest.NewKey(t), sigstoretest.NewKey(t)
	pub := key.WritePublic(t, dir, "k.pub")
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", key.Sign(t, module))
	byOther := write("other.json", other.Sign(t, module))
	ofOther := write("of-other.json", key.Sign(t, append(bytes.Clone(module), 0)))
	reg := harness.NewOCIRegistry(t, nil)
	digest := reg.Push(t, "plugins/calculator:1", harness.WasmImage(t, module))
	sum := fetch.Sum(module)
	ctx := context.Background()
	signed := func(src, pin, bundle string) fetch.Spec {
		s := spec(src, pin)
		v, err := sigstore.New(sigstore.Policy{KeyFile: pub, Bundle: bundle})
		if err != nil {
			t.Fatal(err)
		}
		s.Verify = v
		return s
	}

	for bundle, want := range map[string]string{
		byOther: "signed by a key other than verify.key_file (" + pub + ")",
		ofOther: "the bundle signs sha256:",
	} {
		_, err := f.Fetch(ctx, signed(reg.Source("plugins/calculator:1"), "", bundle))
		if err == nil || !strings.Contains(err.Error(), `plugin "calc" (plugins[0].verify): signature check failed: `) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", filepath.Base(bundle), err, want)
		}
		if entries, _ := os.ReadDir(cache); len(entries) != 0 {
			t.Errorf("%s: refused, yet the cache holds %v", filepath.Base(bundle), entries)
		}
	}

	if _, err := f.Fetch(ctx, signed(reg.Source("plugins/calculator:1"), "", good)); err != nil {
		t.Fatal(err)
	}
	reg.Stop()
	restart := oci.New(fetch.Options{CacheDir: cache})
	for _, s := range []fetch.Spec{
		signed(reg.Source("plugins/calculator@"+digest), "", good),
		signed(reg.Source("plugins/calculator:1"), sum, good),
	} {
		if _, err := restart.Fetch(ctx, s); err != nil {
			t.Errorf("offline %s: %v", s.Source, err)
		}
	}
	// The cached module is trusted under the same key only: under
	// another key its bundle is read again, and refused.
	otherPub := other.WritePublic(t, dir, "other.pub")
	s := spec(reg.Source("plugins/calculator@"+digest), "")
	v, err := sigstore.New(sigstore.Policy{KeyFile: otherPub, Bundle: good})
	if err != nil {
		t.Fatal(err)
	}
	s.Verify = v
	_, err = restart.Fetch(ctx, s)
	if err == nil || !strings.Contains(err.Error(), "signed by a key other than verify.key_file ("+otherPub+")") {
		t.Errorf("offline, another key: %v", err)
	}
}
