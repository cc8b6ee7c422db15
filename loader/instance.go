package loader

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmgate/wasmgate/config"
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
	if i.dead {
		return nil, &abi.CallError{Export: export, Kind: abi.KindExit, Msg: "instance is closed"}
	}
	if len(input) > i.maxInput {
		// The input is copied into the plugin's memory, and the guest
		// copies it again to read it: past half of the memory it cannot
		// fit.
		return nil, &abi.CallError{Export: export, Kind: abi.KindRejected,
			Msg: fmt.Sprintf("its input of %d bytes does not fit in the plugin's memory (limits.memory is %s; an input may take at most half of it)", len(input), config.ByteSize(2*i.maxInput))}
	}
	i.stderr.b = i.stderr.b[:0]
	// One watcher of ctx for the whole call, rather than one per function
	// call wazero makes (the export, and each Extism kernel function the
	// guest calls through the host): when ctx ends, it closes the modules
	// the call ran in, and the running code notices at its next
	// termination check and fails. Nothing is released under the running
	// code: that happens in the call's own goroutine.
	wctx, stop := experimental.WithDoneWatcher(ctx)
	i.done = ctx.Done()
	rc, out, err := i.p.CallWithContext(wctx, export, input)
	i.done = nil
	if !stop() {
		// ctx ended during the call, or just after it: its modules are
		// closed.
		i.dead = true
	}
	if err == nil && rc == 0 {
		return out, nil
	}
	if ctx.Err() != nil {
		i.dead = true
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, &abi.CallError{Export: export, Kind: abi.KindTimeout, Msg: "timed out"}
		}
		return nil, &abi.CallError{Export: export, Kind: abi.KindCancelled, Msg: "cancelled"}
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		i.dead = true
		msg := fmt.Sprintf("plugin exited with code %d", exit.ExitCode())
		if r := i.stderr.crashReason(); r != "" {
			msg += ": " + r
		}
		return nil, &abi.CallError{Export: export, Kind: abi.KindExit, Msg: msg}
	}
	if err != nil {
		// An error the plugin set itself leaves rc != 0 and the kernel's
		// error slot filled; anything else is a trap from the runtime.
		if msg := i.p.GetErrorWithContext(context.WithoutCancel(ctx)); msg != "" && msg == err.Error() {
			return nil, &abi.CallError{Export: export, Kind: abi.KindError, Msg: msg}
		}
		i.dead = true
		msg := firstLine(err.Error())
		if r := i.stderr.crashReason(); r != "" {
			msg = r + " (" + msg + ")"
		}
		return nil, &abi.CallError{Export: export, Kind: abi.KindTrap, Msg: msg}
	}
	// rc != 0 without an error message.
	return nil, &abi.CallError{Export: export, Kind: abi.KindError, Msg: fmt.Sprintf("export %s returned %d", export, rc)}
}

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
