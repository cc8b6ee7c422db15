// Package sigstoretest signs modules in tests the way cosign sign-blob
// --key --bundle --tlog-upload=false does: a Sigstore bundle (v0.3) with
// a message signature, public-key verification material and no
// transparency log entry. Nothing leaves the process.
package sigstoretest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"
)

// Key is a signing key (ECDSA P-256, generated in the test).
type Key struct {
	kp *sign.EphemeralKeypair
}

// NewKey generates a key.
func NewKey(t testing.TB) *Key {
	t.Helper()
	kp, err := sign.NewEphemeralKeypair(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Key{kp: kp}
}

// PublicPEM is the key's public half, as cosign.pub holds it.
func (k *Key) PublicPEM(t testing.TB) []byte {
	t.Helper()
	s, err := k.kp.GetPublicKeyPem()
	if err != nil {
		t.Fatal(err)
	}
	return []byte(s)
}

// WritePublic writes the public key to dir/name and returns its path.
func (k *Key) WritePublic(t testing.TB, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, k.PublicPEM(t), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Sign returns the Sigstore bundle (JSON) of a signature of data.
func (k *Key) Sign(t testing.TB, data []byte) []byte {
	t.Helper()
	b, err := sign.Bundle(&sign.PlainData{Data: data}, k.kp, sign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := protojson.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// SignDigest returns the Sigstore bundle of a DSSE envelope of an in-toto
// statement whose subject is the artifact with that SHA-256 (hex), as
// cosign sign writes for an image's manifest digest.
func (k *Key) SignDigest(t testing.TB, name, sha256hex string) []byte {
	t.Helper()
	stmt, err := json.Marshal(map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"name": name, "digest": map[string]string{"sha256": sha256hex}}},
		"predicateType": "https://sigstore.dev/cosign/sign/v1",
		"predicate":     map[string]any{},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sign.Bundle(&sign.DSSEData{Data: stmt, PayloadType: "application/vnd.in-toto+json"}, k.kp, sign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := protojson.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
