//go:build wasip1

package pdk

import (
	"encoding/binary"
	"runtime"
	"unsafe"
)

// The export's input and output, each in one copy: wasmgate's host
// provides wasmgate_input_read and wasmgate_output_set beside the
// kernel's functions (third_party/extism-go-sdk/PATCHES.md), where
// go-pdk's Input and Output make one host call per 8 bytes (a 10 KiB
// input took about 1,300 host calls, most of a millisecond).

//go:wasmimport extism:host/env input_length
func extismInputLength() uint64

//go:wasmimport extism:host/env wasmgate_input_read
func wasmgateInputRead(ptr unsafe.Pointer, n uint32) uint32

//go:wasmimport extism:host/env wasmgate_output_set
func wasmgateOutputSet(ptr unsafe.Pointer, n uint32) uint32

//go:wasmimport extism:host/env store_u64
func extismStoreU64(offset uint64, v uint64)

// input is the export's input (extism.Input), copied in one host call
// after its length.
func input() []byte {
	n := extismInputLength()
	if n == 0 {
		return []byte{}
	}
	buf := make([]byte, n)
	got := wasmgateInputRead(unsafe.Pointer(&buf[0]), uint32(n))
	return buf[:got]
}

// setOutput sets b as the export's output, copied in one host call.
func setOutput(b []byte) error {
	var z [1]byte
	p := unsafe.Pointer(&z[0])
	if len(b) > 0 {
		p = unsafe.Pointer(&b[0])
	}
	failed := wasmgateOutputSet(p, uint32(len(b)))
	runtime.KeepAlive(b)
	if failed != 0 {
		return ErrNoMemory
	}
	return nil
}

// store copies b into the block at offset, which is at least 8 bytes
// long and at least len(b), in 8-byte stores (the last one overlapping
// what is already there).
func store(offset uint64, b []byte) {
	n := uint64(len(b))
	var i uint64
	for ; i+8 <= n; i += 8 {
		extismStoreU64(offset+i, binary.LittleEndian.Uint64(b[i:]))
	}
	if i < n {
		extismStoreU64(offset+n-8, binary.LittleEndian.Uint64(b[n-8:]))
	}
}
