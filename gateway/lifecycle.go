package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
)

// component is one part of a running gateway that starts and stops: a
// listener, the stdio transport, the file watcher. start returns once the
// component serves (a listener is bound); the goroutines it needs are run
// with lifecycle.goServe. stop ends it within ctx.
type component struct {
	name  string
	start func(ctx context.Context) error
	stop  func(ctx context.Context)
}

// lifecycle starts components in order and stops them in reverse. A start
// that fails stops what already started. It owns the goroutines the
// components serve on and collects their errors.
type lifecycle struct {
	log     *slog.Logger
	started []component
	wg      sync.WaitGroup
	errc    chan error
}

func newLifecycle(log *slog.Logger) *lifecycle {
	return &lifecycle{log: log, errc: make(chan error, 8)}
}

// start starts each component in order; on the first failure it stops the
// started ones in reverse and returns the error.
func (l *lifecycle) start(ctx context.Context, cs ...component) error {
	for _, c := range cs {
		if err := c.start(ctx); err != nil {
			l.stop(context.WithoutCancel(ctx))
			return fmt.Errorf("start %s: %w", c.name, err)
		}
		l.started = append(l.started, c)
	}
	return nil
}

// stop stops the started components in reverse order, then waits for
// their goroutines.
func (l *lifecycle) stop(ctx context.Context) {
	for i := len(l.started) - 1; i >= 0; i-- {
		c := l.started[i]
		l.log.Debug("stopping", "component", c.name)
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
