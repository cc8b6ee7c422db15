package plugin

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wasmgate/wasmgate/loader"
)

// pool holds the instances of one plugin, as its instances setting says:
//
//   - pool: idle instances are reused by any call; at most
//     limits.concurrency run at once.
//   - single: one instance runs every call, one at a time (the pool of
//     one that pool is with concurrency 1).
//   - session: each MCP session has an instance of its own, which runs its
//     calls one at a time and is closed when the session ends; a call
//     outside a session gets a fresh instance, closed after it.
//
// Whatever the scope, at most limits.concurrency calls of the plugin run
// at once, and at most server.max_concurrent_calls in the whole gateway
// (slots, shared by every pool). A dead instance (timed out, trapped) is
// closed and replaced on demand: the state it kept is lost.
type pool struct {
	plugin *loader.Plugin
	scope  string
	sem    chan struct{}
	slots  chan struct{}
	live   atomic.Int64
	gauge  prometheus.Gauge

	mu sync.Mutex
	// idle holds the instances no call runs on (pool and single), the
	// one used last on top: a call takes the instance whose memory is
	// most likely still in the CPU's caches, and the ones below stay
	// cold until the load needs them. A channel's queue would hand out
	// the instance idle longest, touching every instance's memory in
	// turn.
	idle     []*loader.Instance
	sessions map[string]*sessionSlot // session scope, by session id
}

// sessionSlot is a session's instance.
type sessionSlot struct {
	turn  chan struct{} // held by the session's running call
	inst  *loader.Instance
	ended bool // the session ended: its instance closes after the running call
}

func newPool(p *loader.Plugin, first *loader.Instance, gauge prometheus.Gauge, slots chan struct{}) *pool {
	n := p.Spec.Limits.Concurrency
	pl := &pool{
		plugin:   p,
		scope:    p.Spec.Instances,
		sem:      make(chan struct{}, n),
		slots:    slots,
		idle:     make([]*loader.Instance, 0, n),
		gauge:    gauge,
		sessions: map[string]*sessionSlot{},
	}
	if first == nil {
		return pl
	}
	pl.add(1)
	if pl.scope == loader.InstancesSession {
		// Every session starts from a fresh instance.
		pl.discard(context.Background(), first)
	} else {
		pl.idle = append(pl.idle, first)
	}
	return pl
}

func (p *pool) add(n int64) {
	p.live.Add(n)
	p.gauge.Add(float64(n))
}

// acquire waits for a free slot of the plugin, then of the gateway, and
// returns an instance for one call made in the MCP session (""
// outside one); release gives it back. waited reports whether the call
// had to wait for anything (the session's turn, a slot, a new instance
// to start) rather than finding it free.
func (p *pool) acquire(ctx context.Context, session string) (inst *loader.Instance, release func(), waited bool, err error) {
	var slot *sessionSlot
	if p.scope == loader.InstancesSession && session != "" {
		if slot, waited, err = p.turn(ctx, session); err != nil {
			return nil, nil, true, err
		}
	}
	w, err := take(ctx, p.sem)
	if err != nil {
		p.endTurn(slot)
		return nil, nil, true, err
	}
	waited = waited || w
	if w, err = take(ctx, p.slots); err != nil {
		<-p.sem
		p.endTurn(slot)
		return nil, nil, true, err
	}
	waited = waited || w
	free := func() {
		<-p.slots
		<-p.sem
	}
	inst, started, err := p.instance(ctx, slot)
	if err != nil {
		free()
		p.endTurn(slot)
		return nil, nil, true, err
	}
	return inst, func() {
		p.put(ctx, inst, slot)
		free()
		p.endTurn(slot)
	}, waited || started, nil
}

// turn waits until no other call of session runs, and returns its slot;
// busy reports whether one did.
func (p *pool) turn(ctx context.Context, session string) (slot *sessionSlot, busy bool, err error) {
	p.mu.Lock()
	slot = p.sessions[session]
	if slot == nil {
		slot = &sessionSlot{turn: make(chan struct{}, 1)}
		p.sessions[session] = slot
	}
	p.mu.Unlock()
	if busy, err = take(ctx, slot.turn); err != nil {
		return nil, true, err
	}
	return slot, busy, nil
}

// take puts a token into ch, waiting while it is full until ctx ends;
// waited reports whether it was full.
func take(ctx context.Context, ch chan struct{}) (waited bool, err error) {
	select {
	case ch <- struct{}{}:
		return false, nil
	default:
	}
	select {
	case ch <- struct{}{}:
		return true, nil
	case <-ctx.Done():
		return true, ctx.Err()
	}
}

func (p *pool) endTurn(slot *sessionSlot) {
	if slot != nil {
		<-slot.turn
	}
}

// instance is the instance a call runs on: the session's (started if it
// has none), an idle one, or a new one; started reports a new one.
func (p *pool) instance(ctx context.Context, slot *sessionSlot) (inst *loader.Instance, started bool, err error) {
	if slot != nil && slot.inst != nil {
		return slot.inst, false, nil
	}
	if slot == nil && p.scope != loader.InstancesSession {
		p.mu.Lock()
		if n := len(p.idle); n > 0 {
			inst := p.idle[n-1]
			p.idle[n-1] = nil
			p.idle = p.idle[:n-1]
			p.mu.Unlock()
			return inst, false, nil
		}
		p.mu.Unlock()
	}
	inst, err = p.plugin.NewInstance(context.WithoutCancel(ctx))
	if err != nil {
		return nil, true, err
	}
	p.add(1)
	if slot != nil {
		slot.inst = inst
	}
	return inst, true, nil
}

// put takes an instance back after a call; a dead one, one whose session
// ended and one made for a call outside a session are closed.
func (p *pool) put(ctx context.Context, inst *loader.Instance, slot *sessionSlot) {
	switch {
	case slot != nil:
		p.mu.Lock()
		ended := slot.ended
		p.mu.Unlock()
		if inst.Dead() || ended {
			slot.inst = nil
			p.discard(ctx, inst)
		}
	case p.scope == loader.InstancesSession || inst.Dead():
		p.discard(ctx, inst)
	default:
		// At most limits.concurrency instances run at once (sem), so the
		// stack never holds more; the check keeps that true whatever
		// changes around it.
		p.mu.Lock()
		keep := len(p.idle) < cap(p.sem)
		if keep {
			p.idle = append(p.idle, inst)
		}
		p.mu.Unlock()
		if !keep {
			p.discard(ctx, inst)
		}
	}
}

// endSession closes the instance of a session that ended, at once if no
// call of it runs, else when its call ends.
func (p *pool) endSession(ctx context.Context, session string) {
	p.mu.Lock()
	slot := p.sessions[session]
	delete(p.sessions, session)
	if slot != nil {
		slot.ended = true
	}
	p.mu.Unlock()
	if slot == nil {
		return
	}
	select {
	case slot.turn <- struct{}{}:
		// No call runs, and none can start: the slot is no longer listed
		// (a call that found it before is waiting for its turn, and
		// closes the instance after running, since the session ended).
		if slot.inst != nil {
			p.discard(ctx, slot.inst)
			slot.inst = nil
		}
		<-slot.turn
	default:
	}
}

func (p *pool) discard(ctx context.Context, inst *loader.Instance) {
	inst.Close(context.WithoutCancel(ctx))
	p.add(-1)
}

// close releases every instance, not the compiled module (its owner
// keeps or closes it). Callers guarantee no call is running.
func (p *pool) close(ctx context.Context) {
	p.mu.Lock()
	for id, slot := range p.sessions {
		if slot.inst != nil {
			p.discard(ctx, slot.inst)
		}
		delete(p.sessions, id)
	}
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, inst := range idle {
		p.discard(ctx, inst)
	}
}
