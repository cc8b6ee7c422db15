package loader

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/deadline"
	"github.com/wasmgate/wasmgate/loader/abi"
)

// Instance is one instantiated module. It runs one call at a time. It is
// the abi.Instance the plugin's ABI drives.
type Instance struct {
	p        *extism.Plugin
	stderr   *tailBuffer // what the guest printed, stdout and stderr
	maxInput int         // half of limits.memory
	dead     bool
	// done is the running call's ctx.Done(): a guest sleeping in a host
	// call wakes up when it is closed.
	done <-chan struct{}
	cc   *callCtx // CallUntil's context, made at its first call
}

var _ abi.Instance = (*Instance)(nil)

// Dead reports whether a call failed in a way that leaves the instance
// unusable (any abi.Kind but KindError); dead instances must be closed,
// not reused.
func (i *Instance) Dead() bool { return i.dead }

// Close releases the instance.
func (i *Instance) Close(ctx context.Context) { _ = i.p.Close(ctx) }

// Has reports whether the module exports name.
func (i *Instance) Has(name string) bool { return i.p.FunctionExists(name) }

// Call runs export with input. ctx's deadline stops a runaway call; the
// instance is then dead.
func (i *Instance) Call(ctx context.Context, export string, input []byte) ([]byte, error) {
	if err := i.check(export, input); err != nil {
		return nil, err
	}
	// One watcher of ctx for the whole call, rather than one per function
	// call wazero makes (the export, and each Extism kernel function the
	// guest calls through the host): when ctx ends, it closes the modules
	// the call ran in, and the running code notices at its next
	// termination check and fails. Nothing is released under the running
	// code: that happens in the call's own goroutine.
	wctx, stop := experimental.WithDoneWatcher(ctx)
	i.done = ctx.Done()
	out, err := i.run(ctx, wctx, export, input)
	i.done = nil
	if !stop() {
		// ctx ended during the call, or just after it: its modules are
		// closed.
		i.dead = true
	}
	if err != nil {
		return nil, i.callError(ctx.Err(), export, err)
	}
	return out, nil
}

// CallUntil runs export with input as Call does with a context that
// ends at at (w.WithTimeout's), without making one: the instance's own
// context, reused call after call, ends at at by an alarm of w, or when
// ctx ends first, which the alarm notices within parentPoll (so that a
// call does not register with ctx: most end long before). The instance
// is then dead.
func (i *Instance) CallUntil(ctx context.Context, w *deadline.Watch, at time.Time, export string, input []byte) ([]byte, error) {
	if err := i.check(export, input); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, endedError(export, err) // the instance stays usable
	}
	if i.cc == nil {
		i.cc = newCallCtx()
	}
	c := i.cc
	c.parent, c.at = ctx, at
	if d, ok := ctx.Deadline(); ok && d.Before(at) {
		c.at = d // ctx ends first
	}
	first := c.at
	if ctx.Done() != nil {
		first = earliest(c.at, time.Now().Add(parentPoll))
	}
	w.Set(c.alarm, first)
	i.done = c.done
	out, err := i.run(c, c.dw.Context(c), export, input)
	i.done = nil
	w.Clear(c.alarm)
	// The alarm rings under w's lock: once Clear has returned, the call
	// has ended (and its modules are closed) or never will.
	ended := c.Err()
	if ended != nil {
		i.dead = true
	}
	if err != nil {
		return nil, i.callError(ended, export, err)
	}
	return out, nil
}

// parentPoll is how often CallUntil's alarm looks whether the call's ctx
// has ended.
const parentPoll = 10 * time.Millisecond

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// check refuses a call of export with input that cannot run.
func (i *Instance) check(export string, input []byte) error {
	if i.dead {
		return &abi.CallError{Export: export, Kind: abi.KindExit, Msg: "instance is closed"}
	}
	if len(input) > i.maxInput {
		// The input is copied into the plugin's memory, and the guest
		// copies it again to read it: past half of the memory it cannot
		// fit.
		return &abi.CallError{Export: export, Kind: abi.KindRejected,
			Msg: fmt.Sprintf("its input of %d bytes does not fit in the plugin's memory (limits.memory is %s; an input may take at most half of it)", len(input), config.ByteSize(2*i.maxInput))}
	}
	return nil
}

// run calls export with input in wctx (ctx, watched). Its error is a
// *abi.CallError of kind KindError when the plugin failed the call
// itself, else what the runtime returned.
func (i *Instance) run(ctx, wctx context.Context, export string, input []byte) ([]byte, error) {
	i.stderr.b = i.stderr.b[:0]
	rc, out, err := i.p.CallWithContext(wctx, export, input)
	switch {
	case err == nil && rc == 0:
		return out, nil
	case err == nil:
		return nil, &abi.CallError{Export: export, Kind: abi.KindError, Msg: fmt.Sprintf("export %s returned %d", export, rc)}
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		return nil, err
	}
	// An error the plugin set itself leaves rc != 0 and the kernel's
	// error slot filled; anything else is a trap from the runtime.
	if msg := i.p.GetErrorWithContext(context.WithoutCancel(ctx)); msg != "" && msg == err.Error() {
		return nil, &abi.CallError{Export: export, Kind: abi.KindError, Msg: msg}
	}
	return nil, err
}

// callError is the *abi.CallError of a call of export that failed with err
// (from run), its context having ended with ended (nil: it did not).
func (i *Instance) callError(ended error, export string, err error) error {
	if ended != nil {
		i.dead = true
		return endedError(export, ended)
	}
	var ce *abi.CallError
	if errors.As(err, &ce) {
		return err // the plugin's own
	}
	i.dead = true
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		msg := fmt.Sprintf("plugin exited with code %d", exit.ExitCode())
		if r := i.stderr.crashReason(); r != "" {
			msg += ": " + r
		}
		return &abi.CallError{Export: export, Kind: abi.KindExit, Msg: msg}
	}
	msg := firstLine(err.Error())
	if r := i.stderr.crashReason(); r != "" {
		msg = r + " (" + msg + ")"
	}
	return &abi.CallError{Export: export, Kind: abi.KindTrap, Msg: msg}
}

// endedError is the *abi.CallError of a call of export whose context
// ended with err.
func endedError(export string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &abi.CallError{Export: export, Kind: abi.KindTimeout, Msg: "timed out"}
	}
	return &abi.CallError{Export: export, Kind: abi.KindCancelled, Msg: "cancelled"}
}

// callCtx is the context of an Instance's calls by CallUntil, one per
// instance, reused by each call in turn (an instance runs one call at a
// time): its values are the call's ctx's, its deadline the call's, and it
// ends (Done, Err) when the call's alarm finds its time up or its ctx
// ended, which also closes the modules the call runs in (dw). An instance whose call
// ended is dead, so it is never used again after it ends.
type callCtx struct {
	parent context.Context // the running call's ctx
	at     time.Time
	alarm  *deadline.Alarm
	dw     experimental.DoneWatcher

	mu   sync.Mutex
	done chan struct{}
	err  error
}

func newCallCtx() *callCtx {
	c := &callCtx{done: make(chan struct{})}
	c.alarm = deadline.NewAlarm(c.ring)
	return c
}

// ring, the alarm's function, ends the call when its time is up or its
// ctx has ended, else asks to ring again parentPoll later (or at its
// time).
func (c *callCtx) ring(now time.Time) time.Time {
	if !now.Before(c.at) {
		c.end(context.DeadlineExceeded)
		return time.Time{}
	}
	if err := c.parent.Err(); err != nil {
		c.end(err)
		return time.Time{}
	}
	return earliest(c.at, now.Add(parentPoll))
}

func (c *callCtx) Deadline() (time.Time, bool) { return c.at, true }
func (c *callCtx) Done() <-chan struct{}       { return c.done }
func (c *callCtx) Value(key any) any           { return c.parent.Value(key) }

func (c *callCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// end ends the call with err and closes its modules, once.
func (c *callCtx) end(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	close(c.done)
	c.mu.Unlock()
	c.dw.Close(err)
}

func (c *callCtx) String() string { return "loader.Instance.CallUntil" }

// sleep is the guest's nanosleep (WASI poll_oneoff on a clock): it returns
// after ns nanoseconds, or as soon as the running call's context ends, so
// that limits.timeout stops a sleeping guest on time.
func (i *Instance) sleep(ns int64) {
	if ns <= 0 {
		return
	}
	t := time.NewTimer(time.Duration(ns))
	select {
	case <-t.C:
	case <-i.done:
		t.Stop()
	}
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

// tailBuffer keeps the last bytes a guest wrote to stdout or stderr, so a
// crash can be reported with the guest's own words (a Go panic message on
// stderr, a TinyGo one on stdout). Nothing a guest prints reaches the
// process's stdout, which belongs to the stdio transport.
type tailBuffer struct{ b []byte }

const tailMax = 4 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = append(t.b[:0], t.b[len(t.b)-tailMax:]...)
	}
	return len(p), nil
}

// crashReason picks the most telling line of what the guest printed.
func (t *tailBuffer) crashReason() string {
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return strings.TrimSpace(l)
		}
	}
	if len(lines) > 0 && lines[len(lines)-1] != "" {
		return strings.TrimSpace(lines[len(lines)-1])
	}
	return ""
}
