package gateway

import (
	"context"
	"time"

	"github.com/wasmgate/wasmgate/loader"
)

// Reload reads the config file again and applies it if it is valid and
// every plugin builds. On any error the serving snapshot is untouched, the
// error is logged once and returned, and the reload metrics say so.
// Reloads are serialized.
func (g *Gateway) Reload(ctx context.Context) error {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	start := time.Now()
	err := g.reload(ctx)
	m := g.opts.Metrics
	if err != nil {
		m.ReloadResult(false, time.Now())
		g.log.Error("reload failed; still serving the previous configuration", "file", g.opts.ConfigPath, "error", err)
		return err
	}
	m.ReloadResult(true, time.Now())
	g.log.Info("configuration reloaded", "file", g.opts.ConfigPath, "took", time.Since(start).Round(time.Millisecond), "summary", g.cur.Load().Summary())
	return nil
}

func (g *Gateway) reload(ctx context.Context) error {
	cfg, err := loader.Load(g.opts.ConfigPath, g.opts.Environ)
	if cfg != nil && g.watcher != nil {
		// Watch what this save names, good or not: a module it refers to
		// that appears later fixes it.
		defer g.watcher.Track(g.opts.ConfigPath, cfg)
	}
	if err != nil {
		return err
	}
	if cur := g.cur.Load(); cur != nil {
		if err := cfg.RestartOnly(cur.Config); err != nil {
			return err
		}
	}
	s, err := g.Build(ctx, cfg)
	if err != nil {
		return err
	}
	g.Apply(s)
	setLogLevel(g.opts.LogLevel, cfg)
	return nil
}
