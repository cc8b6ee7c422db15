package state

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
)

// The plugins' key-value stores: plugin p's entries are the fields of the
// hash <key_prefix>{p}:kv, and the bytes they count against kv_quota
// (key + value + the per-entry overhead, as in memory) are the integer
// <key_prefix>{p}:kvsize. The braces make both one hash slot, so one
// script changes both on Redis Cluster too. Each call is one round trip.

// setScript stores ARGV[2] at field ARGV[1] unless the size would pass
// the quota ARGV[3]; ARGV[4] is the per-entry overhead. 1 stored, 0 not.
var setScript = redis.NewScript(`
local had = redis.call('HEXISTS', KEYS[1], ARGV[1])
local delta = string.len(ARGV[2])
if had == 1 then
  delta = delta - redis.call('HSTRLEN', KEYS[1], ARGV[1])
else
  delta = delta + string.len(ARGV[1]) + tonumber(ARGV[4])
end
local size = tonumber(redis.call('GET', KEYS[2]) or '0')
if size + delta > tonumber(ARGV[3]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('INCRBY', KEYS[2], delta)
return 1
`)

// deleteScript removes field ARGV[1] and its bytes from the size.
var deleteScript = redis.NewScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return 0
end
local n = redis.call('HSTRLEN', KEYS[1], ARGV[1]) + string.len(ARGV[1]) + tonumber(ARGV[2])
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('DECRBY', KEYS[2], n)
return 1
`)

func (s *Store) kvKeys(plugin string) []string {
	ns := "{" + plugin + "}"
	return []string{s.key(ns, "kv"), s.key(ns, "kvsize")}
}

// KVGet is plugin's value at key; ok is false when there is none.
func (s *Store) KVGet(ctx context.Context, plugin, key string) ([]byte, bool, error) {
	v, err := s.client.HGet(ctx, s.kvKeys(plugin)[0], key).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.unavailable("the key-value store of plugin "+quote(plugin)+" is", err)
	}
	return v, true, nil
}

// KVSet stores value at key unless plugin's store would pass quota bytes,
// counting overhead per entry; ok is false when it would.
func (s *Store) KVSet(ctx context.Context, plugin, key string, value []byte, quota, overhead int64) (bool, error) {
	n, err := setScript.Run(ctx, s.client, s.kvKeys(plugin), key, value, quota, overhead).Int()
	if err != nil {
		return false, s.unavailable("the key-value store of plugin "+quote(plugin)+" is", err)
	}
	return n == 1, nil
}

// KVDelete removes key from plugin's store.
func (s *Store) KVDelete(ctx context.Context, plugin, key string, overhead int64) error {
	if err := deleteScript.Run(ctx, s.client, s.kvKeys(plugin), key, overhead).Err(); err != nil {
		return s.unavailable("the key-value store of plugin "+quote(plugin)+" is", err)
	}
	return nil
}

func quote(s string) string { return `"` + s + `"` }
