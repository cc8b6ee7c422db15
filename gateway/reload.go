package gateway

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/gateway/source"
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
// and every plugin builds; trigger says what asked and files, for a file
// save, which files changed (absolute). On any error the serving
// snapshot is untouched, the error is logged once and returned, and the
// reload metrics and the status page say so. The log line names the
// files (relative to the config's folder when inside it), the plugins
// whose modules they are, and what changed. systemd is told RELOADING=1
// before and READY=1 after, whatever the outcome. Reloads are serialized.
func (g *Gateway) ReloadFrom(ctx context.Context, trigger string, files ...string) error {
	ctx, unlock, err := g.lockReload(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	g.opts.Procs.Busy() // a reload gets every P
	g.notify.Reloading(trigger)
	start := time.Now()
	shown := g.shownFiles(files)
	plugins := g.pluginsOf(files)
	changed, err := g.reload(ctx)
	plugins = mergeNames(plugins, g.pluginsOf(files))
	g.status.Reloaded(trigger, shown, start, changed, err)
	defer func() { g.notify.Ready(g.statusLine()) }()
	m := g.opts.Metrics
	attrs := []any{"config", g.opts.ConfigPath, "trigger", trigger}
	if len(shown) > 0 {
		attrs = append(attrs, "files", strings.Join(shown, ","))
	}
	if len(plugins) > 0 {
		attrs = append(attrs, "plugins", strings.Join(plugins, ","))
	}
	if err != nil {
		m.ReloadResult(false, time.Now())
		g.log.Error("reload failed; still serving the previous configuration", append(attrs, "error", err)...)
		return err
	}
	m.ReloadResult(true, time.Now())
	attrs = append(attrs, "took", time.Since(start).Round(time.Millisecond), "changes", strings.Join(changed, "; "), "summary", g.cur.Load().Summary())
	g.log.Info("configuration reloaded", attrs...)
	return nil
}

// shownFiles are files as the log and the status page show them:
// relative to the config file's folder when inside it.
func (g *Gateway) shownFiles(files []string) []string {
	base := ""
	if abs, err := filepath.Abs(g.opts.ConfigPath); err == nil {
		base = filepath.Dir(abs)
	}
	out := make([]string, 0, len(files))
	for _, f := range files {
		if rel, err := filepath.Rel(base, f); err == nil && base != "" && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			f = rel
		}
		out = append(out, f)
	}
	return out
}

// pluginsOf names the plugins of the serving snapshot whose module is
// one of files (absolute paths).
func (g *Gateway) pluginsOf(files []string) []string {
	s := g.cur.Load()
	if s == nil || len(files) == 0 {
		return nil
	}
	var out []string
	for src := range s.sources {
		r, ok := src.(source.StatusReporter)
		if !ok {
			continue
		}
		mod := r.Status().Module
		if mod != "" && slices.Contains(files, filepath.Clean(mod)) {
			out = append(out, src.Name())
		}
	}
	return out
}

// mergeNames is a and the names of b not in a.
func mergeNames(a, b []string) []string {
	for _, n := range b {
		if !slices.Contains(a, n) {
			a = append(a, n)
		}
	}
	return a
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
		if err := cfg.RestartOnly(cur.Config, RestartHint(g.opts.Environ)); err != nil {
			return nil, err
		}
		if e := g.stdioEndpoint.Load(); e != nil && cfg.StdioEndpoint() != *e {
			return nil, fmt.Errorf("%s: transports.stdio.endpoint: the stdio client is served by the endpoint %q for the life of the process; this change would serve it %q: %s to apply it",
				cfg.File, *e, cfg.StdioEndpoint(), RestartHint(g.opts.Environ))
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

// RestartHint is the command a restart-only refusal suggests: systemctl
// under systemd (environ has INVOCATION_ID or NOTIFY_SOCKET), else
// "restart wasmgate".
func RestartHint(environ []string) string {
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if (k == "INVOCATION_ID" || k == "NOTIFY_SOCKET") && v != "" {
			return "systemctl restart wasmgate"
		}
	}
	return "restart wasmgate"
}
