package sigstore

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// NewKeyless is New for a keyless policy with trusted material in memory
// (sigstore-go's VirtualSigstore) instead of a trusted_root.json. Its
// certificates carry no SCT, so none is required; everything else is
// checked as in New.
func NewKeyless(p Policy, tm root.TrustedMaterial) (*Verifier, error) {
	id, err := verify.NewShortCertificateIdentity(p.Issuer, "", p.Identity, "")
	if err != nil {
		return nil, err
	}
	vv, err := keyless(tm, false)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(p.Identity + "\x00" + p.Issuer))
	return &Verifier{policy: p, id: hex.EncodeToString(sum[:]), verifier: vv, identity: id}, nil
}

// VerifyEntity is Verify of a bundle already parsed.
func (v *Verifier) VerifyEntity(data []byte, e verify.SignedEntity) error {
	return v.verify(data, nil, e)
}
