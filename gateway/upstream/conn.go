// One upstream session (conn): waited for by the calls, torn down when
// it ends, closed for good. Its supervisor (supervise.go) starts it and
// starts it again; the session itself is dialed in dial.go and
// dialhttp.go.

package upstream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// conn is one upstream session, supervised: started, and started again
// with backoff when it ends, until closed.
type conn struct {
	s     *shared
	owner string                  // the downstream session of a per_client session; "" for the shared one
	ds    mcpserver.ClientSession // that session
	user  *userSession            // a principal's session (identity.go); nil for the others

	mu      sync.Mutex
	cli     *client.Client  // nil while down
	ready   chan struct{}   // closed when cli is set; replaced when it goes down
	ended   context.Context // done when cli's session ended
	why     error           // why the last session ended
	lastErr string
	up      bool
	kind    string // stdio, streamable-http, sse
	closed  bool
	stopFn  func() // ends the current session (kills its process)
	wakeup  chan struct{}

	// The downstream calls running on a per_client session: a request
	// of the upstream goes out on the newest one's stream.
	active inflight

	calls  atomic.Int32             // calls running on c (not parked ones)
	parked map[*parkedCall]struct{} // parked calls whose upstream request runs on c
	// lastUsed is when a call last began or ended on c (UnixNano), for
	// a lazy upstream's idle_timeout.
	lastUsed atomic.Int64
}

// errIdle ends a lazy upstream's shared session after idle_timeout.
var errIdle = errors.New("stopped after idle_timeout without a call (start: lazy)")

// lazy reports whether c is the shared session of a start: lazy
// upstream, which sleeps until a call needs it.
func (c *conn) lazy() bool { return c == c.s.main && c.s.demand != nil }

// want wakes a lazy upstream's sleeping shared session.
func (c *conn) want() {
	if c.lazy() {
		select {
		case c.s.demand <- struct{}{}:
		default:
		}
	}
}

// idleLeft is how much of idle_timeout is left before c, a lazy
// upstream's shared session, is stopped: 0 once it has run out with no
// call running or parked.
func (c *conn) idleLeft() time.Duration {
	idle := time.Duration(c.s.idleTimeout.Load())
	c.mu.Lock()
	parked := len(c.parked)
	c.mu.Unlock()
	if c.calls.Load() > 0 || parked > 0 {
		return idle
	}
	return max(0, idle-time.Since(time.Unix(0, c.lastUsed.Load())))
}

// begin records a downstream call running on c; the func returned ends it.
func (c *conn) begin(ctx context.Context) func() {
	if c.owner == "" {
		return c.s.running.add(ctx) // the shared session's (attribute.go)
	}
	return c.active.add(ctx)
}

// callContext is the newest downstream call running on c, or nil.
func (c *conn) callContext() context.Context { return c.active.newest() }

func (s *shared) newConn(owner string, ds mcpserver.ClientSession) *conn {
	return &conn{s: s, owner: owner, ds: ds, ready: make(chan struct{}), wakeup: make(chan struct{}, 1)}
}

// current is the connected client, or nil.
func (c *conn) current() *client.Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cli
}

// wait returns the connected client, waiting until ctx ends for a
// session that is (re)starting.
func (c *conn) wait(ctx context.Context) (*client.Client, <-chan struct{}, error) {
	for {
		c.mu.Lock()
		cli, ready, ended, closed, last := c.cli, c.ready, c.ended, c.closed, c.lastErr
		c.mu.Unlock()
		if closed {
			return nil, nil, fmt.Errorf("upstream %q is stopping", c.s.name())
		}
		if cli == nil {
			c.want()
		}
		if cli != nil {
			select {
			case <-ended.Done():
				// The session is over (its process exited) and the
				// supervisor has not torn it down yet: wait for the next.
				c.teardown(cli, c.exitReason())
				continue
			default:
			}
			return cli, ended.Done(), nil
		}
		select {
		case <-ready:
		case <-ctx.Done():
			msg := fmt.Sprintf("upstream %q is not connected", c.s.name())
			if last != "" {
				msg += " (last error: " + last + ")"
			}
			return nil, nil, errors.New(msg)
		}
	}
}

// connect starts one session and initializes it; on success c serves it.
func (c *conn) connect(ctx context.Context) error {
	c.mu.Lock()
	c.why = nil
	c.mu.Unlock()
	cli, ended, stop, kind, err := c.dial(ctx)
	if err != nil {
		c.mu.Lock()
		c.lastErr = c.s.redact(err.Error())
		c.mu.Unlock()
		return err
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		stop()
		return errors.New("closed")
	}
	c.cli, c.ended, c.stopFn, c.kind, c.up = cli, ended, stop, kind, true
	close(c.ready)
	c.mu.Unlock()
	if c == c.s.main {
		c.s.h.Metrics.UpstreamUp.WithLabelValues(c.s.name()).Set(1)
		c.s.resubscribe(cli)
		c.s.relevel(cli)
	}
	return nil
}

func (c *conn) ownerLabel() string {
	switch {
	case c.owner == "":
		return "shared"
	case c.user != nil:
		return "per_user"
	}
	return "per_client"
}

// down ends the current session because of why (a broken connection).
func (c *conn) down(why error) {
	c.mu.Lock()
	stop := c.stopFn
	if c.why == nil {
		c.why = why
	}
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// teardown forgets the ended session cli (nil: whatever session c has):
// calls wait for the next one. A session already torn down is left alone.
func (c *conn) teardown(ended *client.Client, why error) {
	c.mu.Lock()
	if ended != nil && c.cli != ended {
		c.mu.Unlock()
		return
	}
	cli, stop := c.cli, c.stopFn
	if cli == nil && ended == nil && c.stopFn == nil {
		// Nothing to tear down (closing a conn that is down).
		c.mu.Unlock()
		return
	}
	c.cli, c.stopFn, c.up = nil, nil, false // why stays, for the calls that ended with it, until the next session starts
	if why != nil {
		c.lastErr = c.s.redact(why.Error())
	}
	c.ready = make(chan struct{})
	closing := c.closed
	c.mu.Unlock()
	if c == c.s.main && !closing {
		// Not when it is closing: the upstream is gone from the serving
		// snapshot (Retire deleted its series) or served by a new
		// session of the same name, whose gauge this is.
		c.s.h.Metrics.UpstreamUp.WithLabelValues(c.s.name()).Set(0)
	}
	if stop != nil {
		stop()
	}
	if cli != nil {
		_ = cli.Close()
	}
}

// isClosed reports whether c was closed.
func (c *conn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// close ends c for good.
func (c *conn) close() {
	c.mu.Lock()
	c.closed = true
	r := c.ready
	c.mu.Unlock()
	c.teardown(nil, nil)
	c.mu.Lock()
	select { // wake the calls waiting for a session: there will be none
	case <-r:
	default:
		close(r)
	}
	c.mu.Unlock()
	select {
	case c.wakeup <- struct{}{}:
	default:
	}
}

// exitReason is why the session that ended signalled ended ended: the
// process's exit status, or the broken connection.
func (c *conn) exitReason() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.why
}
