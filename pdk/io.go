//go:build wasip1

package pdk

import (
	"encoding/binary"

	extism "github.com/extism/go-pdk"
)

// The kernel's input and memory functions, which go-pdk also imports. A
// call of one is a round trip to the host, and go-pdk's Input and Store
// make one per 8 bytes and then one per remaining byte; input and store
// below make one per 8 bytes and one for the rest, by loading or storing
// the last 8 bytes again (overlapping what is already there).

//go:wasmimport extism:host/env input_length
func extismInputLength() uint64

//go:wasmimport extism:host/env input_load_u64
func extismInputLoadU64(offset uint64) uint64

//go:wasmimport extism:host/env input_load_u8
func extismInputLoadU8(offset uint64) uint32

//go:wasmimport extism:host/env store_u64
func extismStoreU64(offset uint64, v uint64)

//go:wasmimport extism:host/env output_set
func extismOutputSet(offset, length uint64)

// input is the export's input (extism.Input), in at most len/8+1 host
// calls after its length.
func input() []byte {
	n := extismInputLength()
	buf := make([]byte, n)
	if n < 8 {
		for i := range n {
			buf[i] = byte(extismInputLoadU8(i))
		}
		return buf
	}
	var i uint64
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], extismInputLoadU64(i))
	}
	if i < n {
		binary.LittleEndian.PutUint64(buf[n-8:], extismInputLoadU64(n-8))
	}
	return buf
}

// store copies b into the block at offset, which is at least 8 bytes
// long and at least len(b), in 8-byte stores.
func store(offset uint64, b []byte) {
	if len(b) < 8 {
		var w [8]byte
		copy(w[:], b)
		extismStoreU64(offset, binary.LittleEndian.Uint64(w[:]))
		return
	}
	n := uint64(len(b))
	var i uint64
	for ; i+8 <= n; i += 8 {
		extismStoreU64(offset+i, binary.LittleEndian.Uint64(b[i:]))
	}
	if i < n {
		extismStoreU64(offset+n-8, binary.LittleEndian.Uint64(b[n-8:]))
	}
}

// setOutput sets b as the export's output: a block of at least 8 bytes
// (so that one store fills a short output), of which the output is the
// first len(b).
func setOutput(b []byte) error {
	m := extism.Allocate(max(len(b), 8))
	if m.Offset() == 0 {
		return ErrNoMemory
	}
	store(m.Offset(), b)
	extismOutputSet(m.Offset(), uint64(len(b)))
	return nil
}
