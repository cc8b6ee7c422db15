//go:build wasip1

// Command badinfo is a test fixture: its tools_information export panics,
// so loading the plugin must fail cleanly.
package main

func main() {}

//go:wasmexport tools_information
func toolsInformation() int32 {
	panic("badinfo: tools_information fails on purpose")
}
