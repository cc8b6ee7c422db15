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

// attach pushes bundle as an OCI referrer of the manifest subject, as
// cosign sign v3 stores it, and returns the referrer's digest.
func attach(t *testing.T, reg *harness.OCIRegistry, repo, subject string, bundle []byte) string {
	t.Helper()
	return reg.Attach(t, repo, subject, oci.BundleArtifactType, bundle)
}

// TestSignedReferrers: without verify.bundle, an oci:// module's
// signature is a Sigstore bundle among the OCI referrers of its manifest:
// one signing the manifest digest (cosign sign) or the module's bytes. No
// referrer, or one by another key, is refused with nothing cached; once
// verified, a restart with the registry gone loads the module by digest
// and by sha256 pin.
func TestSignedReferrers(t *testing.T) {
	module, f, cache := setup(t, fetch.Options{})
	dir := t.TempDir()
	key, other := sigstoretest.NewKey(t), sigstoretest.NewKey(t)
	pub := key.WritePublic(t, dir, "k.pub")
	v, err := sigstore.New(sigstore.Policy{KeyFile: pub})
	if err != nil {
		t.Fatal(err)
	}
	reg := harness.NewOCIRegistry(t, nil)
	ctx := context.Background()
	signed := func(src, pin string) fetch.Spec {
		s := spec(src, pin)
		s.Verify = v
		return s
	}

	unsigned := reg.Push(t, "plugins/unsigned:1", harness.WasmImage(t, module))
	_, err = f.Fetch(ctx, signed(reg.Source("plugins/unsigned:1"), ""))
	if err == nil || !strings.Contains(err.Error(), "signature check failed: "+reg.Source("plugins/unsigned:1")+": no Sigstore bundle among the OCI referrers of "+unsigned) {
		t.Errorf("no referrer: %v", err)
	}
	byOther := reg.Push(t, "plugins/other:1", harness.WasmImage(t, module))
	attach(t, reg, "plugins/other", byOther, other.SignDigest(t, "plugins/other", strings.TrimPrefix(byOther, "sha256:")))
	_, err = f.Fetch(ctx, signed(reg.Source("plugins/other:1"), ""))
	if err == nil || !strings.Contains(err.Error(), "signed by a key other than verify.key_file ("+pub+")") {
		t.Errorf("referrer by another key: %v", err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("refused, yet the cache holds %v", entries)
	}

	// Signed manifest, and (another image of the same module) signed bytes.
	digest := reg.Push(t, "plugins/calculator:1", harness.WasmImage(t, module))
	attach(t, reg, "plugins/calculator", digest, other.SignDigest(t, "x", strings.TrimPrefix(digest, "sha256:")))
	attach(t, reg, "plugins/calculator", digest, key.SignDigest(t, "plugins/calculator", strings.TrimPrefix(digest, "sha256:")))
	if _, err := f.Fetch(ctx, signed(reg.Source("plugins/calculator:1"), "")); err != nil {
		t.Fatalf("signed manifest: %v", err)
	}
	blobImage := harness.WasmImage(t, append(bytes.Clone(module), 0))
	blobDigest := reg.Push(t, "plugins/blob:1", blobImage)
	attach(t, reg, "plugins/blob", blobDigest, key.Sign(t, append(bytes.Clone(module), 0)))
	if _, err := f.Fetch(ctx, signed(reg.Source("plugins/blob:1"), "")); err != nil {
		t.Fatalf("referrer signing the module's bytes: %v", err)
	}

	reg.Stop()
	restart := oci.New(fetch.Options{CacheDir: cache})
	for _, s := range []fetch.Spec{
		signed(reg.Source("plugins/calculator@"+digest), ""),
		signed(reg.Source("plugins/calculator:1"), fetch.Sum(module)),
		signed(reg.Source("plugins/blob:1"), fetch.Sum(append(bytes.Clone(module), 0))),
	} {
		if _, err := restart.Fetch(ctx, s); err != nil {
			t.Errorf("offline %s: %v", s.Source, err)
		}
	}
	// Under another key, nothing cached passes, and the registry is gone.
	ov, _ := sigstore.New(sigstore.Policy{KeyFile: other.WritePublic(t, dir, "o.pub")})
	s := spec(reg.Source("plugins/calculator@"+digest), "")
	s.Verify = ov
	if _, err := restart.Fetch(ctx, s); err == nil || !strings.Contains(err.Error(), "referrers of "+digest) {
		t.Errorf("offline under another key: %v", err)
	}
}

// TestSignedReferrerOfBytesByAnotherKey: a referrer signing the module's
// bytes with another key is reported as such, not as a manifest mismatch.
func TestSignedReferrerOfBytesByAnotherKey(t *testing.T) {
	module, f, _ := setup(t, fetch.Options{})
	key, other := sigstoretest.NewKey(t), sigstoretest.NewKey(t)
	pub := key.WritePublic(t, t.TempDir(), "k.pub")
	v, err := sigstore.New(sigstore.Policy{KeyFile: pub})
	if err != nil {
		t.Fatal(err)
	}
	reg := harness.NewOCIRegistry(t, nil)
	d := reg.Push(t, "plugins/x:1", harness.WasmImage(t, module))
	ref := attach(t, reg, "plugins/x", d, other.Sign(t, module))
	s := spec(reg.Source("plugins/x:1"), "")
	s.Verify = v
	_, err = f.Fetch(context.Background(), s)
	if want := "referrer " + ref + ": signed by a key other than verify.key_file (" + pub + ")"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}
