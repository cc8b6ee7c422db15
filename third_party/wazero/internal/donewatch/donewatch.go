// Package donewatch implements experimental.WithDoneWatcher: one watcher of
// a context.Context shared by every function call made with it, instead of
// one per call.
package donewatch

import (
	"context"
	"sync"
)

// Module is what a Watcher closes when its context is done: a
// wasm.ModuleInstance, closed without releasing its resources (the call
// running in it notices, fails, and releases them).
type Module interface {
	CloseOnContextDone(ctx context.Context)
}

// Watcher closes every module it was asked to watch once its context is
// done, until it is stopped. Its methods are safe for concurrent use.
type Watcher struct {
	ctx  context.Context
	stop func() bool

	mu      sync.Mutex
	done    bool
	modules []Module
	buf     [2]Module // most units of work run one or two modules
}

// New returns a Watcher of ctx.
func New(ctx context.Context) *Watcher {
	w := &Watcher{ctx: ctx}
	w.modules = w.buf[:0]
	if ctx.Done() != nil {
		w.stop = context.AfterFunc(ctx, w.closeAll)
	}
	return w
}

func (w *Watcher) closeAll() {
	w.mu.Lock()
	w.done = true
	modules := w.modules
	w.mu.Unlock()
	for _, m := range modules {
		m.CloseOnContextDone(w.ctx)
	}
}

// Watch adds m to the modules closed when the context is done, or closes
// it now if the context is done already.
func (w *Watcher) Watch(m Module) {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		m.CloseOnContextDone(w.ctx)
		return
	}
	for _, have := range w.modules {
		if have == m {
			w.mu.Unlock()
			return
		}
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
