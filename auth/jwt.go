package auth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"github.com/wasmgate/wasmgate/config"
)

// jwtVerifier checks JWT access tokens: the signature with a key of the
// JWKS under an allowed algorithm, then iss, aud, exp, nbf and iat.
type jwtVerifier struct {
	cfg  JWTConfig
	algs map[string]jwa.SignatureAlgorithm
	keys *keySource
	now  func() time.Time
	seen verifiedCache
}

func newJWTVerifier(ctx context.Context, j JWTConfig, key, file string, opts Options) (*jwtVerifier, error) {
	v := &jwtVerifier{cfg: j, algs: map[string]jwa.SignatureAlgorithm{}, now: opts.Now}
	bad := func(k, format string, args ...any) error {
		return &config.Error{File: file, Key: k, Msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case j.Issuer == "":
		return nil, bad(key+".issuer", "missing")
	case j.Audience == "":
		return nil, bad(key+".audience", "missing")
	case j.PrincipalClaim == "":
		return nil, bad(key+".principal_claim", "missing")
	}
	algs := j.Algorithms
	if len(algs) == 0 {
		algs = DefaultAlgorithms
	}
	for i, name := range algs {
		// Only the asymmetric algorithms of DefaultAlgorithms, whatever
		// the config says: never none, never HS*.
		a, ok := jwa.LookupSignatureAlgorithm(name)
		if !ok || !slices.Contains(DefaultAlgorithms, name) || a.IsSymmetric() || a == jwa.NoSignature() {
			return nil, bad(fmt.Sprintf("%s.algorithms[%d]", key, i), "%q is not an allowed algorithm", name)
		}
		v.algs[name] = a
	}
	keys, err := newKeySource(ctx, j, key, file, opts)
	if err != nil {
		return nil, err
	}
	v.keys = keys
	return v, nil
}

// verify checks a token shaped like a JWT, whose SHA-256 is sum, and maps
// it to a Principal; a token it accepted before, against the same key
// set, is not checked again while it counts (verifiedCache). Reasons name
// what failed, never a claim value or header value.
func (v *jwtVerifier) verify(ctx context.Context, token string, sum [sha256.Size]byte) (Principal, error) {
	keys, now := v.keys.set.Load(), v.now()
	if p, ok := v.seen.get(sum, keys, now); ok {
		return p, nil
	}
	p, exp, err := v.check(ctx, token)
	if err == nil {
		v.seen.put(sum, p, keys, now, exp)
	}
	return p, err
}

// check is verify without the cache; it also returns the token's exp.
func (v *jwtVerifier) check(ctx context.Context, token string) (Principal, time.Time, error) {
	msg, err := jws.Parse([]byte(token), jws.WithCompact())
	if err != nil || len(msg.Signatures()) != 1 {
		return Principal{}, time.Time{}, invalid("malformed JWT")
	}
	h := msg.Signatures()[0].ProtectedHeaders()
	alg, ok := h.Algorithm()
	switch {
	case !ok || alg.String() == "":
		return Principal{}, time.Time{}, invalid("the JWT header has no alg")
	case alg == jwa.NoSignature():
		return Principal{}, time.Time{}, invalid(`alg "none" (unsigned JWT) is refused`)
	}
	if _, allowed := v.algs[alg.String()]; !allowed {
		if _, known := jwa.LookupSignatureAlgorithm(alg.String()); known {
			return Principal{}, time.Time{}, invalid(fmt.Sprintf("algorithm %s is not allowed", alg))
		}
		return Principal{}, time.Time{}, invalid("unknown algorithm")
	}
	kid, hasKid := h.KeyID()
	keys, named := v.candidates(alg, kid, hasKid)
	if hasKid && !named {
		// Perhaps the authorization server rotated its keys.
		v.keys.refresh(ctx)
		keys, named = v.candidates(alg, kid, hasKid)
	}
	switch {
	case hasKid && !named:
		return Principal{}, time.Time{}, invalid("no key in the JWKS has the token's kid")
	case len(keys) == 0:
		return Principal{}, time.Time{}, invalid(fmt.Sprintf("no key in the JWKS fits algorithm %s", alg))
	}
	var payload []byte
	for _, key := range keys {
		payload, err = jws.Verify([]byte(token), jws.WithKey(alg, key), jws.WithCompact(), jws.WithCritValidation(true))
		if err == nil {
			break
		}
	}
	if err != nil {
		return Principal{}, time.Time{}, invalid("bad signature")
	}
	tok, err := jwt.Parse(payload, jwt.WithVerify(false), jwt.WithValidate(false))
	if err != nil {
		return Principal{}, time.Time{}, invalid("malformed claims")
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		return Principal{}, time.Time{}, invalid("malformed claims")
	}
	err = jwt.Validate(tok,
		jwt.WithClock(jwt.ClockFunc(v.now)),
		jwt.WithAcceptableSkew(time.Duration(v.cfg.Leeway)),
		jwt.WithIssuer(v.cfg.Issuer),
		jwt.WithAudience(v.cfg.Audience),
		jwt.WithRequiredClaim(jwt.ExpirationKey),
	)
	if err != nil {
		return Principal{}, time.Time{}, invalid(validationReason(err))
	}
	name, _ := claims[v.cfg.PrincipalClaim].(string)
	if name == "" {
		return Principal{}, time.Time{}, invalid(fmt.Sprintf("claim %s (the principal) is missing, empty or not a string", v.cfg.PrincipalClaim))
	}
	groups, ok := claimGroups(claims[v.cfg.GroupsClaim])
	if !ok {
		return Principal{}, time.Time{}, invalid(fmt.Sprintf("claim %s (the groups) is neither an array of strings nor a string", v.cfg.GroupsClaim))
	}
	exp, _ := tok.Expiration() // required by Validate
	return Principal{Name: name, Groups: groups, Claims: claims}, exp, nil
}

// candidates returns the keys of the current JWKS that may verify a token
// signed with alg: the ones with its kid, if it has one. named reports
// whether some key has that kid (true without a kid).
func (v *jwtVerifier) candidates(alg jwa.SignatureAlgorithm, kid string, hasKid bool) (keys []jwk.Key, named bool) {
	set := v.keys.current()
	named = !hasKid
	for i := range set.Len() {
		key, _ := set.Key(i)
		if hasKid {
			if k, ok := key.KeyID(); !ok || k != kid {
				continue
			}
			named = true
		}
		if fits(key, alg) {
			keys = append(keys, key)
		}
	}
	return keys, named
}

// fits reports whether key may verify alg: its type matches the
// algorithm's family, and its use and alg, when given, agree.
func fits(key jwk.Key, alg jwa.SignatureAlgorithm) bool {
	if !usableForSig(key) {
		return false
	}
	if ka, ok := key.Algorithm(); ok && ka.String() != alg.String() {
		return false
	}
	var want jwa.KeyType
	switch name := alg.String(); {
	case strings.HasPrefix(name, "RS"), strings.HasPrefix(name, "PS"):
		want = jwa.RSA()
	case strings.HasPrefix(name, "ES"):
		want = jwa.EC()
	case name == "EdDSA":
		want = jwa.OKP()
	default:
		return false
	}
	return key.KeyType() == want
}

// validationReason names the claim check that failed.
func validationReason(err error) string {
	switch {
	case errors.Is(err, jwt.TokenExpiredError()):
		return "token expired (exp)"
	case errors.Is(err, jwt.TokenNotYetValidError()):
		return "token not valid yet (nbf)"
	case errors.Is(err, jwt.InvalidIssuedAtError()):
		return "token issued in the future (iat)"
	case errors.Is(err, jwt.InvalidIssuerError()):
		return "wrong issuer (iss)"
	case errors.Is(err, jwt.InvalidAudienceError()):
		return "wrong audience (aud)"
	case errors.Is(err, jwt.MissingRequiredClaimError()):
		return "no expiry (exp)"
	}
	return "claims do not validate"
}

// claimGroups reads a groups claim: absent, an array of strings, or a
// space-separated string.
func claimGroups(v any) ([]string, bool) {
	switch g := v.(type) {
	case nil:
		return nil, true
	case string:
		return strings.Fields(g), true
	case []any:
		out := make([]string, 0, len(g))
		for _, e := range g {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			if s != "" {
				out = append(out, s)
			}
		}
		return out, true
	}
	return nil, false
}

// looksLikeJWT reports whether s has the JWS compact shape: three
// base64url parts, the last one (the signature) possibly empty.
func looksLikeJWT(s string) bool {
	if strings.Count(s, ".") != 2 {
		return false
	}
	h, rest, _ := strings.Cut(s, ".")
	p, sig, _ := strings.Cut(rest, ".")
	return h != "" && p != "" && isBase64URL(h) && isBase64URL(p) && isBase64URL(sig)
}

func isBase64URL(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
