// Package auth identifies who calls the gateway over HTTP: principals with
// static bearer tokens, and OAuth 2.1 access tokens (JWTs checked against
// the authorization server's JWKS), as the MCP authorization specification
// describes. It owns the auth section of gateway.yaml, builds an
// Authenticator from it, and offers the HTTP pieces of RFC 6750 and
// RFC 9728: the WWW-Authenticate challenge and the protected-resource
// metadata document.
//
// Tokens never leave this package: only their SHA-256 digests are kept,
// and no error or log line carries token material.
package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wasmgate/wasmgate/config"
)

// Errors of Authenticate, for errors.Is.
var (
	// ErrNoToken: the request carries no bearer token (no Authorization
	// header, or one with another scheme).
	ErrNoToken = errors.New("no bearer token")
	// ErrInvalidToken: a bearer token was given and refused; the wrapping
	// error says why, without token material.
	ErrInvalidToken = errors.New("invalid bearer token")
)

// maxTokenLen bounds a presented token; longer ones are refused unparsed.
const maxTokenLen = 16 << 10

// minTokenLen is the length under which a static token draws a warning.
const minTokenLen = 16

// Principal is an authenticated caller.
type Principal struct {
	Name   string
	Groups []string
	// Claims are all the claims of a JWT access token (nil for a static
	// token), as encoding/json decodes them. Read-only: the requests that
	// present the same token share them (verifiedCache).
	Claims map[string]any
}

// Options are what New needs besides the config. Every field is optional.
type Options struct {
	// LookupEnv reads token_env variables; os.LookupEnv by default.
	LookupEnv func(string) (string, bool)
	// Logger receives JWKS refresh events; slog.Default() by default.
	Logger *slog.Logger
	// HTTPClient fetches jwks_url; a client with a 10s timeout by default.
	HTTPClient *http.Client
	// Now is the clock for token lifetimes and the unknown-kid refetch
	// rate limit; time.Now by default.
	Now func() time.Time
}

// Authenticator checks the bearer tokens of HTTP requests against one
// auth config. It is safe for concurrent use. With jwks_url it owns a
// refresher (httprc's goroutines) that refreshes the key set; Close stops it.
type Authenticator struct {
	principals []staticPrincipal
	jwt        *jwtVerifier // nil without auth.jwt
	log        *slog.Logger
	closeOnce  sync.Once
}

type staticPrincipal struct {
	name   string
	groups []string
	digest [sha256.Size]byte
}

// New builds an Authenticator: it reads every principal's token (from its
// variable or file) and keeps only its SHA-256, and loads the JWKS. ctx
// bounds the first fetch of jwks_url, which must succeed; later refreshes
// run in the background until Close. c is a normalized config. Errors are
// *config.Error naming the key, the variable, the file or the URL, never
// a token.
func New(ctx context.Context, c Config, opts Options) (*Authenticator, error) {
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: fetchTimeout}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	key := c.Key
	if key == "" {
		key = "auth"
	}
	bad := func(k, format string, args ...any) error {
		return &config.Error{File: c.File, Key: k, Msg: fmt.Sprintf(format, args...)}
	}
	a := &Authenticator{log: opts.Logger}
	seen := map[[sha256.Size]byte]int{}
	for i, p := range c.Principals {
		pk := fmt.Sprintf("%s.principals[%d]", key, i)
		sp := staticPrincipal{name: p.Name, groups: slices.Clone(p.Groups)}
		var token string
		switch {
		case p.TokenSHA256 != "":
			d, err := hex.DecodeString(p.TokenSHA256)
			if err != nil || len(d) != sha256.Size {
				return nil, bad(pk+".token_sha256", "is not 64 hex digits")
			}
			copy(sp.digest[:], d)
		case p.TokenEnv != "" || p.TokenFile != "":
			ref := p.TokenRef(pk)
			v, err := ref.Read(c.File, opts.LookupEnv)
			if err != nil {
				return nil, err
			}
			token = v.Value()
			if ref.Env != "" {
				pk += "." + ref.EnvKey
			} else {
				pk += "." + ref.FileKey
			}
		default:
			return nil, bad(pk, "no token: set one of token_sha256, token_env or token_file")
		}
		if token != "" {
			if len(token) > maxTokenLen {
				return nil, bad(pk, "the token is longer than %d bytes", maxTokenLen)
			}
			if len(token) < minTokenLen {
				a.log.Warn("auth: a short static token is easy to guess; use a long random one (e.g. openssl rand -hex 32)",
					"key", pk, "principal", p.Name)
			}
			sp.digest = sha256.Sum256([]byte(token))
		}
		if j, dup := seen[sp.digest]; dup {
			return nil, bad(pk, "the same token as %s.principals[%d]; give each principal its own token", key, j)
		}
		seen[sp.digest] = i
		a.principals = append(a.principals, sp)
	}
	if c.JWT != nil {
		v, err := newJWTVerifier(ctx, *c.JWT, key+".jwt", c.File, opts)
		if err != nil {
			return nil, err
		}
		a.jwt = v
	}
	return a, nil
}

// Close stops the JWKS refresher, if any, and waits for it. It may be
// called more than once.
func (a *Authenticator) Close() {
	a.closeOnce.Do(func() {
		if a.jwt != nil {
			a.jwt.keys.close()
		}
	})
}

// Authenticate identifies the caller of r by its Authorization header
// ("Bearer <token>", the scheme in any case). A token equal to a
// principal's is that principal; otherwise, with jwt configured, a token
// shaped like a JWT is checked as an access token. Errors wrap ErrNoToken
// or ErrInvalidToken and carry a reason fit for logs, without the token.
func (a *Authenticator) Authenticate(r *http.Request) (Principal, error) {
	vals := r.Header.Values("Authorization")
	switch {
	case len(vals) == 0:
		return Principal{}, ErrNoToken
	case len(vals) > 1:
		return Principal{}, invalid("more than one Authorization header")
	}
	token, bearer := BearerToken(vals[0])
	if !bearer {
		// RFC 6750 3.1: another scheme is "no authentication information".
		return Principal{}, fmt.Errorf("%w: the Authorization header does not use the Bearer scheme", ErrNoToken)
	}
	switch {
	case token == "":
		return Principal{}, invalid("empty bearer token")
	case len(token) > maxTokenLen:
		return Principal{}, invalid(fmt.Sprintf("bearer token longer than %d bytes", maxTokenLen))
	}
	return a.authenticate(r.Context(), token)
}

func (a *Authenticator) authenticate(ctx context.Context, token string) (Principal, error) {
	// Hashed from a copy on the stack: every request has a token, and
	// []byte(token) would allocate one on the heap.
	var buf [1024]byte
	b := buf[:0]
	if len(token) <= len(buf) {
		b = append(b, token...)
	} else {
		b = []byte(token)
	}
	sum := sha256.Sum256(b)
	match := -1
	for i := range a.principals {
		// Every digest is compared, whatever matched before.
		eq := subtle.ConstantTimeCompare(sum[:], a.principals[i].digest[:])
		match = subtle.ConstantTimeSelect(eq, i, match)
	}
	if match >= 0 {
		p := a.principals[match]
		return Principal{Name: p.name, Groups: slices.Clone(p.groups)}, nil
	}
	if a.jwt == nil {
		return Principal{}, invalid("not the token of any principal")
	}
	if !looksLikeJWT(token) {
		return Principal{}, invalid("neither the token of a principal nor a JWT")
	}
	return a.jwt.verify(ctx, token, sum)
}

func invalid(reason string) error { return fmt.Errorf("%w: %s", ErrInvalidToken, reason) }

// BearerToken parses an Authorization header value: bearer reports
// whether it uses the Bearer scheme, whose name is case-insensitive (RFC
// 9110, 11.1), and token is its credentials, trimmed (empty when none
// follow). Every bearer token the gateway reads goes through here.
func BearerToken(header string) (token string, bearer bool) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(header), " ")
	return strings.TrimSpace(token), strings.EqualFold(scheme, "Bearer")
}
