//go:build wasip1

// Package pdk is the wasmgate plugin development kit: what a plugin written in
// Go imports, next to github.com/extism/go-pdk, to be served by wasmgate.
//
// It provides
//
//   - the JSON shapes of the sea-flea plugin ABI as Go types ([Tool],
//     [Resource], [ResourceContent], [Prompt], [PromptMessage], ...), and
//     [ResourceRequest], the input of a resource template's export;
//   - the host key-value store ([KVGet], [KVSet], [KVDelete]), shared by every
//     instance of the plugin;
//   - [HTTPSend], which sends go-pdk's HTTPRequest through the gateway and
//     returns its refusals and failures as errors;
//   - small helpers for writing exports: [Arguments] (the cheap way to read
//     a call's arguments), [Args], [ReadResourceRequest], [Information],
//     [Text] and [Fail], and the raw [Input] and [Output].
//
// Interceptors (docs/interceptors.md) import its subpackage
// github.com/wasmgate/wasmgate/pdk/intercept.
//
// Every file of this package is built only for GOOS=wasip1. Plugins are
// built with the standard Go toolchain:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o plugin.wasm .
//
// and export their functions with //go:wasmexport. An export returns an
// int32: 0 for success, non-zero for failure (with the message set by
// [Fail], or by go-pdk's SetError).
//
// A minimal tool:
//
//	//go:wasmexport tools_information
//	func toolsInformation() int32 {
//		return wasmgate.Information([]wasmgate.Tool{{
//			Name:        "shout",
//			Description: "Upper-cases a text",
//			InputSchema: wasmgate.Schema(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
//		}})
//	}
//
//	//go:wasmexport shout
//	func shout() int32 {
//		args, err := wasmgate.Arguments()
//		if err != nil {
//			return wasmgate.Fail(err)
//		}
//		text, ok := args.String("text")
//		if !ok {
//			return wasmgate.Fail(errors.New(`Invalid argument "text": expected a string`))
//		}
//		return wasmgate.Text(strings.ToUpper(text))
//	}
//
// See docs/plugins.md in the wasmgate repository for the whole ABI.
package pdk
