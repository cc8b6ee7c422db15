package loader

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/wasmgate/wasmgate/internal/deadline"
)

// ErrNoInstance is Pool.Call's error when no instance was free before
// the call's deadline (its own, or its context's if that came first).
var ErrNoInstance = errors.New("no instance was free in time")

// Pool runs the calls of a module that serves the gateway itself (an
// interceptor, a ranker): at most n at once, each on an instance of its
// own, until a deadline (waiting for an instance included). The instance
// used last is reused first, so that its memory is likely still in the
// CPU's caches (a queue would hand out the one idle longest, each in
// turn); an instance a call leaves dead (a timeout, a trap) is closed,
// and a new one started when needed. Safe for concurrent use.
type Pool struct {
	plugin *Plugin
	sem    chan struct{} // one per running call
	slots  chan struct{} // the gateway's, one per WebAssembly call; nil: none
	// timeouts ends calls at their deadlines without a runtime timer
	// each (internal/deadline).
	timeouts deadline.Watch

	mu   sync.Mutex
	idle []*pooled // the one used last on top
}

// pooled is an instance of a Pool with the buffer its inputs are
// written in.
type pooled struct {
	*Instance
	buf []byte
}

// maxKeptInput bounds the input buffer an instance keeps between calls.
const maxKeptInput = 1 << 20

// NewPool returns a pool of at most n instances of p, first among them.
// slots, if not nil, are the gateway-wide WebAssembly call slots
// (server.max_concurrent_calls) each call takes one of.
func NewPool(p *Plugin, first *Instance, n int, slots chan struct{}) *Pool {
	n = max(n, 1)
	pl := &Pool{plugin: p, sem: make(chan struct{}, n), slots: slots, idle: make([]*pooled, 0, n)}
	pl.idle = append(pl.idle, &pooled{Instance: first})
	return pl
}

// SHA256 is the digest of the pool's module.
func (p *Pool) SHA256() string { return p.plugin.SHA256 }

// Size is the number of calls the pool runs at once (limits.concurrency).
func (p *Pool) Size() int { return cap(p.sem) }

// Call runs export on an instance until at, with the input write appends
// to the buffer it is given (the instance's own, reused). It fails with
// ErrNoInstance when no instance was free before at, with ctx's error
// when ctx ended while it waited, and with the instance's
// *abi.CallError when the call failed (or its failure to start one).
func (p *Pool) Call(ctx context.Context, at time.Time, export string, write func([]byte) []byte) ([]byte, error) {
	if err := p.acquire(ctx, at); err != nil {
		return nil, err
	}
	defer p.release()
	inst := p.take()
	if inst == nil {
		li, err := p.plugin.NewInstance(context.WithoutCancel(ctx))
		if err != nil {
			return nil, fmt.Errorf("instantiate: %w", err)
		}
		inst = &pooled{Instance: li}
	}
	inst.buf = write(inst.buf[:0])
	out, err := inst.CallUntil(ctx, &p.timeouts, at, export, inst.buf)
	if cap(inst.buf) > maxKeptInput {
		inst.buf = nil
	}
	if inst.Dead() {
		inst.Close(context.WithoutCancel(ctx))
	} else {
		p.mu.Lock()
		p.idle = append(p.idle, inst) // within cap: at most cap(sem) instances are out
		p.mu.Unlock()
	}
	return out, err
}

// Close closes the idle instances and the compiled module. No call may
// be running or start.
func (p *Pool) Close(ctx context.Context) error {
	for inst := p.take(); inst != nil; inst = p.take() {
		inst.Close(ctx)
	}
	p.timeouts.Stop()
	return p.plugin.Close(ctx)
}

// take takes the idle instance used last; nil if none is idle.
func (p *Pool) take() *pooled {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	inst := p.idle[n-1]
	p.idle[n-1] = nil
	p.idle = p.idle[:n-1]
	return inst
}

// acquire takes a run (sem) and a gateway call slot, waiting until at at
// most; release gives them back.
func (p *Pool) acquire(ctx context.Context, at time.Time) error {
	select {
	case p.sem <- struct{}{}:
		if p.slots == nil {
			return nil
		}
		select {
		case p.slots <- struct{}{}:
			return nil
		default:
		}
		<-p.sem
	default:
	}
	// Wait, until at.
	wctx, cancel := p.timeouts.WithTimeout(ctx, time.Until(at))
	defer cancel()
	ended := func() error {
		if errors.Is(wctx.Err(), context.DeadlineExceeded) {
			return ErrNoInstance // at, or ctx's own deadline before it
		}
		return wctx.Err()
	}
	select {
	case p.sem <- struct{}{}:
	case <-wctx.Done():
		return ended()
	}
	if p.slots != nil {
		select {
		case p.slots <- struct{}{}:
		case <-wctx.Done():
			<-p.sem
			return ended()
		}
	}
	return nil
}

// release gives back what acquire took.
func (p *Pool) release() {
	if p.slots != nil {
		<-p.slots
	}
	<-p.sem
}
