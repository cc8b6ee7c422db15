package loader

import (
	"context"
	"path/filepath"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/abi/hypermcp"
	"github.com/wasmgate/wasmgate/loader/abi/seaflea"
	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/fetch/https"
	"github.com/wasmgate/wasmgate/loader/fetch/oci"
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
func builtinFetchers(opts fetch.Options) fetch.Registry {
	return fetch.Registry{
		"":      fetch.File{},
		"oci":   oci.New(opts),
		"https": https.New(opts),
		"http":  https.New(opts), // loopback hosts only
	}
}

// moduleCacheDir is where modules fetched from the network are cached,
// beside the compiled code in the compilation cache dir: <dir>/modules.
func moduleCacheDir(compileDir string) string {
	if compileDir == "" {
		return ""
	}
	return filepath.Join(compileDir, "modules")
}

// Fetch gets the module spec names, checked against its sha256 pin;
// modules from the network are cached beside the compiled code.
func (c *Compiler) Fetch(ctx context.Context, spec PluginSpec) (fetch.Module, error) {
	return c.fetchers.Fetch(ctx, fetch.Spec{Plugin: spec.Name, Key: spec.Key, Source: spec.Path, SHA256: spec.SHA256, Verify: spec.fetchVerifier()})
}

// Fetch gets the module spec names, checked against its sha256 pin,
// caching nothing (Compiler.Fetch caches modules from the network).
func Fetch(ctx context.Context, spec PluginSpec) (fetch.Module, error) {
	return builtinFetchers(fetch.Options{}).Fetch(ctx, fetch.Spec{Plugin: spec.Name, Key: spec.Key, Source: spec.Path, SHA256: spec.SHA256, Verify: spec.fetchVerifier()})
}
