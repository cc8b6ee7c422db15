package gateway

import (
	"context"
	"errors"
	"fmt"
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
		if err := restartOnly(cur.Config, cfg); err != nil {
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

// restartOnly refuses changes that need a restart: listener addresses,
// which transports run, the MCP path, the HTTP server's timeouts, header
// and connection caps, the cache and log format. (The session and stream
// caps and both bearer tokens follow a reload.) The message
// names each key and both values.
func restartOnly(old, cfg *loader.Config) error {
	var errs []error
	diff := func(key string, a, b any) {
		if fmt.Sprint(a) != fmt.Sprint(b) {
			errs = append(errs, &loader.ConfigError{File: cfg.File, Key: key,
				Msg: fmt.Sprintf("changed from %v to %v; this takes a restart (systemctl restart wasmgate), the rest of the file was not applied", a, b)})
		}
	}
	diff("transports.http.enabled", old.Transports.HTTP.On(), cfg.Transports.HTTP.On())
	diff("transports.http.listen", old.Transports.HTTP.Listen, cfg.Transports.HTTP.Listen)
	diff("transports.http.path", old.Transports.HTTP.Path, cfg.Transports.HTTP.Path)
	diff("transports.http.session_idle_timeout", old.Transports.HTTP.SessionIdleTimeout, cfg.Transports.HTTP.SessionIdleTimeout)
	diff("transports.http.read_header_timeout", old.Transports.HTTP.ReadHeaderTimeout, cfg.Transports.HTTP.ReadHeaderTimeout)
	diff("transports.http.read_timeout", old.Transports.HTTP.ReadTimeout, cfg.Transports.HTTP.ReadTimeout)
	diff("transports.http.idle_timeout", old.Transports.HTTP.IdleTimeout, cfg.Transports.HTTP.IdleTimeout)
	diff("transports.http.max_header_bytes", old.Transports.HTTP.MaxHeaderBytes, cfg.Transports.HTTP.MaxHeaderBytes)
	diff("transports.http.max_connections", old.Transports.HTTP.MaxConnections, cfg.Transports.HTTP.MaxConnections)
	diff("transports.stdio.enabled", old.Transports.Stdio.Enabled, cfg.Transports.Stdio.Enabled)
	diff("admin.enabled", old.Admin.On(), cfg.Admin.On())
	diff("admin.listen", old.Admin.Listen, cfg.Admin.Listen)
	diff("server.cache_dir", old.Server.CacheDir, cfg.Server.CacheDir)
	diff("server.log.format", old.Server.Log.Format, cfg.Server.Log.Format)
	return errors.Join(errs...)
}
