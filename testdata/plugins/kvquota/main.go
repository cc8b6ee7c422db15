//go:build wasip1

// Command kvquota is a test fixture for the host key-value store's quota:
// its tool fill stores 1 MiB values under keys fill-0, fill-1, ... until
// the store refuses one, then outputs the error's message
// ("wasmgate: key-value store quota exceeded").
package main

import (
	"bytes"
	"fmt"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
)

func main() {}

// maxValues bounds the loop, so that a host without a quota is not
// filled forever: 1024 values of 1 MiB.
const maxValues = 1024

//go:wasmexport tools_information
func toolsInformation() int32 {
	return wasmgate.Information([]wasmgate.Tool{{
		Name:        "fill",
		Description: "Stores 1 MiB values until the key-value store's quota refuses one",
		InputSchema: wasmgate.Schema(`{"type":"object"}`),
	}})
}

//go:wasmexport fill
func fill() int32 {
	value := bytes.Repeat([]byte{'q'}, 1<<20)
	for i := range maxValues {
		if err := wasmgate.KVSet(fmt.Sprintf("fill-%d", i), value); err != nil {
			return wasmgate.Text(err.Error())
		}
	}
	return wasmgate.Fail(fmt.Errorf("kvquota: stored %d MiB and the quota never refused", maxValues))
}
