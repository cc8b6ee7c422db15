package loader

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/egress"
	"github.com/wasmgate/wasmgate/loader/sandboxfs"
)

// Plugin is one compiled module with what it provides. Instances are
// created from it; it is safe for concurrent use.
type Plugin struct {
	Spec   PluginSpec
	SHA256 string
	Size   int
	ABI    abi.ABI
	Info   abi.Descriptor
	// Imports are the host functions (of host.Namespace) the module
	// imports, sorted: a grant the lock file records.
	Imports []string

	compiled *extism.CompiledPlugin
	http     *egress.Client
	mounts   *sandboxfs.Mounts // allowed_paths, confined
	logger   *slog.Logger
	log      *pluginLog // the plugin's own log lines, rate-limited
}

// Close releases the compiled module. Every instance must be closed first.
func (p *Plugin) Close(ctx context.Context) error {
	p.http.Close()
	return errors.Join(p.compiled.Close(ctx), p.mounts.Close())
}

// NewInstance instantiates the module with the plugin's config and grants.
func (p *Plugin) NewInstance(ctx context.Context) (*Instance, error) {
	i := &Instance{stderr: &tailBuffer{}, maxInput: int(p.Spec.Limits.Memory / 2)}
	inst, err := p.compiled.Instance(ctx, extism.PluginInstanceConfig{
		ModuleConfig: p.mounts.Configure(wazero.NewModuleConfig()).
			WithSysWalltime().WithSysNanotime().
			WithNanosleep(i.sleep).
			WithRandSource(rand.Reader).
			WithStdout(i.stderr).
			WithStderr(i.stderr),
	})
	if err != nil {
		return nil, err
	}
	inst.SetLogger(p.log.log)
	i.p = inst
	return i, nil
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
