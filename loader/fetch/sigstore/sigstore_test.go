package sigstore_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/verify"

	"github.com/wasmgate/wasmgate/loader/fetch/sigstore"
	"github.com/wasmgate/wasmgate/loader/fetch/sigstore/sigstoretest"
)

func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	key, other := sigstoretest.NewKey(t), sigstoretest.NewKey(t)
	pub := key.WritePublic(t, dir, "tools.pub")
	module := []byte("\x00asm\x01\x00\x00\x00 a module")
	bundle := key.Sign(t, module)

	v, err := sigstore.New(sigstore.Policy{KeyFile: pub})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Verify(module, bundle); err != nil {
		t.Fatalf("good signature: %v", err)
	}
	for name, c := range map[string]struct {
		data, bundle []byte
		want         string
	}{
		"tampered":  {append(bytes.Clone(module), 0), bundle, "the bundle signs sha256:"},
		"other key": {module, other.Sign(t, module), "signed by a key other than verify.key_file (" + pub + ")"},
		"not json":  {module, []byte("<html>"), "not a Sigstore bundle"},
		"empty":     {module, []byte("{}"), "not a Sigstore bundle"},
	} {
		err := v.Verify(c.data, c.bundle)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", name, err, c.want)
		}
	}

	// Another key file is another trust: its ID differs.
	v2, err := sigstore.New(sigstore.Policy{KeyFile: other.WritePublic(t, dir, "other.pub")})
	if err != nil {
		t.Fatal(err)
	}
	if v2.ID() == v.ID() {
		t.Error("two keys have the same ID")
	}
}

func TestKeyFileFormats(t *testing.T) {
	dir := t.TempDir()
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pkix := func(k any) []byte {
		der, err := x509.MarshalPKIXPublicKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return der
	}
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	edPub, _, _ := ed25519.GenerateKey(rand.Reader)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	for name, path := range map[string]string{
		"p384":    write("p384.pub", "PUBLIC KEY", pkix(&p384.PublicKey)),
		"ed25519": write("ed.pub", "PUBLIC KEY", pkix(edPub)),
		"rsa":     write("rsa.pub", "PUBLIC KEY", pkix(&rsaKey.PublicKey)),
		"pkcs1":   write("rsa1.pub", "RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(&rsaKey.PublicKey)),
	} {
		if _, err := sigstore.New(sigstore.Policy{KeyFile: path}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	priv, _ := x509.MarshalECPrivateKey(p384)
	for path, want := range map[string]string{
		write("priv.pem", "EC PRIVATE KEY", priv):          "takes the public key",
		write("cert.pem", "CERTIFICATE", []byte{1}):        "a certificate, not a public key",
		filepath.Join(dir, "missing.pub"):                  "verify.key_file: " + filepath.Join(dir, "missing.pub") + ": no such file or directory",
		write("junk.pub", "PUBLIC KEY", []byte("not der")): "parse public key",
	} {
		_, err := sigstore.New(sigstore.Policy{KeyFile: path})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", path, err, want)
		}
	}
}

func TestTrustedRootFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "trusted_root.json")
	os.WriteFile(bad, []byte(`{"mediaType": "nope"}`), 0o600)
	_, err := sigstore.New(sigstore.Policy{Identity: "release@example.com", Issuer: "https://issuer.example", TrustedRoot: bad})
	if err == nil || !strings.Contains(err.Error(), "verify.trusted_root: "+bad) {
		t.Errorf("got %v", err)
	}
}

func TestKeyless(t *testing.T) {
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	const id, issuer = "release@example.com", "https://issuer.example"
	module := []byte("\x00asm\x01\x00\x00\x00 a module")
	v, err := sigstore.NewKeyless(sigstore.Policy{Identity: id, Issuer: issuer}, vs)
	if err != nil {
		t.Fatal(err)
	}
	good, err := vs.Sign(id, issuer, module)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.VerifyEntity(module, good); err != nil {
		t.Fatalf("good keyless signature: %v", err)
	}
	ci, _ := vs.Sign("ci@example.com", issuer, module)
	otherIssuer, _ := vs.Sign(id, "https://other.example", module)
	for name, c := range map[string]struct {
		e    verify.SignedEntity
		data []byte
		want string
	}{
		"identity": {ci, module, "certificate identity ci@example.com, want release@example.com"},
		"issuer":   {otherIssuer, module, "certificate issuer https://other.example, want https://issuer.example"},
		"tampered": {good, append(bytes.Clone(module), 1), "the bundle signs sha256:"},
	} {
		err := v.VerifyEntity(c.data, c.e)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", name, err, c.want)
		}
	}

	// Another CA's certificate does not chain to the trusted root.
	vs2, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	foreign, _ := vs2.Sign(id, issuer, module)
	if err := v.VerifyEntity(module, foreign); err == nil {
		t.Error("a certificate from another CA verified")
	}

	// A key-signed bundle is refused by a keyless policy, and the other
	// way round.
	key := sigstoretest.NewKey(t)
	var b bundle.Bundle
	if err := b.UnmarshalJSON(key.Sign(t, module)); err != nil {
		t.Fatal(err)
	}
	if err := v.VerifyEntity(module, &b); err == nil || !strings.Contains(err.Error(), "public-key signature; want a keyless signature by release@example.com") {
		t.Errorf("key bundle under keyless policy: %v", err)
	}
	kv, err := sigstore.New(sigstore.Policy{KeyFile: key.WritePublic(t, t.TempDir(), "k.pub")})
	if err != nil {
		t.Fatal(err)
	}
	if err := kv.VerifyEntity(module, good); err == nil || !strings.Contains(err.Error(), "keyless (certificate) signature by release@example.com") {
		t.Errorf("keyless bundle under key policy: %v", err)
	}
}

// TestKeylessTrustedRootFile: a trusted_root.json written from a
// VirtualSigstore is read by New, and its CA, Rekor key and CT logs are
// what the bundle is checked against: a certificate of this CA gets as
// far as the SCT check (virtual certificates carry none, which a real
// Fulcio certificate does), one of another CA fails on its chain or log.
func TestKeylessTrustedRootFile(t *testing.T) {
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	// VirtualSigstore's log IDs are hex strings used as bytes; the JSON
	// form holds the bytes they spell.
	logs := func(m map[string]*root.TransparencyLog) map[string]*root.TransparencyLog {
		for k, l := range m {
			if id, err := hex.DecodeString(k); err == nil {
				l.ID = id
			}
		}
		return m
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, vs.FulcioCertificateAuthorities(), logs(vs.CTLogs()), vs.TimestampingAuthorities(), logs(vs.RekorLogs()))
	if err != nil {
		t.Fatal(err)
	}
	js, err := tr.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trusted_root.json")
	os.WriteFile(path, js, 0o600)
	const id, issuer = "release@example.com", "https://issuer.example"
	v, err := sigstore.New(sigstore.Policy{Identity: id, Issuer: issuer, TrustedRoot: path})
	if err != nil {
		t.Fatal(err)
	}
	module := []byte("\x00asm\x01\x00\x00\x00 a module")
	e, _ := vs.Sign(id, issuer, module)
	if err := v.VerifyEntity(module, e); err == nil || !strings.Contains(err.Error(), "signed certificate timestamp") {
		t.Errorf("own CA: got %v, want it to stop at the SCT check", err)
	}
	vs2, _ := ca.NewVirtualSigstore()
	e2, _ := vs2.Sign(id, issuer, module)
	err = v.VerifyEntity(module, e2)
	t.Logf("another CA: %v", err)
	if err == nil || strings.Contains(err.Error(), "signed certificate timestamp") {
		t.Errorf("another CA: got %v, want a log or chain failure", err)
	}

	empty, _ := root.NewTrustedRoot(root.TrustedRootMediaType01, nil, nil, nil, vs.RekorLogs())
	js, _ = empty.MarshalJSON()
	os.WriteFile(path, js, 0o600)
	if _, err := sigstore.New(sigstore.Policy{Identity: id, Issuer: issuer, TrustedRoot: path}); err == nil || !strings.Contains(err.Error(), "lists no certificate authority") {
		t.Errorf("root without a CA: %v", err)
	}
}
