package gateway

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"

	"github.com/wasmgate/wasmgate/internal/procs"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
)

// RunOptions configure Run.
type RunOptions struct {
	ConfigPath string
	Config     *loader.Config // ConfigPath already loaded; nil: Run loads it
	Environ    []string
	Stdio      bool // serve MCP on Stdin/Stdout too (also transports.stdio.enabled)
	Stdin      io.Reader
	Stdout     io.Writer
	Logger     *slog.Logger
	LogLevel   *slog.LevelVar // set from server.log.level when not nil
	Version    string
	Revision   string
	// Reload asks for a reload of ConfigPath (the command sends SIGHUP
	// here); nil when nothing outside asks.
	Reload <-chan struct{}
	// OnReady, when not nil, is called once, when the gateway is ready
	// (right after it logs "wasmgate ready"), with what it listens on as
	// /api/status shows it: "http" the MCP URL, "admin" the admin URL,
	// "stdio"; a listener that is off (or optional and could not bind) is
	// missing.
	OnReady func(listeners map[string]string)
	// Procs, when not nil, is told of every MCP HTTP request but GETs,
	// and of reloads, to run on one P while requests come one at a time
	// (package procs); not in stdio mode.
	Procs *procs.Governor
}

// Run loads the config, serves it until ctx ends (or stdin closes in stdio
// mode), then shuts down gracefully: listeners stop accepting, running calls
// finish within server.shutdown_timeout, instances close.
func Run(ctx context.Context, o RunOptions) error {
	logger := o.Logger
	cfg := o.Config
	if cfg == nil {
		var err error
		if cfg, err = loader.Load(o.ConfigPath, o.Environ); err != nil {
			return err
		}
	}
	setLogLevel(o.LogLevel, cfg)
	stdioMode := o.Stdio || cfg.Transports.Stdio.Enabled
	gov := o.Procs
	if stdioMode {
		// A read of the client's stdin, a blocking pipe, would hold the
		// one P until the runtime takes it back: on one P, stdio served
		// half the calls a second (docs/perf.md).
		gov = nil
	}
	start := time.Now()
	g, err := Open(ctx, cfg, Options{Logger: logger, Version: o.Version, Revision: o.Revision,
		ConfigPath: o.ConfigPath, Environ: o.Environ, LogLevel: o.LogLevel, Procs: gov})
	if err != nil {
		return err
	}
	m := g.opts.Metrics
	logger.Info("configuration loaded", "file", cfg.File, "took", time.Since(start).Round(time.Millisecond), "summary", g.cur.Load().Summary())

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	lc := newLifecycle(logger)
	stdin := &stdinState{closed: make(chan struct{})}
	// Started in this order, stopped in reverse (after the HTTP listener
	// stopped accepting: lifecycle.quiesce): the watcher and reload
	// triggers first; then running HTTP calls drain;
	// then stdio; then the relay's pages are disconnected; then the
	// plugins close; the admin listener (metrics, health) stays up until
	// the end.
	// With stdio (a client started this process), the listeners run only
	// when the config asks for them explicitly, and one that cannot bind
	// is a warning: a second copy of the same IDE setup must still serve.
	httpOn, adminOn := cfg.Transports.HTTP.On(), cfg.Admin.On()
	if stdioMode {
		httpOn, adminOn = explicit(cfg.Transports.HTTP.Enabled), explicit(cfg.Admin.Enabled)
	}
	optional := func(c service) service {
		if stdioMode {
			return optionalService(logger, c)
		}
		return c
	}
	var cs []service
	if adminOn {
		cs = append(cs, optional(g.adminService(lc, cfg, m)))
	}
	cs = append(cs, service{name: "plugins", start: func(context.Context) error { return nil }, stop: func(ctx context.Context) {
		if err := g.Close(ctx); err != nil {
			logger.Warn("closing plugins", "error", err)
		}
	}})
	cs = append(cs, g.relayService())
	if stdioMode {
		cs = append(cs, g.stdioService(lc, o.Stdin, o.Stdout, stdin))
	}
	if httpOn {
		cs = append(cs, optional(g.httpService(lc, cfg)))
	}
	if cfg.Server.WatchOn() {
		cs = append(cs, g.watchService(lc, o.ConfigPath, cfg))
	}
	cs = append(cs, g.reloadService(lc, o.Reload, o.ConfigPath))
	cs = append(cs, g.watchdogService(lc))
	if err := lc.start(ctx, cs...); err != nil {
		g.Close(context.Background())
		return err
	}

	g.ready.Store(true)
	logger.Info("wasmgate ready", "took", time.Since(start).Round(time.Millisecond))
	g.notify.Ready(g.statusLine())
	if o.OnReady != nil {
		o.OnReady(g.Status().Listeners)
	}

	var runErr error
	select {
	case <-ctx.Done():
	case <-stdin.closed:
		logger.Info("stdin closed: shutting down")
	case runErr = <-lc.failed():
	}

	// Graceful shutdown: the MCP listener stops accepting, then /readyz
	// says 503 (so that a client that sees it is refused from then on),
	// then the services stop in reverse order.
	lc.quiesce()
	g.ready.Store(false)
	g.notify.Send(daemon.SdNotifyStopping + "\nSTATUS=shutting down")
	timeout := time.Duration(g.cur.Load().Config.Server.ShutdownTimeout)
	logger.Info("shutting down", "timeout", timeout)
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	lc.stop(sctx)
	logger.Info("stopped")
	return runErr
}

// Open is the one composition of a gateway, for serve, validate and call:
// it makes what o leaves unset (the compiler, caching in CacheDir(cfg);
// the metrics registry; the server name and call bound from cfg), builds
// the first snapshot of cfg and applies it. Close releases all of it,
// the compiler included when Open made it.
func Open(ctx context.Context, cfg *loader.Config, o Options) (*Gateway, error) {
	start := time.Now()
	if o.Compiler == nil {
		c, err := NewCompiler(cfg, o.Logger)
		if err != nil {
			return nil, err
		}
		o.Compiler = c
		o.ownCompiler = true
	}
	if o.Metrics == nil {
		o.Metrics = metrics.New(o.Version, o.Revision)
	}
	if o.Name == "" {
		o.Name = cfg.Server.Name
	}
	if o.MaxConcurrentCalls == 0 {
		o.MaxConcurrentCalls = cfg.Server.MaxConcurrentCalls
	}
	g := New(o)
	s, err := g.Build(ctx, cfg)
	if err != nil {
		o.Metrics.ReloadResult(false, time.Now())
		g.plugins.Kept.Close(ctx) // what the failed build compiled
		if o.ownCompiler {
			o.Compiler.Close(context.WithoutCancel(ctx))
		}
		return nil, err
	}
	g.Apply(s)
	o.Metrics.ReloadResult(true, time.Now())
	g.status.Loaded(start, s.Summary())
	return g, nil
}

// explicit reports whether an enabled key was set to true in the file or
// the environment (not merely left to its default).
func explicit(b *bool) bool { return b != nil && *b }

// NewCompiler returns a compiler caching in CacheDir(cfg); when that
// folder cannot be used it says so and caches in memory.
func NewCompiler(cfg *loader.Config, logger *slog.Logger) (*loader.Compiler, error) {
	dir := CacheDir(cfg)
	c, err := loader.NewCompiler(dir, logger)
	if err != nil && dir != "" {
		logger.Warn("compilation cache unavailable; compiling in memory (set server.cache_dir)", "error", err)
		return loader.NewCompiler("", logger)
	}
	return c, err
}

// CacheDir is where compiled modules are cached for cfg, or "" for memory only.
func CacheDir(cfg *loader.Config) string {
	switch d := cfg.Server.CacheDir; d {
	case "off":
		return ""
	case "":
		if d := os.Getenv("CACHE_DIRECTORY"); d != "" { // systemd CacheDirectory=
			return filepath.Join(filepath.SplitList(d)[0], "compiled")
		}
		if d, err := os.UserCacheDir(); err == nil {
			return filepath.Join(d, "wasmgate", "compiled")
		}
		return ""
	default:
		return d
	}
}

// setLogLevel makes v follow server.log.level (validated by Load).
func setLogLevel(v *slog.LevelVar, cfg *loader.Config) {
	var l slog.Level
	if v != nil && l.UnmarshalText([]byte(cfg.Server.Log.Level)) == nil {
		v.Set(l)
	}
}
