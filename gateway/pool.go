package gateway

import (
	"context"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wasmgate/wasmgate/loader"
)

// pool holds the instances of one plugin. At most limits.concurrency calls
// of the plugin run at once, and at most server.max_concurrent_calls in the
// whole gateway (slots, shared by every pool); idle instances are reused,
// dead ones (timed out, trapped) are closed and replaced on demand.
type pool struct {
	plugin *loader.Plugin
	sem    chan struct{}
	slots  chan struct{}
	idle   chan *loader.Instance
	live   atomic.Int64
	gauge  prometheus.Gauge
}

func newPool(p *loader.Plugin, first *loader.Instance, gauge prometheus.Gauge, slots chan struct{}) *pool {
	n := p.Spec.Limits.Concurrency
	pl := &pool{
		plugin: p,
		sem:    make(chan struct{}, n),
		slots:  slots,
		idle:   make(chan *loader.Instance, n),
		gauge:  gauge,
	}
	if first != nil {
		pl.idle <- first
		pl.live.Add(1)
		gauge.Add(1)
	}
	return pl
}

// get waits for a free slot of the plugin, then of the gateway, and
// returns an instance for one call.
func (p *pool) get(ctx context.Context) (*loader.Instance, error) {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		<-p.sem
		return nil, ctx.Err()
	}
	select {
	case inst := <-p.idle:
		return inst, nil
	default:
	}
	inst, err := p.plugin.NewInstance(context.WithoutCancel(ctx))
	if err != nil {
		<-p.slots
		<-p.sem
		return nil, err
	}
	p.live.Add(1)
	p.gauge.Add(1)
	return inst, nil
}

// put returns an instance after a call; a dead one is closed.
func (p *pool) put(ctx context.Context, inst *loader.Instance) {
	if inst.Dead() {
		p.discard(ctx, inst)
	} else {
		select {
		case p.idle <- inst:
		default:
			p.discard(ctx, inst)
		}
	}
	<-p.slots
	<-p.sem
}

func (p *pool) discard(ctx context.Context, inst *loader.Instance) {
	inst.Close(context.WithoutCancel(ctx))
	p.live.Add(-1)
	p.gauge.Add(-1)
}

// close releases every idle instance and the compiled module. Callers
// guarantee no call is running.
func (p *pool) close(ctx context.Context) {
	for {
		select {
		case inst := <-p.idle:
			p.discard(ctx, inst)
		default:
			_ = p.plugin.Close(ctx)
			return
		}
	}
}
