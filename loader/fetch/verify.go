package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmgate/wasmgate/config"
)

// MaxBundleSize bounds a Sigstore bundle read or downloaded.
const MaxBundleSize = 1 << 20

// Verifier checks a module's signature (loader/fetch/sigstore implements
// it for plugins[].verify).
type Verifier interface {
	// ID is a digest of what is trusted (a key, or an identity, issuer
	// and trusted root); bundles verified under it are cached under it.
	ID() string
	// Bundle is where the bundle is, a path or a URL, or "" for the
	// source's convention (an https:// module's URL + ".sigstore.json").
	Bundle() string
	// Verify checks that bundle signs data.
	Verify(data, bundle []byte) error
}

// BundleSuffix names the bundle beside an https:// module, as cosign
// sign-blob --bundle users publish it: <module URL>.sigstore.json.
const BundleSuffix = ".sigstore.json"

// Download gets a URL with a fetcher's rules, at most max bytes.
type Download func(ctx context.Context, url string, max int64) ([]byte, error)

// CheckSignature verifies data, the module of spec, against spec.Verify
// with the bundle from verify.bundle or else from conventional (a URL, or
// "" when the source has none); a bundle URL is fetched with get. It
// returns the bundle verified, for the cache.
func CheckSignature(ctx context.Context, spec Spec, data []byte, conventional string, get Download) ([]byte, error) {
	v := spec.Verify
	if v == nil {
		return nil, nil
	}
	fail := func(format string, args ...any) ([]byte, error) {
		return nil, fmt.Errorf("%s (%s.verify): signature check failed: %s: %s", spec.Owner(), spec.Key, spec.Source, fmt.Sprintf(format, args...))
	}
	where := v.Bundle()
	if where == "" {
		where = conventional
	}
	var bundle []byte
	switch {
	case where == "":
		return fail("no verify.bundle given, and this kind of source has no bundle beside it")
	case Scheme(where) == "":
		b, err := readBundle(where)
		if err != nil {
			return fail("no Sigstore bundle at %s (%v)", where, err)
		}
		bundle = b
	case get == nil:
		return fail("verify.bundle %s: a URL bundle needs a module fetched from the network", where)
	default:
		b, err := get(ctx, where, MaxBundleSize)
		if err != nil {
			return fail("no Sigstore bundle at %s (%v)", where, err)
		}
		bundle = b
	}
	if err := v.Verify(data, bundle); err != nil {
		return fail("bundle %s: %v", where, err)
	}
	return bundle, nil
}

func readBundle(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxBundleSize+1))
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if len(b) > MaxBundleSize {
		return nil, fmt.Errorf("larger than the %s limit of a Sigstore bundle", config.ByteSize(MaxBundleSize))
	}
	return b, nil
}

// Verified reports whether the cache holds a bundle for the module whose
// hex SHA-256 is sum, stored under spec.Verify's ID, that verifies data
// again now (offline: so a restart without network trusts a module only
// under the key or identity that verified it).
func (c Cache) Verified(spec Spec, sum string, data []byte) bool {
	p, ok := c.bundlePath(spec, sum)
	if !ok {
		return false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	return spec.Verify.Verify(data, b) == nil
}

// PutBundle stores bundle, which verified the module whose hex SHA-256 is
// sum under spec.Verify.
func (c Cache) PutBundle(spec Spec, sum string, bundle []byte) error {
	p, ok := c.bundlePath(spec, sum)
	if !ok || bundle == nil {
		return nil
	}
	return c.write(filepath.Dir(p), filepath.Base(p), bundle)
}

// bundlePath is dir/sigstore/<policy digest>/<module hex>.sigstore.json.
func (c Cache) bundlePath(spec Spec, sum string) (string, bool) {
	if c.dir == "" || spec.Verify == nil || !isHexSHA256(sum) {
		return "", false
	}
	id := sha256.Sum256([]byte(spec.Verify.ID()))
	return filepath.Join(c.dir, "sigstore", hex.EncodeToString(id[:16]), sum+BundleSuffix), true
}

// PutManifestBundle stores bundle, which verified the OCI manifest
// manifest ("sha256:<hex>") holding the module whose hex SHA-256 is sum.
func (c Cache) PutManifestBundle(spec Spec, sum, manifest string, bundle []byte) error {
	p, ok := c.bundlePath(spec, sum)
	if !ok || bundle == nil {
		return nil
	}
	p = strings.TrimSuffix(p, BundleSuffix) + ".manifest"
	return c.write(filepath.Dir(p), filepath.Base(p), append([]byte(manifest+"\n"), bundle...))
}

// ManifestBundle returns the manifest digest and the bundle that
// PutManifestBundle stored for the module sum under spec.Verify.
func (c Cache) ManifestBundle(spec Spec, sum string) (manifest string, bundle []byte, ok bool) {
	p, ok := c.bundlePath(spec, sum)
	if !ok {
		return "", nil, false
	}
	b, err := os.ReadFile(strings.TrimSuffix(p, BundleSuffix) + ".manifest")
	if err != nil {
		return "", nil, false
	}
	first, rest, ok := strings.Cut(string(b), "\n")
	if !ok {
		return "", nil, false
	}
	return first, []byte(rest), true
}
