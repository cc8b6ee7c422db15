package state_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/loader/host"
	"github.com/wasmgate/wasmgate/state"
	"github.com/wasmgate/wasmgate/state/stateconfig"
)

func open(t *testing.T, url string) *state.Store {
	t.Helper()
	cfg := stateconfig.Config{Backend: "redis", Redis: stateconfig.Redis{URL: url, KeyPrefix: "test:"}, OnUnavailable: "fail_closed"}
	st, err := state.Open(context.Background(), cfg, "", state.Options{File: "gateway.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Release)
	return st
}

// The key-value semantics in Redis are the memory store's: the same
// sequence of operations gives the same answers, quota and per-entry
// overhead included.
func TestKVSameAsMemory(t *testing.T) {
	r := harness.StartRedis(t)
	st := open(t, r.URL())
	ctx := context.Background()
	mem := host.NewStore(10 + host.EntryOverhead)
	red := host.NewStore(10 + host.EntryOverhead)
	red.Share("p", func() host.Remote { return st })
	type op struct {
		kind, key, value string
	}
	ops := []op{
		{"set", "ab", "cdef"}, {"set", "gh", "i"}, {"set", "ab", "cdefghij"}, {"get", "ab", ""},
		{"get", "zz", ""}, {"set", "e", ""}, {"del", "ab", ""}, {"get", "ab", ""}, {"set", "gh", "ijklm"},
		{"set", "", "x"}, {"get", "", ""}, {"del", "nothing", ""}, {"set", "gh", ""}, {"get", "gh", ""},
	}
	for i, o := range ops {
		var a, b string
		switch o.kind {
		case "set":
			x, err1 := mem.Put(ctx, o.key, []byte(o.value))
			y, err2 := red.Put(ctx, o.key, []byte(o.value))
			a, b = fmt.Sprint(x, err1), fmt.Sprint(y, err2)
		case "get":
			x, ok1, err1 := mem.Lookup(ctx, o.key)
			y, ok2, err2 := red.Lookup(ctx, o.key)
			a, b = fmt.Sprintf("%q %v %v", x, ok1, err1), fmt.Sprintf("%q %v %v", y, ok2, err2)
		case "del":
			a, b = fmt.Sprint(mem.Remove(ctx, o.key)), fmt.Sprint(red.Remove(ctx, o.key))
		}
		if a != b {
			t.Errorf("op %d %v: memory %s, redis %s", i, o, a, b)
		}
	}
	// A lowered quota refuses, existing values kept, in both.
	mem.SetQuota(3)
	red.SetQuota(3)
	x, _ := mem.Put(ctx, "n", nil)
	y, _ := red.Put(ctx, "n", nil)
	if x || y {
		t.Errorf("set past a lowered quota: memory %v, redis %v", x, y)
	}
	// Another plugin's namespace is its own.
	other := host.NewStore(1 << 20)
	other.Share("q", func() host.Remote { return st })
	if _, ok, _ := other.Lookup(ctx, "gh"); ok {
		t.Error("plugin q sees plugin p's key")
	}
}

// The quota holds across replicas: many writers through two clients (two
// replicas) never store more than the quota, and fill it exactly.
func TestKVQuotaAcrossReplicas(t *testing.T) {
	r := harness.StartRedis(t)
	a, b := open(t, r.URL()), open(t, r.URL())
	ctx := context.Background()
	const quota = 50 * (host.EntryOverhead + 2 + 8) // 50 entries of key 2 bytes, value 8
	var mu sync.Mutex
	stored := map[string]bool{}
	var wg sync.WaitGroup
	for w := range 8 {
		st := a
		if w%2 == 1 {
			st = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				key := fmt.Sprintf("%c%c", 'a'+w, 'a'+i)
				ok, err := st.KVSet(ctx, "p", key, []byte("12345678"), quota, host.EntryOverhead)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					stored[key] = true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(stored) != 50 {
		t.Errorf("%d of 160 entries stored with room for 50", len(stored))
	}
	for key := range stored {
		if v, ok, err := b.KVGet(ctx, "p", key); err != nil || !ok || string(v) != "12345678" {
			t.Errorf("stored %s reads %q %v %v", key, v, ok, err)
		}
	}
}

// A Redis that answers slowly: commands fail within the timeout with an
// error naming state.redis; Status says down; a rate limit follows
// on_unavailable.
func TestSlowRedis(t *testing.T) {
	r := harness.StartRedis(t, "--enable-debug-command", "yes")
	st := open(t, r.URL())
	ctx := context.Background()
	done := make(chan error, 1)
	go func() { done <- harness.RedisDo(r.Addr, "DEBUG", "SLEEP", "5") }() // the whole server sleeps 5s
	// Until the server sleeps, KVGet answers (nothing there); then it must
	// fail within its timeout.
	var err error
	var took time.Duration
	if !harness.WaitFor(4*time.Second, func() bool {
		start := time.Now()
		_, _, err = st.KVGet(ctx, "p", "k")
		took = time.Since(start)
		return err != nil
	}) {
		t.Fatal("KVGet kept answering while Redis slept")
	}
	if !strings.Contains(err.Error(), "state.redis") || !strings.Contains(err.Error(), "did not answer within 1s") {
		t.Errorf("KVGet from a sleeping Redis: %v, want state.redis ... did not answer within 1s", err)
	}
	if took > 2500*time.Millisecond {
		t.Errorf("KVGet from a sleeping Redis took %v, more than its 1s timeout allows", took)
	}
	ok, _, err := st.Take(ctx, "k", 1, 1)
	if ok || err == nil || !strings.Contains(err.Error(), "fail_closed") {
		t.Errorf("Take from a sleeping Redis with fail_closed: %v %v", ok, err)
	}
	if err := <-done; err != nil {
		t.Errorf("DEBUG SLEEP: %v", err)
	}
}

// The URL chooses one server, Sentinel or Cluster; what go-redis cannot
// read is an error naming state.redis.url without the password; a server
// that does not answer is no error (the store starts down).
func TestURLs(t *testing.T) {
	free := harness.FreePort(t) // nothing listens there
	for _, c := range []struct{ url, mode, err string }{
		{"redis://" + free + "/0", "single", ""},
		{"rediss://" + free + "/2", "single", ""},
		{"redis://" + free + "/0?master_name=mymaster&addr=" + free, "sentinel", ""},
		{"redis://" + free + "?addr=" + free + "&addr=" + free, "cluster", ""},
		{"redis://:hunter2@" + free + "/0?no_such_option=1", "single", "state.redis.url"},
	} {
		cfg := stateconfig.Config{Backend: "redis", Redis: stateconfig.Redis{URL: c.url, KeyPrefix: "t:"}, OnUnavailable: "fail_open"}
		if got := cfg.Redis.Mode(); got != c.mode {
			t.Errorf("%s: mode %s, want %s", c.url, got, c.mode)
		}
		st, err := state.Open(context.Background(), cfg, "", state.Options{File: "gateway.yaml"})
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v, want a store that is down", c.url, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "hunter2")):
			t.Errorf("%s: %v, want an error naming %s without the password", c.url, err, c.err)
		}
		if st != nil {
			if st.Up() {
				t.Errorf("%s: up with nothing listening", c.url)
			}
			// fail_open: a rate limit lets the call through while Redis is down.
			if ok, _, err := st.Take(context.Background(), "k", 1, 1); !ok || err != nil {
				t.Errorf("%s: Take with fail_open and Redis down: %v %v", c.url, ok, err)
			}
			st.Release()
		}
	}
}
