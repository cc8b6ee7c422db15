// Package vault keeps each user's grants to upstream servers (the access
// and refresh tokens of per-user OAuth) encrypted in the state backend:
// AES-256-GCM under the credentials key, each entry bound to its
// (upstream, principal) so that an entry copied to another user's slot
// does not decrypt. The backend is the process's memory (NewMemory) or
// Redis (*state.Store), so every replica reads the same grants: Get
// reads the backend on every call, and a revocation takes effect on the
// next call everywhere.
//
// The vault also keeps one-time records (the OAuth connect flow's
// state), encrypted and taken at most once on any replica, and a lock
// that serialises the refresh of one grant across replicas.
//
// Nothing here logs, returns in an error or marshals a token: tokens
// are config.Secret, and what lists show (Meta) holds none.
package vault

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wasmgate/wasmgate/config"
)

// Grant is one user's grant to one upstream.
type Grant struct {
	Upstream, Principal       string
	AccessToken, RefreshToken config.Secret // never printed
	TokenType                 string
	Expiry                    time.Time // zero: unknown
	Scopes                    []string
	// Subject is who the upstream's authorization server says the user
	// is, when known (never a token).
	Subject                  string
	ConnectedAt, RefreshedAt time.Time
}

// Meta is what lists and the status page show of a grant: never a token.
type Meta struct {
	Upstream    string    `json:"upstream"`
	Principal   string    `json:"principal"`
	Subject     string    `json:"subject,omitempty"`
	Scopes      []string  `json:"scopes,omitempty"`
	ConnectedAt time.Time `json:"connected_at,omitzero"`
	RefreshedAt time.Time `json:"refreshed_at,omitzero"`
	Expiry      time.Time `json:"expiry,omitzero"`
}

// Meta is g without its tokens.
func (g Grant) Meta() Meta {
	return Meta{Upstream: g.Upstream, Principal: g.Principal, Subject: g.Subject, Scopes: slices.Clone(g.Scopes),
		ConnectedAt: g.ConnectedAt, RefreshedAt: g.RefreshedAt, Expiry: g.Expiry}
}

// Backend stores the vault's sealed bytes: the memory backend
// (NewMemory) or Redis (*state.Store). Every method is one round trip
// at most; errors say what was being done.
type Backend interface {
	// VaultGet is the entry of principal at upstream.
	VaultGet(ctx context.Context, upstream, principal string) ([]byte, bool, error)
	// VaultSet stores (or replaces) the entry.
	VaultSet(ctx context.Context, upstream, principal string, value []byte) error
	// VaultReplace stores value only if the entry is still old.
	VaultReplace(ctx context.Context, upstream, principal string, old, value []byte) (bool, error)
	// VaultDelete removes the entry, reporting whether there was one.
	VaultDelete(ctx context.Context, upstream, principal string) (bool, error)
	// VaultDeleteAll removes every entry of upstream, returning how many.
	VaultDeleteAll(ctx context.Context, upstream string) (int, error)
	// VaultList is upstream's entries by principal, by upstream ("":
	// every upstream's).
	VaultList(ctx context.Context, upstream string) (map[string]map[string][]byte, error)
	// VaultSetOnce stores a one-time record for ttl.
	VaultSetOnce(ctx context.Context, id string, value []byte, ttl time.Duration) error
	// VaultTakeOnce returns and removes a one-time record: of two
	// takers, one gets it.
	VaultTakeOnce(ctx context.Context, id string) ([]byte, bool, error)
	// VaultLock takes the lock of (upstream, principal) for ttl with
	// token, unless another holds it.
	VaultLock(ctx context.Context, upstream, principal, token string, ttl time.Duration) (bool, error)
	// VaultUnlock releases the lock if token still holds it.
	VaultUnlock(ctx context.Context, upstream, principal, token string) error
}

// Vault is the encrypted store of grants over a Backend. Safe for
// concurrent use.
type Vault struct {
	s       *sealer
	b       Backend
	log     *slog.Logger
	lockTry time.Duration // between two attempts to take a held lock

	warnMu sync.Mutex
	warned map[[32]byte]struct{} // entries already logged as not decrypting
}

// maxWarned bounds the memory of entries already logged.
const maxWarned = 10000

// ErrWrongKey is what the error of Open wraps when the current key does
// not open the vault.
var ErrWrongKey = errors.New("the vault's key does not open its entries")

// Open opens the vault in b with keys. A backend that holds a key-check
// record that neither key opens is a *config.Error at keys.Key (wrapping
// ErrWrongKey): the key is not the one the entries were written under.
// Otherwise the check record is (re)written under the current key.
func Open(ctx context.Context, keys Keys, b Backend, logger *slog.Logger) (*Vault, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s, err := newSealer(keys)
	if err != nil {
		return nil, &config.Error{File: keys.File, Key: keys.Key, Msg: err.Error()}
	}
	v := &Vault{s: s, b: b, log: logger, lockTry: 50 * time.Millisecond, warned: map[[32]byte]struct{}{}}
	old, ok, err := b.VaultGet(ctx, "", checkPrincipal)
	if err != nil {
		return nil, fmt.Errorf("open the credentials vault: read its key-check record: %w", err)
	}
	if ok {
		_, previous, err := s.open(old, checkAAD)
		if err != nil {
			return nil, &wrongKeyError{keys: keys}
		}
		if !previous {
			return v, nil
		}
	}
	sealed, err := s.seal([]byte(checkPlain), checkAAD)
	if err != nil {
		return nil, err
	}
	if err := b.VaultSet(ctx, "", checkPrincipal, sealed); err != nil {
		return nil, fmt.Errorf("open the credentials vault: write its key-check record: %w", err)
	}
	return v, nil
}

// The key-check record: at upstream "" (no upstream has that name).
const (
	checkPrincipal = "key-check"
	checkPlain     = "wasmgate vault key check"
)

// wrongKeyError is a *config.Error once unwrapped, and ErrWrongKey.
type wrongKeyError struct{ keys Keys }

func (e *wrongKeyError) Error() string { return e.config().Error() }

func (e *wrongKeyError) config() *config.Error {
	key, prev := e.keys.Key, e.keys.PreviousKey
	if key == "" {
		key = "credentials.key_env"
	}
	if prev == "" {
		prev = "previous_key_env"
	}
	prev = prev[strings.LastIndex(prev, ".")+1:]
	return &config.Error{File: e.keys.File, Key: key,
		Msg: "this key does not open the vault's entries, which were written under another key; to rotate keys set " + prev + " to the old key"}
}

// As lets errors.As find the *config.Error.
func (e *wrongKeyError) As(target any) bool {
	if t, ok := target.(**config.Error); ok {
		*t = e.config()
		return true
	}
	return false
}

func (e *wrongKeyError) Unwrap() error { return ErrWrongKey }

// record is a grant as sealed: where it belongs is in the associated
// data, not here.
type record struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Scopes       []string  `json:"scopes,omitempty"`
	Subject      string    `json:"subject,omitempty"`
	ConnectedAt  time.Time `json:"connected_at,omitzero"`
	RefreshedAt  time.Time `json:"refreshed_at,omitzero"`
}

// checkName refuses what cannot be a slot: an empty upstream, a NUL in
// either name (the associated data's separator).
func checkName(upstream, principal string) error {
	if upstream == "" {
		return errors.New("a grant needs an upstream")
	}
	if principal == "" {
		return errors.New("a grant needs a principal")
	}
	if strings.ContainsRune(upstream, 0) || strings.ContainsRune(principal, 0) {
		return errors.New("an upstream or principal name holds a NUL byte")
	}
	return nil
}

// Get is principal's grant to upstream, read from the backend. An entry
// that does not decrypt (another key, tampered, moved from another
// user's slot) is not found, and logged once at warn. An entry written
// under the previous key is rewritten under the current one.
func (v *Vault) Get(ctx context.Context, upstream, principal string) (Grant, bool, error) {
	if checkName(upstream, principal) != nil {
		return Grant{}, false, nil
	}
	data, ok, err := v.b.VaultGet(ctx, upstream, principal)
	if err != nil {
		return Grant{}, false, fmt.Errorf("read the grant of %q to upstream %q: %w", principal, upstream, err)
	}
	if !ok {
		return Grant{}, false, nil
	}
	g, previous, ok := v.decode(upstream, principal, data)
	if !ok {
		return Grant{}, false, nil
	}
	if previous {
		v.rewrite(ctx, upstream, principal, data, g)
	}
	return g, true, nil
}

// decode opens one entry; one that does not is logged once.
func (v *Vault) decode(upstream, principal string, data []byte) (Grant, bool, bool) {
	plain, previous, err := v.s.open(data, grantAAD(upstream, principal))
	var r record
	if err == nil {
		if err = json.Unmarshal(plain, &r); err != nil {
			err = errors.New("decrypts to something that is not a grant")
		}
	}
	if err != nil {
		v.warnOnce(grantAAD(upstream, principal), data, "a credentials vault entry cannot be read; treated as not connected",
			"upstream", upstream, "principal", principal, "reason", err.Error())
		return Grant{}, false, false
	}
	return Grant{
		Upstream: upstream, Principal: principal,
		AccessToken: config.NewSecret(r.AccessToken), RefreshToken: config.NewSecret(r.RefreshToken),
		TokenType: r.TokenType, Expiry: r.Expiry, Scopes: r.Scopes, Subject: r.Subject,
		ConnectedAt: r.ConnectedAt, RefreshedAt: r.RefreshedAt,
	}, previous, true
}

// rewrite seals g under the current key in place of old, unless the
// entry changed meanwhile (a refresh on another replica wins).
func (v *Vault) rewrite(ctx context.Context, upstream, principal string, old []byte, g Grant) {
	sealed, err := v.sealGrant(g)
	if err == nil {
		_, err = v.b.VaultReplace(ctx, upstream, principal, old, sealed)
	}
	if err != nil {
		v.log.WarnContext(ctx, "could not rewrite a credentials vault entry under the current key; it stays readable with the previous key",
			"upstream", upstream, "principal", principal, "err", err)
		return
	}
	v.log.DebugContext(ctx, "rewrote a credentials vault entry under the current key", "upstream", upstream, "principal", principal)
}

// warnOnce logs msg once per entry: where it is and what it holds.
func (v *Vault) warnOnce(where string, data []byte, msg string, args ...any) {
	h := sha256.New()
	h.Write([]byte(where))
	h.Write([]byte{0})
	h.Write(data)
	var sum [32]byte
	h.Sum(sum[:0])
	v.warnMu.Lock()
	_, seen := v.warned[sum]
	if !seen {
		if len(v.warned) >= maxWarned {
			clear(v.warned)
		}
		v.warned[sum] = struct{}{}
	}
	v.warnMu.Unlock()
	if !seen {
		v.log.Warn(msg, args...)
	}
}

func (v *Vault) sealGrant(g Grant) ([]byte, error) {
	plain, err := json.Marshal(record{
		AccessToken: g.AccessToken.Value(), RefreshToken: g.RefreshToken.Value(),
		TokenType: g.TokenType, Expiry: g.Expiry, Scopes: g.Scopes, Subject: g.Subject,
		ConnectedAt: g.ConnectedAt, RefreshedAt: g.RefreshedAt,
	})
	if err != nil {
		return nil, fmt.Errorf("encode a grant: %w", err)
	}
	return v.s.seal(plain, grantAAD(g.Upstream, g.Principal))
}

// Put stores g (encrypted under the current key) in place of the grant
// of g.Principal to g.Upstream.
func (v *Vault) Put(ctx context.Context, g Grant) error {
	if err := checkName(g.Upstream, g.Principal); err != nil {
		return fmt.Errorf("store a grant: %w", err)
	}
	if !g.AccessToken.IsSet() {
		return fmt.Errorf("store the grant of %q to upstream %q: it has no access token", g.Principal, g.Upstream)
	}
	sealed, err := v.sealGrant(g)
	if err != nil {
		return fmt.Errorf("store the grant of %q to upstream %q: %w", g.Principal, g.Upstream, err)
	}
	if err := v.b.VaultSet(ctx, g.Upstream, g.Principal, sealed); err != nil {
		return fmt.Errorf("store the grant of %q to upstream %q: %w", g.Principal, g.Upstream, err)
	}
	return nil
}

// Delete removes principal's grant to upstream (a revocation), reporting
// whether there was one.
func (v *Vault) Delete(ctx context.Context, upstream, principal string) (bool, error) {
	if checkName(upstream, principal) != nil {
		return false, nil
	}
	ok, err := v.b.VaultDelete(ctx, upstream, principal)
	if err != nil {
		return false, fmt.Errorf("revoke the grant of %q to upstream %q: %w", principal, upstream, err)
	}
	return ok, nil
}

// DeleteAll removes every user's grant to upstream, returning how many.
func (v *Vault) DeleteAll(ctx context.Context, upstream string) (int, error) {
	if checkName(upstream, "-") != nil {
		return 0, nil
	}
	n, err := v.b.VaultDeleteAll(ctx, upstream)
	if err != nil {
		return 0, fmt.Errorf("revoke every grant to upstream %q: %w", upstream, err)
	}
	return n, nil
}

// List is what the grants to upstream ("": every upstream) show, sorted
// by upstream and principal. Entries that do not decrypt are left out
// (and logged once); entries under the previous key are rewritten under
// the current one, so that one List ("wasmgate credentials list") during
// a key rotation moves every readable entry to the new key.
func (v *Vault) List(ctx context.Context, upstream string) ([]Meta, error) {
	all, err := v.b.VaultList(ctx, upstream)
	if err != nil {
		if upstream == "" {
			return nil, fmt.Errorf("list the grants: %w", err)
		}
		return nil, fmt.Errorf("list the grants to upstream %q: %w", upstream, err)
	}
	var out []Meta
	for u, entries := range all {
		if u == "" || (upstream != "" && u != upstream) {
			continue // the key-check record
		}
		for p, data := range entries {
			if checkName(u, p) != nil {
				continue
			}
			g, previous, ok := v.decode(u, p, data)
			if !ok {
				continue
			}
			if previous {
				v.rewrite(ctx, u, p, data, g)
			}
			out = append(out, g.Meta())
		}
	}
	slices.SortFunc(out, func(a, b Meta) int {
		if c := strings.Compare(a.Upstream, b.Upstream); c != 0 {
			return c
		}
		return strings.Compare(a.Principal, b.Principal)
	})
	return out, nil
}

// PutOnce stores value under id, encrypted, for ttl: TakeOnce returns it
// once, on any replica.
func (v *Vault) PutOnce(ctx context.Context, id string, value []byte, ttl time.Duration) error {
	if id == "" || ttl <= 0 {
		return errors.New("store a one-time record: it needs an id and a positive TTL")
	}
	sealed, err := v.s.seal(value, onceAAD(id))
	if err != nil {
		return fmt.Errorf("store a one-time record: %w", err)
	}
	if err := v.b.VaultSetOnce(ctx, id, sealed, ttl); err != nil {
		return fmt.Errorf("store a one-time record: %w", err)
	}
	return nil
}

// TakeOnce returns the record stored under id and removes it: a second
// take, on any replica, finds nothing; so does one after its TTL. A
// record that does not decrypt is not found (and logged once).
func (v *Vault) TakeOnce(ctx context.Context, id string) ([]byte, bool, error) {
	if id == "" {
		return nil, false, nil
	}
	data, ok, err := v.b.VaultTakeOnce(ctx, id)
	if err != nil {
		return nil, false, fmt.Errorf("take a one-time record: %w", err)
	}
	if !ok {
		return nil, false, nil
	}
	plain, _, err := v.s.open(data, onceAAD(id))
	if err != nil {
		v.warnOnce(onceAAD(id), data, "a one-time record of the credentials vault cannot be read; treated as absent", "reason", err.Error())
		return nil, false, nil
	}
	return plain, true, nil
}

// Lock takes the lock of principal's grant to upstream for at most ttl,
// waiting while another (on any replica) holds it, until ctx ends.
// unlock releases it (once; later calls do nothing); a lock not released
// expires after ttl.
func (v *Vault) Lock(ctx context.Context, upstream, principal string, ttl time.Duration) (unlock func(), err error) {
	if err := checkName(upstream, principal); err != nil {
		return nil, fmt.Errorf("lock a grant: %w", err)
	}
	if ttl <= 0 {
		return nil, errors.New("lock a grant: the TTL must be positive")
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("lock a grant: %w", err)
	}
	token := hex.EncodeToString(b[:])
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lock the grant of %q to upstream %q: %w", principal, upstream, context.Cause(ctx))
		case <-t.C:
		}
		ok, err := v.b.VaultLock(ctx, upstream, principal, token, ttl)
		if err != nil {
			return nil, fmt.Errorf("lock the grant of %q to upstream %q: %w", principal, upstream, err)
		}
		if ok {
			var once sync.Once
			return func() {
				once.Do(func() {
					uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
					defer cancel()
					if err := v.b.VaultUnlock(uctx, upstream, principal, token); err != nil {
						v.log.Warn("could not release the lock of a grant; it expires by itself",
							"upstream", upstream, "principal", principal, "ttl", ttl, "err", err)
					}
				})
			}, nil
		}
		t.Reset(v.lockTry)
	}
}
