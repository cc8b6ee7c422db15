package state

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// SpendOnce records id as used until until, for every replica sharing the
// store: fresh is true the first time any of them spends it, false after
// (the multi-round-trip request states' nonces, package roundtrip, so
// that a state answered on one replica cannot be replayed on another).
// The key <key_prefix>spent:<id> expires at until.
func (s *Store) SpendOnce(ctx context.Context, id string, until time.Time) (fresh bool, err error) {
	err = s.client.SetArgs(ctx, s.key("spent", id), "1", redis.SetArgs{Mode: "NX", ExpireAt: until}).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, s.unavailable("the record of used request states is", err)
	}
	return true, nil
}
