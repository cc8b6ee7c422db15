package state

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// The credentials vault (package auth/vault) in Redis: the entries of
// upstream u are the fields (principal -> sealed bytes) of the hash
// <key_prefix>vault:{u}, and the names of the upstreams that have had
// entries the set <key_prefix>vault:upstreams; one-time records are
// <key_prefix>vault:once:<id> with a TTL, taken with GETDEL; the lock of
// a grant is <key_prefix>vault:lock:{u}:<principal>, SET NX PX with a
// random token, released by a script only while it holds that token.
// The values are sealed by the vault: Redis never sees a token.

func (s *Store) vaultKey(upstream string) string { return s.key("vault", "{"+upstream+"}") }

// vaultReplaceScript sets field ARGV[1] to ARGV[3] if it is ARGV[2].
var vaultReplaceScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
  return 1
end
return 0
`)

// vaultDeleteAllScript deletes the hash and says how many fields it had.
var vaultDeleteAllScript = redis.NewScript(`
local n = redis.call('HLEN', KEYS[1])
redis.call('DEL', KEYS[1])
return n
`)

// vaultUnlockScript deletes the lock only if ARGV[1] still holds it.
var vaultUnlockScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`)

const vaultWhat = "the credentials vault is"

// VaultGet is principal's sealed entry at upstream.
func (s *Store) VaultGet(ctx context.Context, upstream, principal string) ([]byte, bool, error) {
	v, err := s.client.HGet(ctx, s.vaultKey(upstream), principal).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.unavailable(vaultWhat, err)
	}
	return v, true, nil
}

// VaultSet stores principal's sealed entry at upstream.
func (s *Store) VaultSet(ctx context.Context, upstream, principal string, value []byte) error {
	_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, s.vaultKey(upstream), principal, value)
		p.SAdd(ctx, s.key("vault", "upstreams"), upstream)
		return nil
	})
	if err != nil {
		return s.unavailable(vaultWhat, err)
	}
	return nil
}

// VaultReplace stores value only while the entry is old.
func (s *Store) VaultReplace(ctx context.Context, upstream, principal string, old, value []byte) (bool, error) {
	n, err := vaultReplaceScript.Run(ctx, s.client, []string{s.vaultKey(upstream)}, principal, old, value).Int()
	if err != nil {
		return false, s.unavailable(vaultWhat, err)
	}
	return n == 1, nil
}

// VaultDelete removes principal's entry at upstream.
func (s *Store) VaultDelete(ctx context.Context, upstream, principal string) (bool, error) {
	n, err := s.client.HDel(ctx, s.vaultKey(upstream), principal).Result()
	if err != nil {
		return false, s.unavailable(vaultWhat, err)
	}
	return n > 0, nil
}

// VaultDeleteAll removes every entry at upstream, returning how many.
func (s *Store) VaultDeleteAll(ctx context.Context, upstream string) (int, error) {
	n, err := vaultDeleteAllScript.Run(ctx, s.client, []string{s.vaultKey(upstream)}).Int()
	if err != nil {
		return 0, s.unavailable(vaultWhat, err)
	}
	return n, nil
}

// VaultList is the entries by principal by upstream: upstream's, or
// ("") every upstream's.
func (s *Store) VaultList(ctx context.Context, upstream string) (map[string]map[string][]byte, error) {
	ups := []string{upstream}
	if upstream == "" {
		var err error
		if ups, err = s.client.SMembers(ctx, s.key("vault", "upstreams")).Result(); err != nil {
			return nil, s.unavailable(vaultWhat, err)
		}
	}
	cmds := make([]*redis.MapStringStringCmd, len(ups))
	_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, u := range ups {
			cmds[i] = p.HGetAll(ctx, s.vaultKey(u))
		}
		return nil
	})
	if err != nil {
		return nil, s.unavailable(vaultWhat, err)
	}
	out := make(map[string]map[string][]byte, len(ups))
	for i, u := range ups {
		fields := cmds[i].Val()
		if len(fields) == 0 {
			continue
		}
		m := make(map[string][]byte, len(fields))
		for p, v := range fields {
			m[p] = []byte(v)
		}
		out[u] = m
	}
	return out, nil
}

// VaultSetOnce stores a one-time record that expires after ttl.
func (s *Store) VaultSetOnce(ctx context.Context, id string, value []byte, ttl time.Duration) error {
	if err := s.client.Set(ctx, s.key("vault", "once", id), value, ttl).Err(); err != nil {
		return s.unavailable(vaultWhat, err)
	}
	return nil
}

// VaultTakeOnce returns and removes a one-time record (GETDEL: of two
// replicas taking it, one gets it).
func (s *Store) VaultTakeOnce(ctx context.Context, id string) ([]byte, bool, error) {
	v, err := s.client.GetDel(ctx, s.key("vault", "once", id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, s.unavailable(vaultWhat, err)
	}
	return v, true, nil
}

func (s *Store) vaultLockKey(upstream, principal string) string {
	return s.key("vault", "lock", "{"+upstream+"}", principal)
}

// VaultLock takes the lock of (upstream, principal) with token for ttl,
// unless it is held.
func (s *Store) VaultLock(ctx context.Context, upstream, principal, token string, ttl time.Duration) (bool, error) {
	err := s.client.SetArgs(ctx, s.vaultLockKey(upstream, principal), token, redis.SetArgs{Mode: "NX", TTL: ttl}).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, s.unavailable(vaultWhat, err)
	}
	return true, nil
}

// VaultUnlock releases the lock if token holds it.
func (s *Store) VaultUnlock(ctx context.Context, upstream, principal, token string) error {
	if err := vaultUnlockScript.Run(ctx, s.client, []string{s.vaultLockKey(upstream, principal)}, token).Err(); err != nil {
		return s.unavailable(vaultWhat, err)
	}
	return nil
}
