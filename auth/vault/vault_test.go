package vault_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/auth/vault"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/state"
	"github.com/wasmgate/wasmgate/state/stateconfig"
)

func newKey(t testing.TB) []byte {
	t.Helper()
	k := make([]byte, vault.KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

// logs is a logger whose lines a test reads.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logs) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func openVault(t testing.TB, keys vault.Keys, b vault.Backend, l *logs) *vault.Vault {
	t.Helper()
	var lg *slog.Logger
	if l != nil {
		lg = l.logger()
	}
	v, err := vault.Open(context.Background(), keys, b, lg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// redisStore is a state store on r with its own connections: one
// replica.
func redisStore(t testing.TB, r *harness.Redis) *state.Store {
	t.Helper()
	cfg := stateconfig.Config{Backend: "redis", Redis: stateconfig.Redis{URL: r.URL(), KeyPrefix: "test:"}, OnUnavailable: "fail_closed"}
	st, err := state.Open(context.Background(), cfg, "", state.Options{File: "gateway.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Release)
	return st
}

// backends runs fn with a fresh backend of each kind: memory, and Redis
// (two stores on one server: two replicas) when redis-server is
// installed. replica gives another replica's view of the same data.
func backends(t *testing.T, fn func(t *testing.T, b vault.Backend, replica func() vault.Backend)) {
	t.Run("memory", func(t *testing.T) {
		m := vault.NewMemory()
		fn(t, m, func() vault.Backend { return m })
	})
	t.Run("redis", func(t *testing.T) {
		r := harness.StartRedis(t)
		fn(t, redisStore(t, r), func() vault.Backend { return redisStore(t, r) })
	})
}

func grant(upstream, principal, access, refresh string) vault.Grant {
	now := time.Now().UTC().Truncate(time.Second)
	return vault.Grant{
		Upstream: upstream, Principal: principal,
		AccessToken: secret(access), RefreshToken: secret(refresh),
		TokenType: "Bearer", Expiry: now.Add(time.Hour), Scopes: []string{"repo", "read:org"},
		Subject: "gh-" + principal, ConnectedAt: now, RefreshedAt: now,
	}
}

func secret(s string) config.Secret {
	if s == "" {
		return config.Secret{}
	}
	v, err := config.SecretRef{Env: "X"}.Read("", func(string) (string, bool) { return s, true })
	if err != nil {
		panic(err)
	}
	return v
}

// TestPutGetListDelete: a grant comes back whole; List shows no token;
// Delete on one replica is seen by the next Get on another.
func TestPutGetListDelete(t *testing.T) {
	backends(t, func(t *testing.T, b vault.Backend, replica func() vault.Backend) {
		ctx := context.Background()
		keys := vault.Keys{Current: newKey(t)}
		v := openVault(t, keys, b, nil)
		alice := grant("github", "alice", "gho_alice_access", "ghr_alice_refresh")
		bob := grant("github", "bob", "gho_bob_access", "")
		carol := grant("tickets", "carol", "tk_carol", "tkr_carol")
		for _, g := range []vault.Grant{alice, bob, carol} {
			if err := v.Put(ctx, g); err != nil {
				t.Fatal(err)
			}
		}
		got, ok, err := v.Get(ctx, "github", "alice")
		if err != nil || !ok {
			t.Fatalf("Get: %v %v", ok, err)
		}
		if got.AccessToken.Value() != "gho_alice_access" || got.RefreshToken.Value() != "ghr_alice_refresh" ||
			got.Subject != "gh-alice" || !got.Expiry.Equal(alice.Expiry) || !slices.Equal(got.Scopes, alice.Scopes) ||
			got.TokenType != "Bearer" || !got.ConnectedAt.Equal(alice.ConnectedAt) || got.Upstream != "github" || got.Principal != "alice" {
			t.Errorf("Get = %+v", got)
		}
		if _, ok, _ := v.Get(ctx, "github", "carol"); ok {
			t.Error("carol has no grant to github, Get found one")
		}
		if _, ok, _ := v.Get(ctx, "tickets", "alice"); ok {
			t.Error("alice has no grant to tickets, Get found one")
		}
		all, err := v.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, m := range all {
			names = append(names, m.Upstream+"/"+m.Principal)
		}
		if want := []string{"github/alice", "github/bob", "tickets/carol"}; !slices.Equal(names, want) {
			t.Errorf("List(\"\") = %v, want %v", names, want)
		}
		gh, err := v.List(ctx, "github")
		if err != nil || len(gh) != 2 || gh[0].Subject != "gh-alice" || !slices.Equal(gh[0].Scopes, alice.Scopes) {
			t.Errorf("List(github) = %+v, %v", gh, err)
		}
		// Another replica sees the same grants; a Delete there is seen
		// here on the next call.
		v2 := openVault(t, keys, replica(), nil)
		if g, ok, err := v2.Get(ctx, "github", "bob"); err != nil || !ok || g.AccessToken.Value() != "gho_bob_access" {
			t.Fatalf("the other replica: %v %v", ok, err)
		}
		if ok, err := v2.Delete(ctx, "github", "alice"); err != nil || !ok {
			t.Fatalf("Delete: %v %v", ok, err)
		}
		if _, ok, err := v.Get(ctx, "github", "alice"); err != nil || ok {
			t.Errorf("after a revocation on the other replica, Get = %v, %v", ok, err)
		}
		if ok, err := v.Delete(ctx, "github", "alice"); err != nil || ok {
			t.Errorf("a second Delete = %v, %v", ok, err)
		}
		if n, err := v2.DeleteAll(ctx, "github"); err != nil || n != 1 {
			t.Errorf("DeleteAll = %d, %v", n, err)
		}
		if _, ok, _ := v.Get(ctx, "github", "bob"); ok {
			t.Error("bob's grant outlived DeleteAll")
		}
		if all, _ := v.List(ctx, ""); len(all) != 1 || all[0].Principal != "carol" {
			t.Errorf("after DeleteAll: %+v", all)
		}
		// Put replaces.
		carol.AccessToken = secret("tk_carol_2")
		if err := v.Put(ctx, carol); err != nil {
			t.Fatal(err)
		}
		if g, _, _ := v2.Get(ctx, "tickets", "carol"); g.AccessToken.Value() != "tk_carol_2" {
			t.Error("Put did not replace the grant")
		}
	})
}

// TestMovedEntry: an entry copied to another user's slot (or another
// upstream's) does not decrypt there: not found, one log line naming
// where, never a token or the bytes.
func TestMovedEntry(t *testing.T) {
	backends(t, func(t *testing.T, b vault.Backend, _ func() vault.Backend) {
		ctx := context.Background()
		var l logs
		v := openVault(t, vault.Keys{Current: newKey(t)}, b, &l)
		if err := v.Put(ctx, grant("github", "alice", "gho_alice_secret", "ghr_alice_secret")); err != nil {
			t.Fatal(err)
		}
		sealed, _, err := b.VaultGet(ctx, "github", "alice")
		if err != nil {
			t.Fatal(err)
		}
		for _, slot := range [][2]string{{"github", "mallory"}, {"gitlab", "alice"}} {
			if err := b.VaultSet(ctx, slot[0], slot[1], sealed); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if _, ok, err := v.Get(ctx, slot[0], slot[1]); ok || err != nil {
					t.Fatalf("%v: the moved entry: %v %v", slot, ok, err)
				}
			}
		}
		// List leaves them out (already logged: no more lines).
		all, err := v.List(ctx, "")
		if err != nil || len(all) != 1 || all[0].Principal != "alice" || all[0].Upstream != "github" {
			t.Errorf("List = %+v, %v", all, err)
		}
		out := l.String()
		if n := strings.Count(out, "cannot be read"); n != 2 {
			t.Errorf("%d log lines, want one per entry (2):\n%s", n, out)
		}
		if !strings.Contains(out, "principal=mallory") || !strings.Contains(out, "upstream=gitlab") {
			t.Errorf("the log does not say where:\n%s", out)
		}
		if strings.Contains(out, "secret") {
			t.Errorf("the log shows a token:\n%s", out)
		}
		// The owner still reads it.
		if g, ok, _ := v.Get(ctx, "github", "alice"); !ok || g.AccessToken.Value() != "gho_alice_secret" {
			t.Error("alice lost her grant")
		}
	})
}

// TestTampered: a flipped bit anywhere, a truncated entry, garbage: not
// found, logged, no panic.
func TestTampered(t *testing.T) {
	ctx := context.Background()
	b := vault.NewMemory()
	var l logs
	v := openVault(t, vault.Keys{Current: newKey(t)}, b, &l)
	if err := v.Put(ctx, grant("github", "alice", "a", "r")); err != nil {
		t.Fatal(err)
	}
	sealed, _, _ := b.VaultGet(ctx, "github", "alice")
	for i := range sealed {
		bad := bytes.Clone(sealed)
		bad[i] ^= 0x40
		_ = b.VaultSet(ctx, "github", "alice", bad)
		if _, ok, err := v.Get(ctx, "github", "alice"); ok || err != nil {
			t.Fatalf("bit flipped at %d: %v %v", i, ok, err)
		}
	}
	for _, bad := range [][]byte{nil, {1}, sealed[:20], sealed[:len(sealed)-1], []byte("not a vault entry at all, just text")} {
		_ = b.VaultSet(ctx, "github", "alice", bad)
		if _, ok, err := v.Get(ctx, "github", "alice"); ok || err != nil {
			t.Fatalf("%q: %v %v", bad, ok, err)
		}
	}
	if n := strings.Count(l.String(), "level=WARN"); n != len(sealed)+5 {
		t.Errorf("%d warnings, want one per distinct bad entry (%d)", n, len(sealed)+5)
	}
}

// TestRotation: entries written under the old key read with the new key
// and the old as previous, and are rewritten under the new one as they
// are read: then the new key alone reads them. An entry under a third
// key is not found and logged once.
func TestRotation(t *testing.T) {
	backends(t, func(t *testing.T, b vault.Backend, replica func() vault.Backend) {
		ctx := context.Background()
		oldKey, newK := newKey(t), newKey(t)
		old := openVault(t, vault.Keys{Current: oldKey}, b, nil)
		for _, p := range []string{"alice", "bob"} {
			if err := old.Put(ctx, grant("github", p, "tok-"+p, "ref-"+p)); err != nil {
				t.Fatal(err)
			}
		}
		if err := old.PutOnce(ctx, "state-1", []byte("flow"), time.Minute); err != nil {
			t.Fatal(err)
		}
		var l logs
		rot := openVault(t, vault.Keys{Current: newK, Previous: oldKey}, replica(), &l)
		before, _, _ := b.VaultGet(ctx, "github", "alice")
		g, ok, err := rot.Get(ctx, "github", "alice")
		if err != nil || !ok || g.AccessToken.Value() != "tok-alice" {
			t.Fatalf("read under the previous key: %v %v", ok, err)
		}
		after, _, _ := b.VaultGet(ctx, "github", "alice")
		if bytes.Equal(before, after) {
			t.Error("the entry read under the previous key was not rewritten")
		}
		if v, ok, _ := rot.TakeOnce(ctx, "state-1"); !ok || string(v) != "flow" {
			t.Error("a one-time record under the previous key did not open")
		}
		// The new key alone: alice's rewritten entry reads, bob's (never
		// read during the rotation) does not, and is logged once.
		only := openVault(t, vault.Keys{Current: newK}, b, &l)
		if g, ok, _ := only.Get(ctx, "github", "alice"); !ok || g.RefreshToken.Value() != "ref-alice" {
			t.Error("the new key alone does not read the rewritten entry")
		}
		for range 2 {
			if _, ok, err := only.Get(ctx, "github", "bob"); ok || err != nil {
				t.Errorf("an entry under a key the vault no longer has: %v %v", ok, err)
			}
		}
		if n := strings.Count(l.String(), "cannot be read"); n != 1 {
			t.Errorf("%d log lines for bob's entry, want 1:\n%s", n, l.String())
		}
		// A List during the rotation rewrites every entry: then the new
		// key alone reads bob's too.
		if all, err := rot.List(ctx, ""); err != nil || len(all) != 2 {
			t.Fatalf("List during the rotation: %+v %v", all, err)
		}
		if g, ok, _ := only.Get(ctx, "github", "bob"); !ok || g.AccessToken.Value() != "tok-bob" {
			t.Error("the new key alone does not read an entry List rewrote")
		}
		// Open with only the old key now fails: the check record was
		// rewritten under the new one.
		_, err = vault.Open(ctx, vault.Keys{Current: oldKey, File: "gateway.yaml", Key: "credentials.key_env"}, b, nil)
		if !errors.Is(err, vault.ErrWrongKey) {
			t.Errorf("the old key alone after a rotation: %v", err)
		}
	})
}

// TestWrongKeyAtOpen: a vault written under one key refuses to open with
// another: a config error naming the key and what to do.
func TestWrongKeyAtOpen(t *testing.T) {
	backends(t, func(t *testing.T, b vault.Backend, _ func() vault.Backend) {
		ctx := context.Background()
		a := newKey(t)
		openVault(t, vault.Keys{Current: a}, b, nil)
		for _, k := range []vault.Keys{
			{Current: newKey(t), File: "/etc/wasmgate/gateway.yaml", Key: "credentials.key_env", PreviousKey: "credentials.previous_key_env"},
			{Current: newKey(t), Previous: newKey(t), File: "/etc/wasmgate/gateway.yaml", Key: "credentials.key_file", PreviousKey: "credentials.previous_key_file"},
		} {
			_, err := vault.Open(ctx, k, b, nil)
			var ce *config.Error
			if !errors.As(err, &ce) || !errors.Is(err, vault.ErrWrongKey) {
				t.Fatalf("got %v, want a *config.Error wrapping ErrWrongKey", err)
			}
			prev := strings.TrimPrefix(k.PreviousKey, "credentials.")
			want := fmt.Sprintf("/etc/wasmgate/gateway.yaml: %s: this key does not open the vault's entries, which were written under another key; to rotate keys set %s to the old key", k.Key, prev)
			if err.Error() != want || ce.Error() != want {
				t.Errorf("got  %s\nwant %s", err, want)
			}
		}
		// The right key still opens it, and so does the right key as
		// the previous one (a rotation starting).
		openVault(t, vault.Keys{Current: a}, b, nil)
		openVault(t, vault.Keys{Current: newKey(t), Previous: a}, b, nil)
	})
}

// TestOnce: a one-time record is taken once, on any replica, and not
// after its TTL; the value is sealed in the backend.
func TestOnce(t *testing.T) {
	backends(t, func(t *testing.T, b vault.Backend, replica func() vault.Backend) {
		ctx := context.Background()
		keys := vault.Keys{Current: newKey(t)}
		v1, v2 := openVault(t, keys, b, nil), openVault(t, keys, replica(), nil)
		if err := v1.PutOnce(ctx, "abc", []byte("code-verifier-xyz"), time.Minute); err != nil {
			t.Fatal(err)
		}
		raw, ok, _ := b.VaultTakeOnce(ctx, "abc")
		if !ok || bytes.Contains(raw, []byte("code-verifier-xyz")) {
			t.Fatalf("the record is not sealed in the backend (%v)", ok)
		}
		if err := b.VaultSetOnce(ctx, "abc", raw, time.Minute); err != nil {
			t.Fatal(err)
		}
		// Two replicas race for it: one wins.
		var wins sync.WaitGroup
		results := make(chan bool, 8)
		for i := range 8 {
			wins.Go(func() {
				v := v1
				if i%2 == 1 {
					v = v2
				}
				val, ok, err := v.TakeOnce(ctx, "abc")
				if err != nil {
					t.Error(err)
				}
				if ok && string(val) != "code-verifier-xyz" {
					t.Errorf("took %q", val)
				}
				results <- ok
			})
		}
		wins.Wait()
		close(results)
		n := 0
		for ok := range results {
			if ok {
				n++
			}
		}
		if n != 1 {
			t.Errorf("taken %d times, want once", n)
		}
		// Moved to another id: does not open.
		if err := v1.PutOnce(ctx, "one", []byte("x"), time.Minute); err != nil {
			t.Fatal(err)
		}
		raw, _, _ = b.VaultTakeOnce(ctx, "one")
		_ = b.VaultSetOnce(ctx, "two", raw, time.Minute)
		if _, ok, err := v2.TakeOnce(ctx, "two"); ok || err != nil {
			t.Errorf("a record moved to another id: %v %v", ok, err)
		}
		// Expired.
		if err := v1.PutOnce(ctx, "short", []byte("x"), 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		time.Sleep(250 * time.Millisecond)
		if _, ok, err := v2.TakeOnce(ctx, "short"); ok || err != nil {
			t.Errorf("an expired record: %v %v", ok, err)
		}
	})
}

// TestLock: the lock of a grant excludes across replicas, other grants'
// locks are independent, it is released by unlock, and a lock never
// released expires.
func TestLock(t *testing.T) {
	backends(t, func(t *testing.T, b vault.Backend, replica func() vault.Backend) {
		ctx := context.Background()
		keys := vault.Keys{Current: newKey(t)}
		v1, v2 := openVault(t, keys, b, nil), openVault(t, keys, replica(), nil)
		unlock, err := v1.Lock(ctx, "github", "alice", 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		// Another grant's lock is free.
		u2, err := v2.Lock(ctx, "github", "bob", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		u2()
		// The other replica waits while alice's is held.
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		_, err = v2.Lock(short, "github", "alice", time.Second)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a held lock taken on the other replica: %v", err)
		}
		got := make(chan error, 1)
		go func() {
			u, err := v2.Lock(ctx, "github", "alice", time.Second)
			if err == nil {
				u()
			}
			got <- err
		}()
		select {
		case err := <-got:
			t.Fatalf("taken while held: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
		unlock()
		unlock() // a second call does nothing
		select {
		case err := <-got:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("not taken after unlock")
		}
		// A lock never released expires.
		if _, err := v1.Lock(ctx, "github", "carol", 300*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		u, err := v2.Lock(ctx, "github", "carol", time.Second)
		if err != nil {
			t.Fatal(err)
		}
		u()
		if d := time.Since(start); d < 150*time.Millisecond || d > 3*time.Second {
			t.Errorf("the expired lock was taken after %s, want about 300ms", d)
		}
	})
}

// TestNoTokenPrinted: a Grant printed any way, or its Meta marshalled,
// shows no token.
func TestNoTokenPrinted(t *testing.T) {
	g := grant("github", "alice", "gho_ACCESS_VALUE", "ghr_REFRESH_VALUE")
	for _, s := range []string{fmt.Sprint(g), fmt.Sprintf("%+v", g), fmt.Sprintf("%#v", g)} {
		if strings.Contains(s, "ACCESS_VALUE") || strings.Contains(s, "REFRESH_VALUE") {
			t.Errorf("printed: %s", s)
		}
	}
}

// TestPutRefuses: what cannot be a slot is refused, not stored.
func TestPutRefuses(t *testing.T) {
	ctx := context.Background()
	v := openVault(t, vault.Keys{Current: newKey(t)}, vault.NewMemory(), nil)
	for _, g := range []vault.Grant{
		grant("", "alice", "a", ""), grant("github", "", "a", ""), grant("git\x00hub", "alice", "a", ""),
		grant("github", "ali\x00ce", "a", ""), {Upstream: "github", Principal: "alice"},
	} {
		if err := v.Put(ctx, g); err == nil {
			t.Errorf("Put(%q, %q) succeeded", g.Upstream, g.Principal)
		}
	}
	if _, err := vault.Open(ctx, vault.Keys{Current: []byte("short")}, vault.NewMemory(), nil); err == nil {
		t.Error("Open with a 5-byte key succeeded")
	}
}
