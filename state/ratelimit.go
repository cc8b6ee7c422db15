package state

import (
	"context"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"golang.org/x/time/rate"
)

// The global rate limits: each bucket of policy's limiters (a rule's
// rate_limit for one principal and name, policy.rate_limit for one
// principal) is a GCRA cell of redis_rate under rate:<key_prefix>rl:<key>,
// so the configured rate holds across every replica. A bucket's key is
// its rule's fingerprint with the principal and the name, so a reload that
// keeps a rule keeps its state, as in memory. One round trip per bucket.

// Take takes one token from the bucket at key, refilled at limit per
// second up to burst. ok false: retry is when one will be there. Redis
// unavailable: with on_unavailable fail_open the call is let through
// (ok, no error); with fail_closed err says why.
func (s *Store) Take(ctx context.Context, key string, limit rate.Limit, burst int) (ok bool, retry time.Duration, err error) {
	if limit <= 0 || burst < 1 {
		return false, time.Second, nil
	}
	l := redis_rate.Limit{Rate: 1, Burst: burst, Period: time.Duration(float64(time.Second) / float64(limit))}
	if limit == rate.Limit(int(limit)) {
		l = redis_rate.Limit{Rate: int(limit), Burst: burst, Period: time.Second}
	}
	res, err := s.rate.Allow(ctx, s.key("rl", key), l)
	if err != nil {
		if s.FailOpen() {
			return true, 0, nil
		}
		return false, 0, s.unavailable("the rate limit's shared state is (state.on_unavailable is fail_closed)", err)
	}
	if res.Allowed > 0 {
		return true, 0, nil
	}
	return false, max(res.RetryAfter, time.Millisecond), nil
}
