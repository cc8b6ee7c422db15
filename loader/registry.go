package loader

import (
	"context"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/abi/hypermcp"
	"github.com/wasmgate/wasmgate/loader/abi/seaflea"
	"github.com/wasmgate/wasmgate/loader/fetch"
)

// builtinABIs are the plugin ABIs the loader knows, in the order they are
// tried: a module is served by the first whose Detect accepts it. Adding
// an ABI is adding its package and a line here.
//
// sea-flea comes first: its plugins export one function per tool, which
// may be named like a hyper-mcp export (a tool "call", say), while no
// hyper-mcp plugin exports tools_information.
func builtinABIs() []abi.ABI {
	return []abi.ABI{
		seaflea.ABI{},
		hypermcp.V1{}, // call and describe
		hypermcp.V2{}, // any of its eight exports
	}
}

// builtinFetchers are the module sources the loader knows, by URL scheme
// ("" is a plain path). Adding a source is adding its Fetcher and a line
// here.
func builtinFetchers() fetch.Registry {
	return fetch.Registry{
		"": fetch.File{},
	}
}

// Fetch gets the module spec names, checked against its sha256 pin.
func Fetch(ctx context.Context, spec PluginSpec) (fetch.Module, error) {
	return builtinFetchers().Fetch(ctx, fetch.Spec{Plugin: spec.Name, Key: spec.Key, Source: spec.Path, SHA256: spec.SHA256})
}
