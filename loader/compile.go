package loader

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/egress"
	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/fetch/oci"
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
	// layers get the tar layers of skills artifacts (FetchSkills), cached
	// with the modules.
	layers *oci.Fetcher

	compiles atomic.Int64 // Compile calls, for tests and the status of reuse
	dir      string       // the cache directory; "": memory only
}

// Compiles is how many times Compile was called.
func (c *Compiler) Compiles() int64 { return c.compiles.Load() }

// SetListenAddrs records the gateway's own listen addresses (ip:port, as
// net.Listener.Addr writes them). Plugin HTTP and module fetches never
// connect to them, in plugins compiled before or after the call.
func (c *Compiler) SetListenAddrs(addrs ...string) error { return c.own.Set(addrs...) }

// Listeners are the gateway's own listen addresses (SetListenAddrs), for
// the other outbound clients that must never reach them (upstreams).
func (c *Compiler) Listeners() *egress.Listeners { return &c.own }

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
	c := &Compiler{cache: cache, abis: builtinABIs(), logger: logger, dir: dir}
	opts := fetch.Options{CacheDir: moduleCacheDir(dir), Logger: logger, Listeners: &c.own}
	c.fetchers = builtinFetchers(opts)
	c.layers = oci.New(opts)
	return c, nil
}

// Dir is the cache directory the compiler was made with; "": memory
// only. Other caches of the gateway keep their files in folders of it
// (modules fetched from registries, upstreams' catalogs).
func (c *Compiler) Dir() string { return c.dir }

// Close releases the compilation cache.
func (c *Compiler) Close(ctx context.Context) error { return c.cache.Close(ctx) }

// Compile compiles a module fetched by Fetch, with the host functions
// bound to env, and asks the module what it provides through the first
// ABI that detects it. first is a ready instance the caller may keep (it
// was used to describe the plugin), or close.
func (c *Compiler) Compile(ctx context.Context, spec PluginSpec, mod fetch.Module, env host.Env) (p *Plugin, first *Instance, err error) {
	c.compiles.Add(1)
	funcs := host.Functions(env)
	start := time.Now()
	compiled, client, err := c.compileModule(ctx, "plugin", spec, mod, funcs)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*Plugin, *Instance, error) {
		client.Close()
		_ = compiled.Close(ctx)
		return nil, nil, fmt.Errorf("plugin %q (%s): %s: %w", spec.Name, spec.Key, spec.Path, err)
	}
	// Before instantiating: the ABI, from the exports, and the imports,
	// each named when they do not fit.
	main := compiled.MainModule()
	exports := exportSet(main)
	var detected abi.ABI
	for _, a := range c.abis {
		if a.Detect(exports) {
			detected = a
			break
		}
	}
	if detected == nil {
		return fail(c.noABI(exports))
	}
	if err := checkImports(compiled, main, funcs); err != nil {
		return fail(err)
	}
	p = &Plugin{Spec: spec, SHA256: mod.SHA256, Size: len(mod.Data), ABI: detected, Imports: hostImports(main), compiled: compiled, http: client, logger: c.logger.With("plugin", spec.Name)}
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
	fail = func(err error) (*Plugin, *Instance, error) {
		inst.Close(ctx)
		_ = p.Close(ctx)
		return nil, nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, time.Duration(spec.Limits.Timeout))
	info, err := p.ABI.Describe(dctx, inst)
	cancel()
	if err != nil {
		return fail(fmt.Errorf("plugin %q (%s): describe %s: %w", spec.Name, spec.Key, spec.Path, err))
	}
	p.Info = info
	for _, w := range info.Warnings {
		c.logger.Warn(fmt.Sprintf("plugin %q: %s", spec.Name, w), "key", spec.Key, "path", spec.Path, "abi", p.ABI.Name())
	}
	c.logger.Debug("compiled plugin", "plugin", spec.Name, "path", spec.Path, "abi", p.ABI.Name(), "bytes", len(mod.Data), "compile", compileTime,
		"tools", len(info.Tools), "resources", len(info.Resources), "prompts", len(info.Prompts))
	return p, inst, nil
}

// compileModule compiles mod with spec's config, memory and HTTP grant,
// and the host functions funcs; the caller closes both results. what
// ("plugin", "ranker") names the module in errors.
func (c *Compiler) compileModule(ctx context.Context, what string, spec PluginSpec, mod fetch.Module, funcs []extism.HostFunction) (*extism.CompiledPlugin, *egress.Client, error) {
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
		return nil, nil, fmt.Errorf("%s %q (%s.allowed_hosts): %w", what, spec.Name, spec.Key, err)
	}
	rc := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).
		WithCompilationCache(c.cache)
	compiled, err := extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{
		RuntimeConfig:             rc,
		EnableWasi:                true,
		HTTPRequest:               client.Do,
		EnableHttpResponseHeaders: true,
	}, funcs)
	if err != nil {
		client.Close()
		return nil, nil, fmt.Errorf("%s %q (%s): compile %s: %w", what, spec.Name, spec.Key, spec.Path, err)
	}
	return compiled, client, nil
}

// exports are the functions a compiled module exports.
type exports map[string]bool

func (e exports) Has(name string) bool { return e[name] }

func exportSet(m wazero.CompiledModule) exports {
	e := exports{}
	for name := range m.ExportedFunctions() {
		e[name] = true
	}
	return e
}

// noABI explains that no ABI detects a module: what it exports, and what
// each supported ABI looks for.
func (c *Compiler) noABI(e exports) error {
	names := slices.Sorted(maps.Keys(e))
	const show = 24
	list := strings.Join(names, ", ")
	if len(names) > show {
		list = strings.Join(names[:show], ", ") + fmt.Sprintf(", and %d more", len(names)-show)
	}
	if len(names) == 0 {
		list = "no functions"
	}
	var abis []string
	for _, a := range c.abis {
		abis = append(abis, fmt.Sprintf("%s (%s)", a.Name(), a.Signature()))
	}
	return fmt.Errorf("no supported plugin ABI matches its exports (it exports %s); wasmgate supports %s", list, strings.Join(abis, "; "))
}

// hostImports are the names of the host functions m imports, sorted.
func hostImports(m wazero.CompiledModule) []string {
	out := []string{}
	for _, f := range m.ImportedFunctions() {
		if mod, name, _ := f.Import(); mod == host.Namespace && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// checkImports names every function the module imports that the host does
// not provide (instantiating it would fail on the first).
func checkImports(compiled *extism.CompiledPlugin, m wazero.CompiledModule, funcs []extism.HostFunction) error {
	var missing []string
	for _, f := range m.ImportedFunctions() {
		mod, name, _ := f.Import()
		h := compiled.HostFunction(mod, name)
		switch {
		case h == nil:
			missing = append(missing, fmt.Sprintf("%q from %q", name, mod))
		case !slices.Equal(h.ParamTypes(), f.ParamTypes()) || !slices.Equal(h.ResultTypes(), f.ResultTypes()):
			missing = append(missing, fmt.Sprintf("%q from %q as %s (wasmgate's is %s)", name, mod, signature(f), signature(h)))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var provided []string
	for _, f := range funcs {
		provided = append(provided, f.Name)
	}
	slices.Sort(provided)
	what := "a host function"
	if len(missing) > 1 {
		what = "host functions"
	}
	return fmt.Errorf("imports %s wasmgate does not provide: %s (wasmgate provides, in %q: %s; see docs/plugins.md)",
		what, strings.Join(missing, ", "), host.Namespace, strings.Join(provided, ", "))
}

// signature writes a function type as (i64, i64) -> i64.
func signature(f api.FunctionDefinition) string {
	names := func(ts []api.ValueType) string {
		var s []string
		for _, t := range ts {
			s = append(s, api.ValueTypeName(t))
		}
		return "(" + strings.Join(s, ", ") + ")"
	}
	return names(f.ParamTypes()) + " -> " + names(f.ResultTypes())
}
