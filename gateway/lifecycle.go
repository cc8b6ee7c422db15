package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
)

// service is one part of a running gateway that starts and stops: a
// listener, the stdio transport, the file watcher. start returns once the
// service serves (a listener is bound); the goroutines it needs are run
// with lifecycle.goServe. stop ends it within ctx. (What a config
// declares is a Component of a snapshot; a service runs for the life of
// the process.)
type service struct {
	name  string
	start func(ctx context.Context) error
	stop  func(ctx context.Context)
	// quiesce, when set, stops taking new work at once (a listener
	// closes), before any service stops; stop then drains.
	quiesce func()
}

// lifecycle starts services in order and stops them in reverse. A start
// that fails stops what already started. It owns the goroutines the
// services serve on and collects their errors.
//
// It is ours rather than github.com/oklog/run's Group (Prometheus's) or
// errgroup: a run.Group starts its actors together and, when one
// returns, interrupts all of them at once and concurrently. A gateway's
// shutdown is an order: the MCP listener stops accepting first
// (quiesce), then running calls drain, then stdio, then the relay's
// pages, then the plugins close, and the admin listener (health,
// metrics) answers until the end; and a start is an order too (a
// listener is bound before the next service starts, and one that fails
// stops only those before it). Neither library expresses that order;
// the goroutines themselves are a sync.WaitGroup and one error channel.
type lifecycle struct {
	log     *slog.Logger
	started []service
	wg      sync.WaitGroup
	errc    chan error
}

func newLifecycle(log *slog.Logger) *lifecycle {
	return &lifecycle{log: log, errc: make(chan error, 8)}
}

// start starts each component in order; on the first failure it stops the
// started ones in reverse and returns the error.
func (l *lifecycle) start(ctx context.Context, cs ...service) error {
	for _, c := range cs {
		if err := c.start(ctx); err != nil {
			l.stop(context.WithoutCancel(ctx))
			return fmt.Errorf("start %s: %w", c.name, err)
		}
		l.started = append(l.started, c)
	}
	return nil
}

// quiesce has every started service that can stop taking new work do
// so now, in reverse order; stop still stops them all.
func (l *lifecycle) quiesce() {
	for i := len(l.started) - 1; i >= 0; i-- {
		if q := l.started[i].quiesce; q != nil {
			q()
		}
	}
}

// stop stops the started services in reverse order, then waits for
// their goroutines.
func (l *lifecycle) stop(ctx context.Context) {
	for i := len(l.started) - 1; i >= 0; i-- {
		c := l.started[i]
		l.log.Debug("stopping", "service", c.name)
		c.stop(ctx)
	}
	l.started = nil
	l.wg.Wait()
}

// goServe runs fn on a goroutine owned by l; an error it returns (other
// than a normal close) ends the gateway through failed.
func (l *lifecycle) goServe(name string, fn func() error) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		if err := fn(); err != nil && !errors.Is(err, context.Canceled) {
			select {
			case l.errc <- fmt.Errorf("%s: %w", name, err):
			default:
			}
		}
	}()
}

// failed delivers the first error a serving goroutine returned.
func (l *lifecycle) failed() <-chan error { return l.errc }
