package loader

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/host"
	"github.com/wasmgate/wasmgate/loader/sandboxfs"
)

// RankExport is the function a ranker module exports
// (endpoints[].discovery.ranker, docs/plugins.md "Rankers").
const RankExport = "rank"

// CompileRanker compiles a ranker module fetched by Fetch. A ranker is
// no tool plugin: it is detected by no plugin ABI but must export
// RankExport, and it gets none of wasmgate's host functions (the
// key-value store and the MCP functions act for a tool call's client;
// a ranker serves no client) — only WASI and the Extism kernel, with
// HTTP to allowed_hosts and files in allowed_paths when granted. The
// Plugin it returns has no ABI and no Info; first is a ready instance
// the caller may keep, or close.
func (c *Compiler) CompileRanker(ctx context.Context, spec PluginSpec, mod fetch.Module) (p *Plugin, first *Instance, err error) {
	c.compiles.Add(1)
	start := time.Now()
	compiled, client, err := c.compileModule(ctx, "ranker", spec, mod, nil)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*Plugin, *Instance, error) {
		client.Close()
		_ = compiled.Close(ctx)
		return nil, nil, fmt.Errorf("ranker %q (%s): %s: %w", spec.Name, spec.Key, spec.Path, err)
	}
	main := compiled.MainModule()
	exports := exportSet(main)
	if !exports.Has(RankExport) {
		names := slices.Sorted(maps.Keys(exports))
		return fail(fmt.Errorf("a ranker exports %s (docs/plugins.md, \"Rankers\"); this module exports %s", RankExport, orNone(names)))
	}
	if imports := hostImports(main); len(imports) > 0 {
		return fail(fmt.Errorf("imports wasmgate host functions (%s from %q): a ranker gets none; it may use WASI and the Extism kernel only",
			strings.Join(imports, ", "), host.Namespace))
	}
	if err := checkImports(compiled, main, nil); err != nil {
		return fail(err)
	}
	p = &Plugin{Spec: spec, SHA256: mod.SHA256, Size: len(mod.Data), Imports: []string{}, compiled: compiled, http: client, logger: c.logger.With("ranker", spec.Name)}
	p.log = newPluginLog(p.logger)
	if p.mounts, err = sandboxfs.Open(spec.AllowedPaths); err != nil {
		client.Close()
		_ = compiled.Close(ctx)
		return nil, nil, fmt.Errorf("ranker %q (%s.allowed_paths): %w", spec.Name, spec.Key, err)
	}
	inst, err := p.NewInstance(ctx)
	if err != nil {
		_ = p.Close(ctx)
		return nil, nil, fmt.Errorf("ranker %q (%s): instantiate %s: %w", spec.Name, spec.Key, spec.Path, err)
	}
	c.logger.Debug("compiled ranker", "ranker", spec.Name, "path", spec.Path, "bytes", len(mod.Data), "compile", time.Since(start))
	return p, inst, nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "no functions"
	}
	const show = 24
	if len(names) > show {
		return strings.Join(names[:show], ", ") + fmt.Sprintf(", and %d more", len(names)-show)
	}
	return strings.Join(names, ", ")
}
