package loader

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmgate/wasmgate/loader/sandboxfs"
)

// Compiler compiles modules. It holds a wazero compilation cache shared by
// every module it compiles; with a directory the cache survives restarts.
type Compiler struct {
	cache  wazero.CompilationCache
	logger *slog.Logger
}

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
	return &Compiler{cache: cache, logger: logger}, nil
}

// Close releases the compilation cache.
func (c *Compiler) Close(ctx context.Context) error { return c.cache.Close(ctx) }

// Plugin is one compiled module with what it provides. Instances are
// created from it; it is safe for concurrent use.
type Plugin struct {
	Spec   PluginSpec
	SHA256 string
	Size   int
	ABI    ABI
	Info   Descriptor

	compiled *extism.CompiledPlugin
	mounts   *sandboxfs.Mounts // allowed_paths, confined
	logger   *slog.Logger
}

// ReadModule reads spec.Path and checks it against the sha256 pin. It
// returns the bytes and their hex SHA-256.
func ReadModule(spec PluginSpec) ([]byte, string, error) {
	data, err := os.ReadFile(spec.Path)
	if err != nil {
		return nil, "", fmt.Errorf("plugin %q (%s): read %s: %w", spec.Name, spec.Key, spec.Path, unwrapPathError(err))
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if spec.SHA256 != "" && spec.SHA256 != hash {
		return nil, "", fmt.Errorf("plugin %q (%s.sha256): %s has sha256 %s, pinned %s", spec.Name, spec.Key, spec.Path, hash, spec.SHA256)
	}
	return data, hash, nil
}

// Compile compiles module bytes read by ReadModule, bound to store, and
// asks the module what it provides. first is a ready instance the caller
// may keep (it was used to describe the plugin), or close.
func (c *Compiler) Compile(ctx context.Context, spec PluginSpec, data []byte, hash string, store *Store) (p *Plugin, first *Instance, err error) {
	manifest := extism.Manifest{
		Wasm:         []extism.Wasm{extism.WasmData{Data: data, Name: "main"}},
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
	rc := wazero.NewRuntimeConfig().
		WithCloseOnContextDone(true).
		WithCompilationCache(c.cache)
	start := time.Now()
	compiled, err := extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{
		RuntimeConfig: rc,
		EnableWasi:    true,
	}, hostFunctions(store))
	if err != nil {
		return nil, nil, fmt.Errorf("plugin %q (%s): compile %s: %w", spec.Name, spec.Key, spec.Path, err)
	}
	p = &Plugin{Spec: spec, SHA256: hash, Size: len(data), ABI: SeaFlea{}, compiled: compiled, logger: c.logger.With("plugin", spec.Name)}
	compileTime := time.Since(start)
	if p.mounts, err = sandboxfs.Open(spec.AllowedPaths); err != nil {
		_ = compiled.Close(ctx)
		return nil, nil, fmt.Errorf("plugin %q (%s.allowed_paths): %w", spec.Name, spec.Key, err)
	}
	inst, err := p.NewInstance(ctx)
	if err != nil {
		_ = p.Close(ctx)
		return nil, nil, fmt.Errorf("plugin %q (%s): instantiate %s: %w", spec.Name, spec.Key, spec.Path, err)
	}
	dctx, cancel := context.WithTimeout(ctx, time.Duration(spec.Limits.Timeout))
	info, err := p.ABI.Describe(dctx, inst)
	cancel()
	if err != nil {
		inst.Close(ctx)
		_ = p.Close(ctx)
		return nil, nil, fmt.Errorf("plugin %q (%s): describe %s: %w", spec.Name, spec.Key, spec.Path, err)
	}
	p.Info = info
	c.logger.Debug("compiled plugin", "plugin", spec.Name, "path", spec.Path, "bytes", len(data), "compile", compileTime,
		"tools", len(info.Tools), "resources", len(info.Resources), "prompts", len(info.Prompts))
	return p, inst, nil
}

// Close releases the compiled module. Every instance must be closed first.
func (p *Plugin) Close(ctx context.Context) error {
	return errors.Join(p.compiled.Close(ctx), p.mounts.Close())
}

// Instance is one instantiated module. It runs one call at a time.
type Instance struct {
	p      *extism.Plugin
	stderr *tailBuffer
	dead   bool
}

// NewInstance instantiates the module with the plugin's config and grants.
func (p *Plugin) NewInstance(ctx context.Context) (*Instance, error) {
	stderr := &tailBuffer{}
	inst, err := p.compiled.Instance(ctx, extism.PluginInstanceConfig{
		ModuleConfig: p.mounts.Configure(wazero.NewModuleConfig()).
			WithSysWalltime().WithSysNanotime().
			// Sleep in short steps so limits.timeout can stop a sleeping
			// guest between them (wazero checks the deadline on return).
			WithNanosleep(func(ns int64) { time.Sleep(min(time.Duration(ns), 10*time.Millisecond)) }).
			WithRandSource(rand.Reader).
			WithStderr(stderr),
	})
	if err != nil {
		return nil, err
	}
	logger := p.logger
	inst.SetLogger(func(level extism.LogLevel, msg string) {
		logger.Log(context.Background(), slogLevel(level), msg)
	})
	return &Instance{p: inst, stderr: stderr}, nil
}

// tailBuffer keeps the last bytes a guest wrote to stderr, so a crash can
// be reported with the guest's own words (a Go panic message, say).
type tailBuffer struct{ b []byte }

const tailMax = 4 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = append(t.b[:0], t.b[len(t.b)-tailMax:]...)
	}
	return len(p), nil
}

// crashReason picks the most telling line of what the guest printed.
func (t *tailBuffer) crashReason() string {
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return strings.TrimSpace(l)
		}
	}
	if len(lines) > 0 && lines[len(lines)-1] != "" {
		return strings.TrimSpace(lines[len(lines)-1])
	}
	return ""
}

// Dead reports whether a call failed in a way that leaves the instance
// unusable (timeout, trap, exit); dead instances must be closed, not reused.
func (i *Instance) Dead() bool { return i.dead }

// Close releases the instance.
func (i *Instance) Close(ctx context.Context) { _ = i.p.Close(ctx) }

// Has reports whether the module exports name.
func (i *Instance) Has(name string) bool { return i.p.FunctionExists(name) }

// CallError is a failed export call.
type CallError struct {
	Export string
	// Kind is "error" for an error the plugin reported itself (the instance
	// stays usable), "timeout", "trap" or "exit" for faults that kill it.
	Kind string
	Msg  string
}

func (e *CallError) Error() string { return e.Msg }

// Call runs export with input. ctx's deadline stops a runaway call; the
// instance is then dead.
func (i *Instance) Call(ctx context.Context, export string, input []byte) ([]byte, error) {
	if i.dead {
		return nil, &CallError{Export: export, Kind: "exit", Msg: "instance is closed"}
	}
	i.stderr.b = i.stderr.b[:0]
	rc, out, err := i.p.CallWithContext(ctx, export, input)
	if err == nil && rc == 0 {
		return out, nil
	}
	if ctx.Err() != nil {
		i.dead = true
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, &CallError{Export: export, Kind: "timeout", Msg: "timed out"}
		}
		return nil, &CallError{Export: export, Kind: "timeout", Msg: "cancelled"}
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		i.dead = true
		msg := fmt.Sprintf("plugin exited with code %d", exit.ExitCode())
		if r := i.stderr.crashReason(); r != "" {
			msg += ": " + r
		}
		return nil, &CallError{Export: export, Kind: "exit", Msg: msg}
	}
	if err != nil {
		// An error the plugin set itself leaves rc != 0 and the kernel's
		// error slot filled; anything else is a trap from the runtime.
		if msg := i.p.GetErrorWithContext(context.WithoutCancel(ctx)); msg != "" && msg == err.Error() {
			return nil, &CallError{Export: export, Kind: "error", Msg: msg}
		}
		i.dead = true
		msg := firstLine(err.Error())
		if r := i.stderr.crashReason(); r != "" {
			msg = r + " (" + msg + ")"
		}
		return nil, &CallError{Export: export, Kind: "trap", Msg: msg}
	}
	// rc != 0 without an error message.
	return nil, &CallError{Export: export, Kind: "error", Msg: fmt.Sprintf("export %s returned %d", export, rc)}
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

func slogLevel(l extism.LogLevel) slog.Level {
	switch l {
	case extism.LogLevelTrace, extism.LogLevelDebug:
		return slog.LevelDebug
	case extism.LogLevelInfo:
		return slog.LevelInfo
	case extism.LogLevelWarn:
		return slog.LevelWarn
	}
	return slog.LevelError
}
