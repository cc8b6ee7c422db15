package state

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/wasmgate/wasmgate/flow"
)

// The taint of flow control (package flow) in Redis, so that every
// replica enforces what another saw: the taint of scope key k (a session,
// "session:<id>", or a principal's window, "principal:<name>") is the hash
// <key_prefix>flows:<k>, with a field l:<label> holding the JSON of the
// flow.Call that last added the label, and a field a:<rule>\x00<name>
// holding when (unix ms) a person approved calls of name under rule. The
// hash expires ttl after its last change. Each method is one round trip.

const flowsWhat = "the flow-control taint is"

// flowScanBatch is how many keys a SCAN asks for at a time, and so how
// many HGETALLs one pipeline of Scan carries at most.
const flowScanBatch = 100

// Flows is the flow-control taint store in Redis: a flow.Store shared by
// every replica using the same Redis and key prefix. It holds s without
// retaining it: it fails, like every other command, once s is closed.
func (s *Store) Flows() flow.Store { return flowStore{s} }

type flowStore struct{ s *Store }

func (f flowStore) hashKey(key string) string { return f.s.key("flows", key) }

// Add sets the label fields and renews the expiry in one MULTI/EXEC.
func (f flowStore) Add(ctx context.Context, key string, labels []string, call flow.Call, ttl time.Duration) error {
	if len(labels) == 0 {
		return nil
	}
	if call.At.IsZero() {
		call.At = time.Now()
	}
	v, err := json.Marshal(call)
	if err != nil {
		return err // a Call always marshals
	}
	fields := make([]any, 0, 2*len(labels))
	for _, l := range labels {
		fields = append(fields, "l:"+l, v)
	}
	if err := f.write(ctx, key, fields, ttl); err != nil {
		return f.s.unavailable(flowsWhat, err)
	}
	return nil
}

// Approve sets the approval field and renews the expiry in one MULTI/EXEC.
func (f flowStore) Approve(ctx context.Context, key, rule, name string, ttl time.Duration) error {
	fields := []any{"a:" + flow.ApprovalKey(rule, name), strconv.FormatInt(time.Now().UnixMilli(), 10)}
	if err := f.write(ctx, key, fields, ttl); err != nil {
		return f.s.unavailable(flowsWhat, err)
	}
	return nil
}

func (f flowStore) write(ctx context.Context, key string, fields []any, ttl time.Duration) error {
	k := f.hashKey(key)
	_, err := f.s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, k, fields...)
		if ttl > 0 {
			p.PExpire(ctx, k, ttl)
		}
		return nil
	})
	return err
}

// Get is one HGETALL.
func (f flowStore) Get(ctx context.Context, key string, window time.Duration) (*flow.Taint, error) {
	m, err := f.s.client.HGetAll(ctx, f.hashKey(key)).Result()
	if err != nil {
		return nil, f.s.unavailable(flowsWhat, err)
	}
	return decodeTaint(m, window, time.Now()), nil
}

// decodeTaint is the taint of hash m without what is older than window
// (nothing dropped when window is 0): nil when m is empty (no such key).
// A field it cannot read is skipped.
func decodeTaint(m map[string]string, window time.Duration, now time.Time) *flow.Taint {
	if len(m) == 0 {
		return nil
	}
	fresh := func(at time.Time) bool { return window <= 0 || now.Sub(at) <= window }
	t := &flow.Taint{Labels: make(map[string]flow.Call, len(m))}
	for field, v := range m {
		switch {
		case strings.HasPrefix(field, "l:"):
			var c flow.Call
			if json.Unmarshal([]byte(v), &c) != nil || !fresh(c.At) {
				continue
			}
			t.Labels[field[2:]] = c
		case strings.HasPrefix(field, "a:"):
			ms, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				continue
			}
			if at := time.UnixMilli(ms); fresh(at) {
				if t.Approved == nil {
					t.Approved = map[string]time.Time{}
				}
				t.Approved[field[2:]] = at
			}
		}
	}
	return t
}

// Reset is one DEL.
func (f flowStore) Reset(ctx context.Context, key string) (bool, error) {
	n, err := f.s.client.Del(ctx, f.hashKey(key)).Result()
	if err != nil {
		return false, f.s.unavailable(flowsWhat, err)
	}
	return n > 0, nil
}

// Scan walks the keys with SCAN MATCH <key_prefix>flows:* (on every
// master of a Cluster) and reads each page's hashes with one pipeline of
// HGETALLs. A negative limit is no limit. A key that a replica adds
// during the walk may or may not be seen (SCAN's guarantee).
func (f flowStore) Scan(ctx context.Context, limit int, window time.Duration, fn func(key string, t *flow.Taint)) (bool, error) {
	nodes, err := f.nodes(ctx)
	if err != nil {
		return false, f.s.unavailable(flowsWhat, err)
	}
	prefix := f.s.key("flows", "")
	match := globEscape(prefix) + "*"
	seen := map[string]bool{} // SCAN may return a key twice
	n := 0
	now := time.Now()
	for _, node := range nodes {
		var cursor uint64
		for {
			keys, next, err := node.Scan(ctx, cursor, match, flowScanBatch).Result()
			if err != nil {
				return false, f.s.unavailable(flowsWhat, err)
			}
			var fresh []string
			for _, k := range keys {
				if !seen[k] {
					seen[k] = true
					fresh = append(fresh, k)
				}
			}
			cmds := make([]*redis.MapStringStringCmd, len(fresh))
			if len(fresh) > 0 {
				_, err := f.s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
					for i, k := range fresh {
						cmds[i] = p.HGetAll(ctx, k)
					}
					return nil
				})
				if err != nil {
					return false, f.s.unavailable(flowsWhat, err)
				}
			}
			for i, k := range fresh {
				t := decodeTaint(cmds[i].Val(), window, now)
				if t == nil {
					continue // expired or reset since the SCAN
				}
				if n == limit {
					return false, nil
				}
				n++
				fn(strings.TrimPrefix(k, prefix), t)
			}
			if cursor = next; cursor == 0 {
				break
			}
		}
	}
	return true, nil
}

// nodes is what to SCAN: every master of a Cluster, else the client.
func (f flowStore) nodes(ctx context.Context) ([]redis.Cmdable, error) {
	cc, ok := f.s.client.(*redis.ClusterClient)
	if !ok {
		return []redis.Cmdable{f.s.client}, nil
	}
	var mu sync.Mutex
	var out []redis.Cmdable
	err := cc.ForEachMaster(ctx, func(_ context.Context, c *redis.Client) error {
		mu.Lock()
		out = append(out, c)
		mu.Unlock()
		return nil
	})
	return out, err
}

// globEscape escapes the characters SCAN MATCH reads as a pattern.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
