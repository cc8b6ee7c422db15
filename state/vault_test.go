package state_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// The vault's Redis methods: keys under the store's prefix, a replace
// only while the entry is unchanged, a lock released only by its holder,
// and an error that says what was unavailable when Redis is down.
func TestVaultRedis(t *testing.T) {
	r := harness.StartRedis(t)
	st := open(t, r.URL())
	ctx := context.Background()
	raw := redis.NewClient(&redis.Options{Addr: r.Addr})
	t.Cleanup(func() { _ = raw.Close() })

	if err := st.VaultSet(ctx, "github", "alice", []byte("sealed-a")); err != nil {
		t.Fatal(err)
	}
	if err := st.VaultSet(ctx, "tickets", "bob", []byte("sealed-b")); err != nil {
		t.Fatal(err)
	}
	if v, err := raw.HGet(ctx, "test:vault:{github}", "alice").Result(); err != nil || v != "sealed-a" {
		t.Fatalf("the hash: %q %v", v, err)
	}
	if ok, err := st.VaultReplace(ctx, "github", "alice", []byte("stale"), []byte("new")); err != nil || ok {
		t.Errorf("a replace of a changed entry: %v %v", ok, err)
	}
	if ok, err := st.VaultReplace(ctx, "github", "alice", []byte("sealed-a"), []byte("new")); err != nil || !ok {
		t.Errorf("a replace: %v %v", ok, err)
	}
	all, err := st.VaultList(ctx, "")
	if err != nil || len(all) != 2 || string(all["github"]["alice"]) != "new" || string(all["tickets"]["bob"]) != "sealed-b" {
		t.Errorf("VaultList: %q %v", all, err)
	}
	if n, err := st.VaultDeleteAll(ctx, "github"); err != nil || n != 1 {
		t.Errorf("VaultDeleteAll: %d %v", n, err)
	}
	if all, _ := st.VaultList(ctx, ""); len(all) != 1 {
		t.Errorf("after VaultDeleteAll: %q", all)
	}

	if err := st.VaultSetOnce(ctx, "id1", []byte("x"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if ttl := raw.PTTL(ctx, "test:vault:once:id1").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("the one-time record's TTL: %s", ttl)
	}
	if _, ok, _ := st.VaultTakeOnce(ctx, "id1"); !ok {
		t.Error("not taken")
	}
	if _, ok, _ := st.VaultTakeOnce(ctx, "id1"); ok {
		t.Error("taken twice")
	}

	if ok, err := st.VaultLock(ctx, "github", "alice", "tok1", time.Minute); err != nil || !ok {
		t.Fatalf("lock: %v %v", ok, err)
	}
	if ok, _ := st.VaultLock(ctx, "github", "alice", "tok2", time.Minute); ok {
		t.Error("a held lock taken again")
	}
	_ = st.VaultUnlock(ctx, "github", "alice", "tok2") // not the holder: nothing
	if ok, _ := st.VaultLock(ctx, "github", "alice", "tok3", time.Minute); ok {
		t.Error("another's unlock released the lock")
	}
	if err := st.VaultUnlock(ctx, "github", "alice", "tok1"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := st.VaultLock(ctx, "github", "alice", "tok3", time.Minute); !ok {
		t.Error("not free after its holder's unlock")
	}

	r.Stop()
	_, _, err = st.VaultGet(ctx, "github", "alice")
	if err == nil || !strings.Contains(err.Error(), "state.redis") || !strings.Contains(err.Error(), "the credentials vault is unavailable") {
		t.Errorf("with Redis down: %v", err)
	}
}
