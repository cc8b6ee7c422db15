package loader

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/egress"
	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/host"
	"github.com/wasmgate/wasmgate/loader/sandboxfs"
)

// Compiler compiles modules. It holds a wazero compilation cache shared by
// every module it compiles; with a directory the cache survives restarts.
type Compiler struct {
	cache  wazero.CompilationCache
	abis   []abi.ABI
	logger *slog.Logger
	own    egress.Listeners // the gateway's listeners, which plugin HTTP never reaches

	// fetchers get modules (Fetch), caching those from the network
	// beside the compiled code.
	fetchers fetch.Registry
}

// SetListenAddrs records the gateway's own listen addresses (ip:port, as
// net.Listener.Addr writes them). Plugin HTTP never connects to them, in
// plugins compiled before or after the call.
func (c *Compiler) SetListenAddrs(addrs ...string) error { return c.own.Set(addrs...) }

// NewCompiler returns a Compiler caching compiled code in dir, or in memory
// only when dir is "".
func NewCompiler(dir string, logger *slog.Logger) (*Compiler, error) {
	var cache wazero.CompilationCache
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create compilation cache %q: %w", dir, err)
		}
		c, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			return nil, fmt.Errorf("open compilation cache %q: %w", dir, err)
		}
		cache = c
	} else {
		cache = wazero.NewCompilationCache()
	}
	fetchers := builtinFetchers(fetch.Options{CacheDir: moduleCacheDir(dir), Logger: logger})
	return &Compiler{cache: cache, abis: builtinABIs(), fetchers: fetchers, logger: logger}, nil
}

// Close releases the compilation cache.
func (c *Compiler) Close(ctx context.Context) error { return c.cache.Close(ctx) }

// Compile compiles a module fetched by Fetch, with the host functions
// bound to env, and asks the module what it provides through the first
// ABI that detects it. first is a ready instance the caller may keep (it
// was used to describe the plugin), or close.
func (c *Compiler) Compile(ctx context.Context, spec PluginSpec, mod fetch.Module, env host.Env) (p *Plugin, first *Instance, err error) {
	manifest := extism.Manifest{
		Wasm:         []extism.Wasm{extism.WasmData{Data: mod.Data, Name: "main"}},
		Memory:       &extism.ManifestMemory{MaxPages: uint32(int64(spec.Limits.Memory) / 65536), MaxVarBytes: 1 << 20},
		Config:       spec.Config,
		AllowedHosts: spec.AllowedHosts,
		// No AllowedPaths: Extism would mount them with wazero's DirFS,
		// which follows symbolic links out of the directory. NewInstance
		// mounts them with sandboxfs instead.
	}
	if manifest.AllowedHosts == nil {
		manifest.AllowedHosts = []string{} // nil would allow every host
	}
	client, err := egress.New(egress.Options{AllowedHosts: spec.AllowedHosts, MaxResponse: int64(spec.Limits.HTTPResponse),
		Timeout: time.Duration(spec.Limits.Timeout), Listeners: &c.own})
	if err != nil {
		return nil, nil, fmt.Errorf("plugin %q (%s.allowed_hosts): %w", spec.Name, spec.Key, err)
	}
	rc := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).
		WithCompilationCache(c.cache)
	start := time.Now()
	compiled, err := extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{
		RuntimeConfig:             rc,
		EnableWasi:                true,
		HTTPRequest:               client.Do,
		EnableHttpResponseHeaders: true,
	}, host.Functions(env))
	if err != nil {
		client.Close()
		return nil, nil, fmt.Errorf("plugin %q (%s): compile %s: %w", spec.Name, spec.Key, spec.Path, err)
	}
	p = &Plugin{Spec: spec, SHA256: mod.SHA256, Size: len(mod.Data), compiled: compiled, http: client, logger: c.logger.With("plugin", spec.Name)}
	p.log = newPluginLog(p.logger)
	compileTime := time.Since(start)
	if p.mounts, err = sandboxfs.Open(spec.AllowedPaths); err != nil {
		client.Close()
		_ = compiled.Close(ctx)
		return nil, nil, fmt.Errorf("plugin %q (%s.allowed_paths): %w", spec.Name, spec.Key, err)
	}
	inst, err := p.NewInstance(ctx)
	if err != nil {
		_ = p.Close(ctx)
		return nil, nil, fmt.Errorf("plugin %q (%s): instantiate %s: %w", spec.Name, spec.Key, spec.Path, err)
	}
	fail := func(err error) (*Plugin, *Instance, error) {
		inst.Close(ctx)
		_ = p.Close(ctx)
		return nil, nil, err
	}
	for _, a := range c.abis {
		if a.Detect(inst) {
			p.ABI = a
			break
		}
	}
	if p.ABI == nil {
		return fail(fmt.Errorf("plugin %q (%s): %s: no known plugin ABI matches its exports", spec.Name, spec.Key, spec.Path))
	}
	dctx, cancel := context.WithTimeout(ctx, time.Duration(spec.Limits.Timeout))
	info, err := p.ABI.Describe(dctx, inst)
	cancel()
	if err != nil {
		return fail(fmt.Errorf("plugin %q (%s): describe %s: %w", spec.Name, spec.Key, spec.Path, err))
	}
	p.Info = info
	c.logger.Debug("compiled plugin", "plugin", spec.Name, "path", spec.Path, "abi", p.ABI.Name(), "bytes", len(mod.Data), "compile", compileTime,
		"tools", len(info.Tools), "resources", len(info.Resources), "prompts", len(info.Prompts))
	return p, inst, nil
}
