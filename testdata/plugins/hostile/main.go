//go:build wasip1

// Command hostile is a test fixture: a plugin whose tools misbehave on
// purpose, so that the gateway's limits can be tested.
//
//	spin   loops forever (stopped only by the call's timeout)
//	bomb   allocates memory without bound, 1 MiB at a time, keeping it all
//	crash  panics (the Go runtime then exits the module with status 2)
//	trap   performs an out-of-bounds memory access: a real WebAssembly trap
//	flood  outputs 8 MiB
//	sleep  {"ms": n} sleeps n milliseconds, then outputs "slept <n>ms"
//	echo   outputs its input unchanged
package main

import (
	"bytes"
	"fmt"
	"time"
	"unsafe"

	extism "github.com/extism/go-pdk"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
	"github.com/wasmgate/wasmgate/pdk/jsnum"
)

func main() {}

var anyObject = wasmgate.Schema(`{"type":"object"}`)

//go:wasmexport tools_information
func toolsInformation() int32 {
	return wasmgate.Information([]wasmgate.Tool{
		{Name: "spin", Description: "Loops forever", InputSchema: anyObject},
		{Name: "bomb", Description: "Allocates memory without bound", InputSchema: anyObject},
		{Name: "crash", Description: "Panics", InputSchema: anyObject},
		{Name: "trap", Description: "Traps with an out-of-bounds memory access", InputSchema: anyObject},
		{Name: "flood", Description: "Outputs 8 MiB", InputSchema: anyObject},
		{Name: "sleep", Description: "Sleeps for ms milliseconds", InputSchema: wasmgate.Schema(`{"type":"object","properties":{"ms":{"type":"number"}},"required":["ms"]}`)},
		{Name: "echo", Description: "Outputs its input", InputSchema: anyObject},
	})
}

// counter is package state so that the compiler must keep the loop.
var counter uint64

//go:wasmexport spin
func spin() int32 {
	// The exit condition depends on the input's length, which no input
	// short of 2^64 bytes satisfies.
	limit := uint64(len(extism.Input())) - 1<<63
	for counter != limit {
		counter += 2
	}
	return wasmgate.Text("unreachable")
}

// hoard keeps every allocation of bomb alive.
var hoard [][]byte

//go:wasmexport bomb
func bomb() int32 {
	for {
		b := make([]byte, 1<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1 // touch every page
		}
		hoard = append(hoard, b)
	}
}

//go:wasmexport crash
func crash() int32 {
	panic("hostile: crash on purpose")
}

//go:wasmexport trap
func trap() int32 {
	// The Go compiler checks pointers against nil only, so a load from an
	// address past the end of linear memory reaches the WebAssembly
	// engine, which traps ("out of bounds memory access"). The address is
	// computed from the input so that nothing is folded at compile time.
	addr := uintptr(0xFFFF_FF00) + uintptr(len(extism.Input())&0x7F)
	p := (*byte)(unsafe.Add(unsafe.Pointer(nil), addr))
	return int32(*p)
}

//go:wasmexport flood
func flood() int32 {
	extism.Output(bytes.Repeat([]byte("x"), 8<<20))
	return 0
}

//go:wasmexport sleep
func sleep() int32 {
	var in struct {
		MS *float64 `json:"ms"`
	}
	if err := wasmgate.Args(&in); err != nil {
		return wasmgate.Fail(err)
	}
	if in.MS == nil || *in.MS < 0 {
		return wasmgate.Fail(fmt.Errorf(`Invalid argument "ms": expected a non-negative number`))
	}
	time.Sleep(time.Duration(*in.MS * float64(time.Millisecond)))
	return wasmgate.Text("slept " + jsnum.Format(*in.MS) + "ms")
}

//go:wasmexport echo
func echo() int32 {
	extism.Output(extism.Input())
	return 0
}
