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
