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
	return c.compileBare(ctx, "ranker", `docs/plugins.md, "Rankers"`, spec, mod, RankExport)
}

// CompileInterceptor compiles an interceptor module fetched by Fetch
// (the interceptors section, docs/interceptors.md): as a ranker, it is
// detected by no plugin ABI and gets none of wasmgate's host functions;
// it must export each of exports (intercept_request, intercept_response:
// the phases it runs in).
func (c *Compiler) CompileInterceptor(ctx context.Context, spec PluginSpec, mod fetch.Module, exports ...string) (p *Plugin, first *Instance, err error) {
	return c.compileBare(ctx, "interceptor", "docs/interceptors.md", spec, mod, exports...)
}

// compileBare compiles a module that serves the gateway itself (a
// ranker, an interceptor: what): it must export each of exports
// (documented in doc), and may import WASI and the Extism kernel only.
func (c *Compiler) compileBare(ctx context.Context, what, doc string, spec PluginSpec, mod fetch.Module, exports ...string) (p *Plugin, first *Instance, err error) {
	c.compiles.Add(1)
	start := time.Now()
	compiled, client, err := c.compileModule(ctx, what, spec, mod, nil)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*Plugin, *Instance, error) {
		client.Close()
		_ = compiled.Close(ctx)
		return nil, nil, fmt.Errorf("%s %q (%s): %s: %w", what, spec.Name, spec.Key, spec.Path, err)
	}
	main := compiled.MainModule()
	has := exportSet(main)
	for _, e := range exports {
		if !has.Has(e) {
			names := slices.Sorted(maps.Keys(has))
			return fail(fmt.Errorf("a%s %s exports %s (%s); this module exports %s", an(what), what, strings.Join(exports, " and "), doc, orNone(names)))
		}
	}
	if imports := hostImports(main); len(imports) > 0 {
		return fail(fmt.Errorf("imports wasmgate host functions (%s from %q): a%s %s gets none; it may use WASI and the Extism kernel only",
			strings.Join(imports, ", "), host.Namespace, an(what), what))
	}
	if err := checkImports(compiled, main, nil); err != nil {
		return fail(err)
	}
	p = &Plugin{Spec: spec, SHA256: mod.SHA256, Size: len(mod.Data), Imports: []string{}, compiled: compiled, http: client, logger: c.logger.With(what, spec.Name)}
	p.log = newPluginLog(p.logger)
	if p.mounts, err = sandboxfs.Open(spec.AllowedPaths); err != nil {
		client.Close()
		_ = compiled.Close(ctx)
		return nil, nil, fmt.Errorf("%s %q (%s.allowed_paths): %w", what, spec.Name, spec.Key, err)
	}
	inst, err := p.NewInstance(ctx)
	if err != nil {
		_ = p.Close(ctx)
		return nil, nil, fmt.Errorf("%s %q (%s): instantiate %s: %w", what, spec.Name, spec.Key, spec.Path, err)
	}
	c.logger.Debug("compiled "+what, what, spec.Name, "path", spec.Path, "bytes", len(mod.Data), "compile", time.Since(start))
	return p, inst, nil
}

// an is "n" before a word that starts with a vowel.
func an(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "n"
	}
	return ""
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
