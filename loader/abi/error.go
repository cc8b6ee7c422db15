package abi

// Kind is how an export call failed.
type Kind int

const (
	// KindError is an error the plugin reported itself; the instance
	// stays usable.
	KindError Kind = iota
	// KindTimeout is a call stopped by its deadline (limits.timeout), or
	// one that timed out waiting for a free instance.
	KindTimeout
	// KindCancelled is a call whose caller went away.
	KindCancelled
	// KindTrap is a fault of the runtime: a WebAssembly trap (a Go panic
	// in an export ends in one), running out of memory, or an instance
	// that could not start.
	KindTrap
	// KindExit is a guest that exited (proc_exit), or a call on an
	// instance a previous failure left dead.
	KindExit
	// KindRejected is a call refused before it ran (its input is larger
	// than the plugin's memory can take); the instance stays usable.
	KindRejected
)

func (k Kind) String() string {
	switch k {
	case KindError:
		return "error"
	case KindTimeout:
		return "timeout"
	case KindCancelled:
		return "cancelled"
	case KindTrap:
		return "trap"
	case KindExit:
		return "exit"
	case KindRejected:
		return "rejected"
	}
	return "unknown"
}

// CallError is a failed export call. Every kind but KindError and
// KindRejected leaves the instance dead.
type CallError struct {
	Export string
	Kind   Kind
	Msg    string
}

func (e *CallError) Error() string { return e.Msg }
