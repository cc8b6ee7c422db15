package vault

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
)

// The sealed form of every value the vault stores:
//
//	version (1 byte, 1) | key id (8 bytes) | nonce (12 bytes) | AES-256-GCM sealed bytes
//
// The key id is the first 8 bytes of SHA-256 of the key, so an entry
// names the key it was written under without revealing it. The
// associated data binds an entry to where it belongs: a grant to
// (upstream, principal), a one-time record to its id, the key-check
// record to itself. A grant's upstream is never empty, so the three
// kinds never share associated data.
const (
	version   = 1
	idSize    = 8
	nonceSize = 12
	headSize  = 1 + idSize + nonceSize
	// KeySize is the size of a vault key: AES-256.
	KeySize = 32
	aadBase = "wasmgate-vault-v1\x00"
)

// Keys are the vault's keys: Current encrypts everything written and
// opens what it wrote; Previous, when set, only opens (key rotation:
// an entry read with it is rewritten under Current).
type Keys struct {
	Current  []byte
	Previous []byte

	// Where the keys came from, for the error Open returns when Current
	// does not open the vault: File is the config file, Key the full key
	// that set Current ("credentials.key_env") and PreviousKey the key
	// that would set the previous one ("credentials.previous_key_env").
	File, Key, PreviousKey string
}

// sealer seals with the current key and opens with either.
type sealer struct {
	cur, prev   cipher.AEAD
	curID, prID [idSize]byte
}

func keyID(k []byte) (id [idSize]byte) {
	sum := sha256.Sum256(k)
	copy(id[:], sum[:idSize])
	return id
}

func newAEAD(k []byte) (cipher.AEAD, error) {
	if len(k) != KeySize {
		return nil, fmt.Errorf("a vault key is %d bytes, not %d", KeySize, len(k))
	}
	b, err := aes.NewCipher(k)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

func newSealer(k Keys) (*sealer, error) {
	s := &sealer{}
	var err error
	if s.cur, err = newAEAD(k.Current); err != nil {
		return nil, fmt.Errorf("the current key: %w", err)
	}
	s.curID = keyID(k.Current)
	if len(k.Previous) > 0 {
		if s.prev, err = newAEAD(k.Previous); err != nil {
			return nil, fmt.Errorf("the previous key: %w", err)
		}
		s.prID = keyID(k.Previous)
		if s.prID == s.curID {
			s.prev = nil // the same key twice: nothing to rotate from
		}
	}
	return s, nil
}

// seal encrypts plain bound to aad under the current key.
func (s *sealer) seal(plain []byte, aad string) ([]byte, error) {
	out := make([]byte, headSize, headSize+len(plain)+s.cur.Overhead())
	out[0] = version
	copy(out[1:], s.curID[:])
	if _, err := rand.Read(out[1+idSize : headSize]); err != nil {
		return nil, fmt.Errorf("draw a nonce: %w", err)
	}
	return s.cur.Seal(out, out[1+idSize:headSize], plain, []byte(aad)), nil
}

var (
	errMalformed = errors.New("not a vault entry (too short or an unknown version)")
	errOtherKey  = errors.New("written under a key that is neither the current nor the previous one")
	errNotOpened = errors.New("does not decrypt (tampered, or moved from where it was written)")
)

// open decrypts data bound to aad; previous reports that it was written
// under the previous key (the caller rewrites it).
func (s *sealer) open(data []byte, aad string) (plain []byte, previous bool, err error) {
	if len(data) < headSize+16 || data[0] != version {
		return nil, false, errMalformed
	}
	var id [idSize]byte
	copy(id[:], data[1:1+idSize])
	a := s.cur
	switch {
	case id == s.curID:
	case s.prev != nil && id == s.prID:
		a, previous = s.prev, true
	default:
		return nil, false, errOtherKey
	}
	plain, err = a.Open(nil, data[1+idSize:headSize], data[headSize:], []byte(aad))
	if err != nil {
		return nil, false, errNotOpened
	}
	return plain, previous, nil
}

func grantAAD(upstream, principal string) string {
	return aadBase + upstream + "\x00" + principal
}

func onceAAD(id string) string { return aadBase + "\x00once\x00" + id }

const checkAAD = aadBase + "\x00check"
