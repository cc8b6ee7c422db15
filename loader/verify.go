package loader

import (
	"errors"
	"os"
	"strings"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/fetch/https"
	"github.com/wasmgate/wasmgate/loader/fetch/sigstore"
)

// VerifySpec is a plugin's verify: section: the Sigstore signature its
// module must carry (see docs/plugins.md, "Signed plugins"). Either
// KeyFile, or Identity with Issuer and TrustedRoot. After Normalize every
// path is absolute.
type VerifySpec struct {
	// KeyFile is a PEM public key (ECDSA P-256/P-384, Ed25519, RSA).
	KeyFile string `koanf:"key_file"`
	// Identity is the certificate's subject alternative name (an e-mail
	// address or a URI such as a CI workflow's), matched exactly.
	Identity string `koanf:"identity"`
	// Issuer is the OIDC issuer of the keyless certificate, matched
	// exactly.
	Issuer string `koanf:"issuer"`
	// TrustedRoot is a Sigstore trusted_root.json on disk (keyless only).
	TrustedRoot string `koanf:"trusted_root"`
	// Bundle is where the Sigstore bundle is: a path or a URL; "" means
	// <module URL>.sigstore.json for an https:// module and the OCI
	// referrers of the manifest for an oci:// one.
	Bundle string `koanf:"bundle"`

	verifier *sigstore.Verifier // built by normalize from the files
}

// normalize resolves and checks the verify section of p, whose module is
// fetched from the network when url.
func (v *VerifySpec) normalize(p *PluginSpec, url bool, env *config.Env) {
	k := p.Key + ".verify"
	bad := env.Bad
	ok := true
	file := func(key string, path *string) {
		*path = env.Path(*path)
		env.WatchFile(*path)
		st, err := os.Stat(*path)
		switch {
		case err != nil:
			bad(k+"."+key, "%q: %v", *path, unwrapPathError(err))
			ok = false
		case st.IsDir():
			bad(k+"."+key, "%q: is a directory, not a file", *path)
			ok = false
		}
	}
	switch {
	case v.KeyFile != "" && (v.Identity != "" || v.Issuer != ""):
		bad(k, "set key_file (a public key) or identity and issuer (keyless), not both")
		return
	case v.KeyFile != "":
		if v.TrustedRoot != "" {
			bad(k+".trusted_root", "is for keyless identity and issuer; a key_file signature needs none (remove trusted_root)")
			ok = false
		}
		file("key_file", &v.KeyFile)
	case v.Identity != "" || v.Issuer != "":
		if v.Identity == "" {
			bad(k+".identity", "verify.issuer %q needs the certificate identity (its subject alternative name, such as release@example.com)", v.Issuer)
			return
		}
		if v.Issuer == "" {
			bad(k+".issuer", "verify.identity %q needs the OIDC issuer of its certificate (such as https://accounts.google.com)", v.Identity)
			return
		}
		if v.TrustedRoot == "" {
			bad(k+".trusted_root", "keyless verification needs a Sigstore trusted_root.json on disk (the check is offline)")
			return
		}
		file("trusted_root", &v.TrustedRoot)
	default:
		bad(k, "needs key_file (a PEM public key), or identity, issuer and trusted_root (keyless)")
		return
	}
	switch {
	case v.Bundle == "" && !url:
		bad(k+".bundle", "a local module's signature is read from a bundle file beside it; set verify.bundle (such as %s%s)", p.Path, fetch.BundleSuffix)
		ok = false
	case v.Bundle == "":
	case fetch.Scheme(v.Bundle) == "":
		file("bundle", &v.Bundle)
	case !url:
		bad(k+".bundle", "%q: a local module's bundle must be a local file", v.Bundle)
		ok = false
	default:
		if _, err := https.Parse(v.Bundle); err != nil {
			bad(k+".bundle", "%q: %v", v.Bundle, err)
			ok = false
		}
	}
	if !ok {
		return
	}
	ver, err := sigstore.New(v.policy())
	if err != nil {
		// "verify.key_file: ..." names its key.
		msg := err.Error()
		if sub, rest, ok := strings.Cut(strings.TrimPrefix(msg, "verify."), ": "); ok && strings.HasPrefix(msg, "verify.") && !strings.Contains(sub, " ") {
			bad(k+"."+sub, "%s", rest)
		} else {
			bad(k, "%s", msg)
		}
		return
	}
	v.verifier = ver
}

func (v *VerifySpec) policy() sigstore.Policy {
	return sigstore.Policy{KeyFile: v.KeyFile, Identity: v.Identity, Issuer: v.Issuer, TrustedRoot: v.TrustedRoot, Bundle: v.Bundle}
}

// fetchVerifier is the Verifier of spec's module, or nil when it has no
// verify section. A verify section that did not normalize refuses every
// module (fail closed).
func (p PluginSpec) fetchVerifier() fetch.Verifier {
	switch {
	case p.Verify == nil:
		return nil
	case p.Verify.verifier == nil:
		return refuseAll{}
	}
	return p.Verify.verifier
}

type refuseAll struct{}

func (refuseAll) ID() string     { return "refuse" }
func (refuseAll) Bundle() string { return "" }
func (refuseAll) Verify(_, _ []byte) error {
	return errors.New("the verify section was not checked (load the config with loader.Load)")
}
