// The supervisor of one upstream session (conn): it starts the session,
// waits for it to end (parked, with no goroutine, when the session needs
// no timer), and starts it again with backoff, until the conn is closed.

package upstream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/mark3labs/mcp-go/client"
)

// reconnectBackoff is the delay before each start of a session but the
// first: minBackoff, doubling up to maxBackoff, without jitter (the
// delays the supervisor always had; docs/upstreams.md gives them).
//
// Only the library's policy is used, not its Retry: the supervisor waits
// before a start after a session ended as well as after a failed start,
// starts over once a session lived longer than maxBackoff (Reset), and
// its wait also ends when the conn is closed (wakeup), which Retry cannot
// be told; Retry also gives up after 15 minutes by default, and an
// upstream is retried for as long as it is configured.
func reconnectBackoff() *backoff.ExponentialBackOff {
	b := &backoff.ExponentialBackOff{InitialInterval: minBackoff, RandomizationFactor: 0, Multiplier: 2, MaxInterval: maxBackoff}
	b.Reset()
	return b
}

// supervise keeps c's session up until c is closed: when it ends, it is
// started again after a backoff that doubles up to maxBackoff and starts
// over once a session lived longer than maxBackoff (reconnectBackoff).
// It holds one count of c.s.wg until c is closed or the source stops.
func (c *conn) supervise() {
	(&supervisor{c: c, policy: reconnectBackoff(), first: true}).run()
}

// supervisor is supervise's state. While a session that needs no timer
// is up (every per_client and per_user session, a stdio upstream's),
// no goroutine waits for it to end: the supervisor is parked on the
// session's end and the source's stop (context.AfterFunc) and goes on
// in a goroutine of its own when either happens. An idle per_client
// session then costs no goroutine stack, only its state.
type supervisor struct {
	c      *conn
	policy *backoff.ExponentialBackOff // this supervisor's alone: not safe for concurrent use
	delay  time.Duration               // before the next start
	first  bool
	reason string // why the next start is a restart (restartReason)
}

// run supervises until c is closed or the source stops (then it gives
// back its count of c.s.wg), or until it parks (handing the count to
// the goroutine that resumes it).
func (v *supervisor) run() {
	c := v.c
	ctx := c.s.ctx
	for ctx.Err() == nil {
		c.mu.Lock()
		cli, ended, closed := c.cli, c.ended, c.closed
		c.mu.Unlock()
		if closed {
			break
		}
		if cli == nil {
			if !v.start() {
				break
			}
			continue
		}
		v.first = false
		started := time.Now()
		// This session's timers: the shared HTTP session's pings, a lazy
		// upstream's idle_timeout.
		var ping, idle <-chan time.Time
		var pingTicker *time.Ticker
		var idleTimer *time.Timer
		if c.kind != "stdio" && c == c.s.main {
			pingTicker = time.NewTicker(pingEvery)
			ping = pingTicker.C
		}
		if c.lazy() {
			c.lastUsed.Store(time.Now().UnixNano())
			idleTimer = time.NewTimer(time.Duration(c.s.idleTimeout.Load()))
			idle = idleTimer.C
		}
		if ping == nil && idle == nil {
			v.park(cli, ended, started)
			return
		}
		stopTimers := func() {
			if pingTicker != nil {
				pingTicker.Stop()
			}
			if idleTimer != nil {
				idleTimer.Stop()
			}
		}
	alive:
		for {
			select {
			case <-ended.Done():
				break alive
			case <-ctx.Done():
				stopTimers()
				c.s.wg.Done()
				return
			case <-idle:
				if left := c.idleLeft(); left > 0 {
					idleTimer.Reset(left)
					continue
				}
				c.s.idle.Store(true)
				c.down(errIdle)
			case <-ping:
				pctx, cancel := context.WithTimeout(ctx, time.Duration(c.s.spec.Limits.Timeout))
				err := cli.Ping(pctx)
				cancel()
				if err != nil && transportError(err) {
					c.down(fmt.Errorf("stopped answering pings: %w", err))
				}
			}
		}
		stopTimers() // the next session has its own
		if !v.ended(cli, started) {
			break
		}
	}
	c.s.wg.Done()
}

// start starts a session for c, after the backoff when it is a restart,
// or after a call wants one when c is a lazy upstream's that sleeps. It
// reports false when c was closed or the source stopped meanwhile.
func (v *supervisor) start() bool {
	c := v.c
	ctx := c.s.ctx
	if c.lazy() && (c.s.idle.Load() || (v.first && c.s.cached.Load())) {
		// Nothing needs it: sleep until a call does.
		select {
		case <-c.s.demand:
		case <-ctx.Done():
			return false
		case <-c.wakeup:
		}
		if c.isClosed() {
			return false
		}
		c.s.idle.Store(false)
		c.s.h.Logger.Info("upstream starting for a call (start: lazy)", "upstream", c.s.name())
		v.first, v.delay = true, 0 // a start, not a restart
	}
	if !v.first {
		select {
		case <-time.After(v.delay):
		case <-ctx.Done():
			return false
		case <-c.wakeup:
		}
		if c.isClosed() {
			return false // closed during the wait (close's wakeup): nothing to start
		}
		c.s.restarts.Add(1)
		c.s.h.Metrics.UpstreamRestarts.WithLabelValues(c.s.name(), v.reason).Inc()
	}
	v.first = false
	ictx, cancel := context.WithTimeout(ctx, time.Duration(c.s.spec.Limits.StartTimeout))
	err := c.connect(ictx)
	cancel()
	if err != nil {
		v.reason = restartReason(nil)
		v.delay = v.policy.NextBackOff()
		if ctx.Err() == nil {
			c.s.h.Logger.Warn("upstream could not be started; retrying", "upstream", c.s.name(), "error", c.s.redact(err.Error()), "retry_in", v.delay)
		}
		return true
	}
	c.s.h.Logger.Info("upstream connected", "upstream", c.s.name(), "transport", c.kind, "session", c.ownerLabel())
	if c == c.s.main {
		if err := c.s.relist(ctx, true); err != nil && ctx.Err() == nil {
			c.s.h.Logger.Warn("upstream connected, but listing what it provides failed", "upstream", c.s.name(), "error", c.s.redact(err.Error()))
		}
	}
	return true
}

// park waits, with no goroutine, for the session cli (started at
// started) to end or the source to stop; a goroutine of the context
// package's then goes on with v.run. Whichever comes first resumes it,
// once; the other's registration is removed.
func (v *supervisor) park(cli *client.Client, ended context.Context, started time.Time) {
	ctx := v.c.s.ctx
	var (
		mu         sync.Mutex // held while the two registrations are made
		resumed    atomic.Bool
		stopEnded  func() bool
		stopSource func() bool
	)
	resume := func() {
		if !resumed.CompareAndSwap(false, true) {
			return
		}
		mu.Lock()
		stopEnded()
		stopSource() // the source's context outlives many sessions: its registration must go
		mu.Unlock()
		if ctx.Err() != nil {
			v.c.s.wg.Done()
			return
		}
		if v.ended(cli, started) {
			v.run()
			return
		}
		v.c.s.wg.Done()
	}
	mu.Lock()
	stopEnded = context.AfterFunc(ended, resume)
	stopSource = context.AfterFunc(ctx, resume)
	mu.Unlock()
}

// ended tears down the session cli that ended (started at started) and
// sets the backoff before the next; it reports false when c was closed,
// and nothing is to be started again.
func (v *supervisor) ended(cli *client.Client, started time.Time) bool {
	c := v.c
	c.mu.Lock()
	why, closed := c.why, c.closed
	c.mu.Unlock()
	if closed {
		// Closed (its downstream session ended, the upstream stops):
		// nothing to restart, nothing to warn of.
		c.teardown(cli, nil)
		return false
	}
	if errors.Is(why, errIdle) {
		c.s.h.Logger.Info("upstream stopped: idle_timeout passed without a call (start: lazy)", "upstream", c.s.name())
		c.teardown(cli, nil)
		v.policy.Reset()
		return true
	}
	v.reason = restartReason(why)
	if time.Since(started) > maxBackoff {
		v.policy.Reset()
	}
	v.delay = v.policy.NextBackOff()
	if c.s.ctx.Err() == nil {
		c.s.h.Logger.Warn("upstream session ended; restarting", "upstream", c.s.name(), "session", c.ownerLabel(), "error", c.s.redactErr(why), "retry_in", v.delay)
	}
	c.teardown(cli, why)
	return true
}
