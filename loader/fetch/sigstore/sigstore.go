// Package sigstore checks Sigstore signatures of plugin modules
// (plugins[].verify) with sigstore-go's bundle verification, fully
// offline: a module's bytes are the artifact a bundle
// (application/vnd.dev.sigstore.bundle.v0.3+json, as cosign sign-blob
// --bundle writes it) must sign.
//
// Two kinds of trust: a public key (KeyFile: a PEM ECDSA P-256/P-384,
// Ed25519 or RSA key, the bundle's signature is checked against it, no
// transparency log or timestamp is required), or a keyless identity
// (Identity, the certificate's SAN, and Issuer, its OIDC issuer, both
// matched exactly) whose Fulcio certificate chains to the trusted root
// file (TrustedRoot, a Sigstore trusted_root.json) and whose bundle holds
// a transparency log entry and an SCT verified against the same root.
package sigstore

import (
	"bytes"
	"crypto"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"
)

// Policy is what a plugin's verify: trusts; paths are absolute.
type Policy struct {
	KeyFile     string // a PEM public key, or ""
	Identity    string // the certificate SAN of a keyless signature
	Issuer      string // the OIDC issuer of a keyless signature
	TrustedRoot string // a Sigstore trusted_root.json, for keyless
	Bundle      string // where the bundle is (path or URL), or "" for the source's convention
}

// Verifier checks bundles against a Policy. Its files are read once, by
// New; a change to them is a reload, which makes a new Verifier.
type Verifier struct {
	policy   Policy
	id       string // what is trusted, as a digest (see ID)
	verifier *verify.Verifier
	key      crypto.PublicKey // KeyFile's key, or nil
	identity verify.CertificateIdentity
}

// New reads the files p names and returns its Verifier. Errors name the
// key (verify.key_file, verify.trusted_root) whose file is wrong.
func New(p Policy) (*Verifier, error) {
	v := &Verifier{policy: p}
	h := sha256.New()
	switch {
	case p.KeyFile != "":
		data, err := os.ReadFile(p.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("verify.key_file: %w", unwrapPath(err))
		}
		key, err := parsePublicKey(data)
		if err != nil {
			return nil, fmt.Errorf("verify.key_file: %s: %w", p.KeyFile, err)
		}
		sv, err := signature.LoadDefaultVerifier(key)
		if err != nil {
			return nil, fmt.Errorf("verify.key_file: %s: %w", p.KeyFile, err)
		}
		der, err := x509.MarshalPKIXPublicKey(key)
		if err != nil {
			return nil, fmt.Errorf("verify.key_file: %s: %w", p.KeyFile, err)
		}
		fmt.Fprintf(h, "key\x00%x", der)
		v.key = key
		// Every key hint names KeyFile's key: the bundle's hint is
		// unauthenticated, and only this key is trusted.
		tm := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
			return root.NewExpiringKey(sv, time.Time{}, time.Time{}), nil
		})
		if v.verifier, err = verify.NewVerifier(tm, verify.WithNoObserverTimestamps()); err != nil {
			return nil, fmt.Errorf("verify.key_file: %s: %w", p.KeyFile, err)
		}
	case p.Identity != "":
		data, err := os.ReadFile(p.TrustedRoot)
		if err != nil {
			return nil, fmt.Errorf("verify.trusted_root: %w", unwrapPath(err))
		}
		tr, err := root.NewTrustedRootFromJSON(data)
		if err != nil {
			return nil, fmt.Errorf("verify.trusted_root: %s: not a Sigstore trusted root: %w", p.TrustedRoot, err)
		}
		if len(tr.FulcioCertificateAuthorities()) == 0 {
			return nil, fmt.Errorf("verify.trusted_root: %s lists no certificate authority, so no keyless signature can be verified", p.TrustedRoot)
		}
		id, err := verify.NewShortCertificateIdentity(p.Issuer, "", p.Identity, "")
		if err != nil {
			return nil, fmt.Errorf("verify.identity: %w", err)
		}
		v.identity = id
		fmt.Fprintf(h, "keyless\x00%s\x00%s\x00%x", p.Identity, p.Issuer, sha256.Sum256(data))
		if v.verifier, err = keyless(tr, true); err != nil {
			return nil, fmt.Errorf("verify.trusted_root: %s: %w", p.TrustedRoot, err)
		}
	default:
		return nil, errors.New("verify: set key_file, or identity and issuer")
	}
	v.id = hex.EncodeToString(h.Sum(nil))
	return v, nil
}

// ID is a digest of what v trusts (the key, or the identity, issuer and
// trusted root), which names the cached bundles verified under it.
func (v *Verifier) ID() string { return v.id }

// Bundle is where the policy says the bundle is ("" for the source's
// convention).
func (v *Verifier) Bundle() string { return v.policy.Bundle }

// Want describes what v trusts, for messages.
func (v *Verifier) Want() string {
	if v.key != nil {
		return "a signature by verify.key_file (" + v.policy.KeyFile + ")"
	}
	return fmt.Sprintf("a keyless signature by %s from issuer %s", v.policy.Identity, v.policy.Issuer)
}

// Verify checks that bundleJSON (a Sigstore bundle) signs data as v's
// policy requires. The error says what was expected and what was found.
func (v *Verifier) Verify(data, bundleJSON []byte) error {
	var b bundle.Bundle
	if err := b.UnmarshalJSON(bundleJSON); err != nil {
		return fmt.Errorf("not a Sigstore bundle: %w", err)
	}
	return v.verify(data, nil, &b)
}

// VerifyDigest checks that bundleJSON signs the artifact whose SHA-256
// is digest (an OCI manifest, as cosign sign's bundles do: a DSSE
// statement whose subject is the manifest digest).
func (v *Verifier) VerifyDigest(digest, bundleJSON []byte) error {
	var b bundle.Bundle
	if err := b.UnmarshalJSON(bundleJSON); err != nil {
		return fmt.Errorf("not a Sigstore bundle: %w", err)
	}
	return v.verify(nil, digest, &b)
}

// verify checks b against data, or when data is nil against the artifact
// whose SHA-256 is digest.
func (v *Verifier) verify(data, digest []byte, b verify.SignedEntity) error {
	vc, err := b.VerificationContent()
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	sc, err := b.SignatureContent()
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	cert := vc.Certificate()
	switch {
	case v.key != nil && cert != nil:
		return fmt.Errorf("the bundle holds a keyless (certificate) signature by %s; want %s", certSAN(cert), v.Want())
	case v.key == nil && cert == nil:
		return fmt.Errorf("the bundle holds a public-key signature; want %s", v.Want())
	}
	// The bundle's digest is an unauthenticated hint, but it tells a
	// signature of other bytes from one by another signer.
	what, want := "module", digest
	if data != nil {
		sum := sha256.Sum256(data)
		want = sum[:]
	} else {
		what = "manifest"
	}
	if msg := sc.MessageSignatureContent(); msg != nil && msg.DigestAlgorithm() == "SHA2_256" && !bytes.Equal(want, msg.Digest()) {
		return fmt.Errorf("the bundle signs sha256:%x, but the %s is sha256:%x (another %s, or a tampered one)", msg.Digest(), what, want, what)
	}
	artifact := verify.WithArtifactDigest("sha256", digest)
	if data != nil {
		artifact = verify.WithArtifact(bytes.NewReader(data))
	}
	policy := verify.NewPolicy(artifact, verify.WithKey())
	if v.key == nil {
		policy = verify.NewPolicy(artifact, verify.WithCertificateIdentity(v.identity))
	}
	_, err = v.verifier.Verify(b, policy)
	if err == nil {
		return nil
	}
	if v.key != nil {
		if strings.Contains(err.Error(), "could not verify message") || strings.Contains(err.Error(), "could not verify envelope") || strings.Contains(err.Error(), "invalid signature") ||
			strings.Contains(err.Error(), "verification error") {
			return fmt.Errorf("signed by a key other than verify.key_file (%s)", v.policy.KeyFile)
		}
		return err
	}
	var nm *verify.ErrNoMatchingCertificateIdentity
	if errors.As(err, &nm) {
		got := summary(cert)
		switch {
		case got.san != v.policy.Identity:
			return fmt.Errorf("certificate identity %s, want %s", got.san, v.policy.Identity)
		case got.issuer != v.policy.Issuer:
			return fmt.Errorf("certificate issuer %s, want %s", got.issuer, v.policy.Issuer)
		}
	}
	return err
}

// keyless is the verifier of keyless signatures: a Fulcio certificate
// chaining to the root (with an SCT of a CT log of the root when sct),
// and a transparency log entry whose time (or a signed timestamp) is
// within the certificate's validity, all checked against tm offline.
func keyless(tm root.TrustedMaterial, sct bool) (*verify.Verifier, error) {
	opts := []verify.VerifierOption{verify.WithTransparencyLog(1), verify.WithObserverTimestamps(1)}
	if sct {
		opts = append(opts, verify.WithSignedCertificateTimestamps(1))
	}
	return verify.NewVerifier(tm, opts...)
}

type certSummary struct{ san, issuer string }

// summary reads the SAN and the Fulcio issuer extension of cert.
func summary(cert *x509.Certificate) certSummary {
	s := certSummary{san: certSAN(cert)}
	for _, ext := range cert.Extensions {
		switch ext.Id.String() {
		case "1.3.6.1.4.1.57264.1.8": // Issuer (V2), DER UTF8String
			if len(ext.Value) > 2 {
				s.issuer = string(ext.Value[2:])
			}
		case "1.3.6.1.4.1.57264.1.1": // Issuer (deprecated), raw
			if s.issuer == "" {
				s.issuer = string(ext.Value)
			}
		}
	}
	return s
}

func certSAN(cert *x509.Certificate) string {
	switch {
	case len(cert.EmailAddresses) > 0:
		return cert.EmailAddresses[0]
	case len(cert.URIs) > 0:
		return cert.URIs[0].String()
	case len(cert.DNSNames) > 0:
		return cert.DNSNames[0]
	}
	return "(no SAN)"
}

// parsePublicKey reads a PEM public key: PKIX ("PUBLIC KEY") of ECDSA
// P-256/P-384, Ed25519 or RSA, or PKCS#1 ("RSA PUBLIC KEY").
func parsePublicKey(data []byte) (crypto.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block; want a public key (-----BEGIN PUBLIC KEY-----, as cosign generate-key-pair writes cosign.pub)")
	}
	switch block.Type {
	case "PUBLIC KEY":
		k, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse public key: %w", err)
		}
		return k, nil
	case "RSA PUBLIC KEY":
		k, err := x509.ParsePKCS1PublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse RSA public key: %w", err)
		}
		return k, nil
	case "CERTIFICATE":
		return nil, errors.New("a certificate, not a public key; for keyless signatures set verify.identity, verify.issuer and verify.trusted_root")
	}
	if strings.Contains(block.Type, "PRIVATE") {
		return nil, fmt.Errorf("a %s: verify.key_file takes the public key; keep the private key away from the gateway", block.Type)
	}
	return nil, fmt.Errorf("PEM block %q; want PUBLIC KEY", block.Type)
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}
