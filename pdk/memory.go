//go:build wasip1

package pdk

import (
	"errors"

	extism "github.com/extism/go-pdk"
)

// ErrNoMemory is returned when the host's allocator refuses a block: the
// plugin has reached its limits.memory.
var ErrNoMemory = errors.New("wasmgate: out of plugin memory (limits.memory)")

// allocate copies b into a new block of Extism memory, checking the
// allocation first. go-pdk's AllocateBytes writes at offset 0 when the
// allocator fails, which corrupts the kernel's state; this never does.
func allocate(b []byte) (extism.Memory, error) {
	m := extism.Allocate(len(b))
	if m.Offset() == 0 && len(b) > 0 {
		return m, ErrNoMemory
	}
	if len(b) >= 8 {
		store(m.Offset(), b)
	} else {
		m.Store(b)
	}
	return m, nil
}

// output sets b as the export's output and returns 0, or reports that the
// output could not be allocated.
func output(b []byte) int32 {
	if err := setOutput(b); err != nil {
		// Setting the error needs memory too; the host reports a failed
		// export without a message as a failure all the same.
		return 1
	}
	return 0
}
