// Package donewatch implements experimental.WithDoneWatcher: one watcher of
// a context.Context shared by every function call made with it, instead of
// one per call.
package donewatch

import (
	"context"
	"sync"
	"time"
)

// Module is what a Watcher closes when its context is done: a
// wasm.ModuleInstance, closed without releasing its resources (the call
// running in it notices, fails, and releases them).
type Module interface {
	CloseOnContextDone(ctx context.Context)
}

// Watcher closes every module it was asked to watch once its context is
// done, until it is stopped, or once Close is called. Its methods are safe
// for concurrent use. The zero Watcher has no context: only Close ends it.
type Watcher struct {
	ctx  context.Context
	stop func() bool

	mu      sync.Mutex
	ended   context.Context // what closed the modules; nil until then
	modules []Module
	buf     [2]Module // most units of work run one or two modules
}

// New returns a Watcher of ctx.
func New(ctx context.Context) *Watcher {
	w := &Watcher{ctx: ctx}
	if ctx.Done() != nil {
		w.stop = context.AfterFunc(ctx, w.closeAll)
	}
	return w
}

func (w *Watcher) closeAll() { w.close(w.ctx) }

// Close closes every module watched, and every module watched from now on,
// as a context whose Err is err (context.DeadlineExceeded or
// context.Canceled) closes them. Only the first Close, or the end of the
// context, counts.
func (w *Watcher) Close(err error) { w.close(ended{err}) }

// Closed reports whether the watcher has closed its modules (or is closing
// them), by its context or by Close.
func (w *Watcher) Closed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ended != nil
}

func (w *Watcher) close(ctx context.Context) {
	w.mu.Lock()
	if w.ended != nil {
		w.mu.Unlock()
		return
	}
	w.ended = ctx
	modules := w.modules
	w.mu.Unlock()
	for _, m := range modules {
		m.CloseOnContextDone(ctx)
	}
}

// ended is a context that has ended with err: what CloseOnContextDone
// reads is its Err.
type ended struct{ err error }

func (ended) Deadline() (time.Time, bool) { return time.Time{}, false }
func (ended) Done() <-chan struct{}       { return closedChan }
func (e ended) Err() error                { return e.err }
func (ended) Value(any) any               { return nil }

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Watch adds m to the modules closed when the context is done, or closes
// it now if the context is done already.
func (w *Watcher) Watch(m Module) {
	w.mu.Lock()
	if ctx := w.ended; ctx != nil {
		w.mu.Unlock()
		m.CloseOnContextDone(ctx)
		return
	}
	for _, have := range w.modules {
		if have == m {
			w.mu.Unlock()
			return
		}
	}
	if w.modules == nil {
		w.modules = w.buf[:0]
	}
	w.modules = append(w.modules, m)
	w.mu.Unlock()
}

// Stop stops watching. It reports whether no module was or will be closed
// by the watcher: false means the context was done first, and the modules
// it watched are closed (or being closed).
func (w *Watcher) Stop() bool {
	if w.stop == nil {
		return true
	}
	return w.stop()
}
