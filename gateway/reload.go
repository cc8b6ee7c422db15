package gateway

import (
	"context"
	"time"

	"github.com/wasmgate/wasmgate/loader"
)

// What asks for a reload, as the status page, STATUS= and the log name it.
const (
	TriggerFile   = "file save"
	TriggerSIGHUP = "SIGHUP"
	TriggerAdmin  = "POST /-/reload"
	TriggerAPI    = "api"
)

// Reload is ReloadFrom(ctx, TriggerAPI).
func (g *Gateway) Reload(ctx context.Context) error { return g.ReloadFrom(ctx, TriggerAPI) }

// ReloadFrom reads the config file again and applies it if it is valid
// and every plugin builds; trigger says what asked. On any error the
// serving snapshot is untouched, the error is logged once and returned,
// and the reload metrics and the status page say so. systemd is told
// RELOADING=1 before and READY=1 after, whatever the outcome. Reloads are
// serialized.
func (g *Gateway) ReloadFrom(ctx context.Context, trigger string) error {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	g.notify.Reloading(trigger)
	start := time.Now()
	changed, err := g.reload(ctx)
	g.status.Reloaded(trigger, start, changed, err)
	defer func() { g.notify.Ready(g.statusLine()) }()
	m := g.opts.Metrics
	if err != nil {
		m.ReloadResult(false, time.Now())
		g.log.Error("reload failed; still serving the previous configuration", "file", g.opts.ConfigPath, "trigger", trigger, "error", err)
		return err
	}
	m.ReloadResult(true, time.Now())
	g.log.Info("configuration reloaded", "file", g.opts.ConfigPath, "trigger", trigger, "took", time.Since(start).Round(time.Millisecond), "summary", g.cur.Load().Summary())
	return nil
}

// reload loads, builds and applies the config; it returns what changed
// (worked out before the previous snapshot may be cleaned up).
func (g *Gateway) reload(ctx context.Context) ([]string, error) {
	cfg, err := loader.Load(g.opts.ConfigPath, g.opts.Environ)
	if cfg != nil && g.watcher != nil {
		// Watch what this save names, good or not: a module or folder it
		// refers to that appears later fixes it.
		defer g.watcher.Track(g.opts.ConfigPath, cfg)
	}
	if err != nil {
		return nil, err
	}
	cur := g.cur.Load()
	if cur != nil {
		if err := cfg.RestartOnly(cur.Config); err != nil {
			return nil, err
		}
	}
	s, err := g.Build(ctx, cfg)
	if err != nil {
		return nil, err
	}
	changed := changes(cur, s)
	g.Apply(s)
	setLogLevel(g.opts.LogLevel, cfg)
	return changed, nil
}
