package state_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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

// scripts is how many Lua scripts (redis_rate's EVALSHA or EVAL) the
// Redis at addr has run.
func scripts(t *testing.T, addr string) int {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(info, "\n") {
		for _, cmd := range []string{"cmdstat_evalsha:calls=", "cmdstat_eval:calls="} {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), cmd); ok {
				calls, _, _ := strings.Cut(rest, ",")
				v, _ := strconv.Atoi(calls)
				n += v
			}
		}
	}
	return n
}

// A busy bucket is leased: two replicas hammering one bucket of 400/s,
// burst 40, for 1.5 s allow no more than the bucket gives (burst plus
// rate times the time), enough of it (the leases' lost tokens are few),
// and in far fewer round trips than calls (a refused call waits out the
// retry time Redis gave without asking again). A bucket that never runs
// dry takes about one round trip per lease. A bucket of 2/s is not
// leased: one round trip per call.
func TestRateLimitLeases(t *testing.T) {
	r := harness.StartRedis(t)
	a, b := open(t, r.URL()), open(t, r.URL())
	ctx := context.Background()
	before := scripts(t, r.Addr)
	var allowed, calls atomic.Int64
	start := time.Now()
	const d = 1500 * time.Millisecond
	var wg sync.WaitGroup
	for i := range 8 {
		st := a
		if i%2 == 1 {
			st = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(start) < d {
				ok, _, err := st.Take(ctx, "busy", 400, 40)
				if err != nil {
					t.Error(err)
					return
				}
				calls.Add(1)
				if ok {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	trips := scripts(t, r.Addr) - before
	most := 40 + 400*elapsed.Seconds()
	t.Logf("%d of %d calls allowed in %v (at most %.0f), %d round trips", allowed.Load(), calls.Load(), elapsed.Round(time.Millisecond), most, trips)
	if float64(allowed.Load()) > most+1 {
		t.Errorf("%d calls allowed in %v, more than the %.0f the bucket gives", allowed.Load(), elapsed, most)
	}
	if float64(allowed.Load()) < 0.7*400*d.Seconds() {
		t.Errorf("only %d calls allowed in %v of a 400/s bucket", allowed.Load(), elapsed)
	}
	if calls.Load() > 1000 && int64(trips)*4 > calls.Load() {
		t.Errorf("%d round trips for %d calls: the bucket was not leased", trips, calls.Load())
	}

	// A bucket that never runs dry (the bench's): every call allowed, about
	// one round trip per 64.
	before = scripts(t, r.Addr)
	for i := range 2000 {
		st := a
		if i%2 == 1 {
			st = b
		}
		if ok, _, err := st.Take(ctx, "wide", 1000000, 1000000); !ok || err != nil {
			t.Fatalf("call %d of a bucket that never runs dry: %v %v", i, ok, err)
		}
	}
	if trips := scripts(t, r.Addr) - before; trips*8 > 2000 {
		t.Errorf("%d round trips for 2000 calls of a wide bucket, want far fewer", trips)
	} else {
		t.Logf("a wide bucket: %d round trips for 2000 calls", trips)
	}

	before = scripts(t, r.Addr)
	got := 0
	for range 5 {
		ok, _, err := a.Take(ctx, "slow", 2, 2)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			got++
		}
	}
	// Two tokens, one round trip each; the third is refused by Redis,
	// which says when the next comes; the fourth and fifth are refused
	// here until then.
	if trips := scripts(t, r.Addr) - before; got != 2 || trips != 3 {
		t.Errorf("a 2/s bucket of burst 2: %d of 5 calls allowed in %d round trips, want 2 in 3 (not leased)", got, trips)
	}
}

// SpendOnce: the first replica to spend an id gets fresh, every other
// (and the same one again) not; the key expires with what it guards; a
// Redis that is down is an error naming state.redis, never a fresh.
func TestSpendOnce(t *testing.T) {
	r := harness.StartRedis(t)
	a, b := open(t, r.URL()), open(t, r.URL())
	ctx := context.Background()
	until := time.Now().Add(time.Minute)
	if fresh, err := a.SpendOnce(ctx, "n1", until); !fresh || err != nil {
		t.Fatalf("first spend: %v %v", fresh, err)
	}
	for i, st := range []*state.Store{b, a} {
		if fresh, err := st.SpendOnce(ctx, "n1", until); fresh || err != nil {
			t.Errorf("spend %d again: %v %v, want not fresh", i+2, fresh, err)
		}
	}
	if fresh, err := b.SpendOnce(ctx, "n2", until); !fresh || err != nil {
		t.Errorf("another id: %v %v", fresh, err)
	}
	c := redis.NewClient(&redis.Options{Addr: r.Addr})
	defer c.Close()
	if ttl := c.PTTL(ctx, "test:spent:n1").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("the spent key's TTL is %v, want until its state expires (at most 1m)", ttl)
	}
	r.Stop()
	fresh, err := a.SpendOnce(ctx, "n3", until)
	if fresh || err == nil || !strings.Contains(err.Error(), "state.redis") || !strings.Contains(err.Error(), "used request states") {
		t.Errorf("spend with Redis down: %v %v, want an error naming state.redis", fresh, err)
	}
}
