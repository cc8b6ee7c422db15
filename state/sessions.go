package state

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// The registry of 2025-11-25 session ids (gateway/transport's
// SharedSessions): <key_prefix>session:<id> holds "live|<owner>" for
// session_idle_timeout after its last use, or "ended" for an hour after a
// client's DELETE.

const endedSessionTTL = time.Hour

func (s *Store) sessionKey(id string) string { return s.key("session", id) }

func sessionTTL(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		return 24 * time.Hour
	}
	return ttl
}

// CreateSession records id as live, owned by owner.
func (s *Store) CreateSession(ctx context.Context, id, owner string, ttl time.Duration) error {
	if err := s.client.Set(ctx, s.sessionKey(id), "live|"+owner, sessionTTL(ttl)).Err(); err != nil {
		return s.unavailable("the session registry is", err)
	}
	return nil
}

// LookupSession reads id's entry and extends a live one (one GETEX).
func (s *Store) LookupSession(ctx context.Context, id string, ttl time.Duration) (owner string, live, ended bool, err error) {
	v, err := s.client.GetEx(ctx, s.sessionKey(id), sessionTTL(ttl)).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return "", false, false, nil
	case err != nil:
		return "", false, false, s.unavailable("the session registry is", err)
	case v == "ended":
		// GETEX gave it the live TTL; an ended id needs no more than its own.
		_ = s.client.Expire(ctx, s.sessionKey(id), endedSessionTTL).Err()
		return "", false, true, nil
	}
	owner, ok := strings.CutPrefix(v, "live|")
	return owner, ok, false, nil
}

// EndSession records id as ended.
func (s *Store) EndSession(ctx context.Context, id string) error {
	if err := s.client.Set(ctx, s.sessionKey(id), "ended", endedSessionTTL).Err(); err != nil {
		return s.unavailable("the session registry is", err)
	}
	return nil
}
