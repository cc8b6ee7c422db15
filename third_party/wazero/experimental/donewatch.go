package experimental

import (
	"context"

	"github.com/tetratelabs/wazero/internal/donewatch"
	"github.com/tetratelabs/wazero/internal/expctxkeys"
)

// WithDoneWatcher returns a context for the function calls of one unit of
// work (a request, say) on modules of a runtime configured with
// wazero.RuntimeConfig.WithCloseOnContextDone, and a function to call once
// the last of those calls has returned.
//
// Without it, each function call made with a context that can be done
// watches the context itself, which costs a registration with the context
// (before, a goroutine) per call; a unit of work that makes many short
// calls, such as a host function calling back into a module, pays it for
// each. With it, one watcher serves every call made with the returned
// context: when ctx is done, every module that ran a call with the
// returned context is closed with sys.ExitCodeContextCanceled or
// sys.ExitCodeDeadlineExceeded, as its own watcher would have closed it,
// even if its call has returned already. A call still running then fails
// with a *sys.ExitError at its next termination check.
//
// stop reports whether the watcher was stopped before ctx was done: when it
// returns false, the modules that ran calls were closed (or are being
// closed), even if every call succeeded.
//
// Note: This is an experimental API, and could change in the future.
func WithDoneWatcher(ctx context.Context) (_ context.Context, stop func() bool) {
	w := donewatch.New(ctx)
	return context.WithValue(ctx, expctxkeys.DoneWatcherKey{}, w), w.Stop
}

// DoneWatcher is the watcher of WithDoneWatcher without a context of its
// own: its owner ends the work by calling Close. It suits a goroutine that
// runs units of work one after another on the same modules (an instance
// of a pool, say) and bounds each itself: one DoneWatcher, reused until it
// is closed, serves them all, and a unit costs the allocation of its
// Context only. The zero value is ready to use; a DoneWatcher must not be
// copied after first use.
//
// Note: This is an experimental API, and could change in the future.
type DoneWatcher struct{ w donewatch.Watcher }

// Context returns ctx carrying d: every function call made with it, on a
// runtime configured with wazero.RuntimeConfig.WithCloseOnContextDone, is
// watched by d (ctx's own end is not: the caller closes d for that).
func (d *DoneWatcher) Context(ctx context.Context) context.Context {
	return context.WithValue(ctx, expctxkeys.DoneWatcherKey{}, &d.w)
}

// Close closes every module that ran a call with one of d's contexts, and
// every module that does from now on, as a context whose Err is err
// (context.DeadlineExceeded or context.Canceled) closes them: a call still
// running fails at its next termination check with a *sys.ExitError of
// sys.ExitCodeDeadlineExceeded or sys.ExitCodeContextCanceled. Only the
// first Close counts. It may be called from any goroutine.
func (d *DoneWatcher) Close(err error) { d.w.Close(err) }

// Closed reports whether Close was called.
func (d *DoneWatcher) Closed() bool { return d.w.Closed() }
