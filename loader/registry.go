package loader

import (
	"context"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/abi/seaflea"
	"github.com/wasmgate/wasmgate/loader/fetch"
)

// builtinABIs are the plugin ABIs the loader knows, in the order they are
// tried: a module is served by the first whose Detect accepts it. Adding
// an ABI is adding its package and a line here.
func builtinABIs() []abi.ABI {
	return []abi.ABI{
		seaflea.ABI{}, // accepts every module, so it stays last
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
