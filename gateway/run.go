package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
)

// watchDebounce gathers an editor's burst of writes into one reload.
const watchDebounce = 50 * time.Millisecond

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
	start := time.Now()
	compiler, err := NewCompiler(cfg, logger)
	if err != nil {
		return err
	}
	defer compiler.Close(context.Background())
	m := metrics.New(o.Version, o.Revision)
	g := New(Options{Logger: logger, Metrics: m, Compiler: compiler, Name: cfg.Server.Name, Version: o.Version,
		ConfigPath: o.ConfigPath, Environ: o.Environ, LogLevel: o.LogLevel})
	snap, err := g.Build(ctx, cfg)
	if err != nil {
		m.ReloadResult(false, time.Now())
		return err
	}
	g.Apply(snap)
	m.ReloadResult(true, time.Now())
	logger.Info("configuration loaded", "file", cfg.File, "took", time.Since(start).Round(time.Millisecond), "summary", snap.Summary())

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	errc := make(chan error, 3)

	var httpSrv *http.Server
	var streamable *server.StreamableHTTPServer
	if h := cfg.Transports.HTTP; h.On() {
		ln, err := net.Listen("tcp", h.Listen)
		if err != nil {
			g.Close(context.Background())
			return fmt.Errorf("%s: transports.http.listen: %w", cfg.File, err)
		}
		var handler http.Handler
		handler, streamable = g.HTTPHandler(h.Path, time.Duration(h.SessionIdleTimeout))
		httpSrv = newHTTPServer(cfg, handler, logger)
		ln = limitConns(ln, h.MaxConnections, logger)
		logger.Info("MCP Streamable HTTP listening", "addr", ln.Addr().String(), "path", h.Path, "url", "http://"+ln.Addr().String()+h.Path)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := httpSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("http transport: %w", err)
			}
		}()
	}

	var adminSrv *http.Server
	if a := cfg.Admin; a.On() {
		ln, err := net.Listen("tcp", a.Listen)
		if err != nil {
			if httpSrv != nil {
				httpSrv.Close()
			}
			g.Close(context.Background())
			return fmt.Errorf("%s: admin.listen: %w", cfg.File, err)
		}
		adminSrv = newAdminServer(cfg, g.adminHandler(m), logger)
		ln = newLimitListener(ln, adminMaxConns)
		logger.Info("admin listening", "addr", ln.Addr().String(), "metrics", "http://"+ln.Addr().String()+"/metrics")
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := adminSrv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("admin listener: %w", err)
			}
		}()
	}

	stdioDone := make(chan struct{})
	stdioCtx, stopStdio := context.WithCancel(context.WithoutCancel(ctx))
	defer stopStdio()
	if o.Stdio || cfg.Transports.Stdio.Enabled {
		ss := server.NewStdioServer(g.mcp)
		ss.SetErrorLogger(log.New(slogWriter{logger, "stdio"}, "", 0))
		logger.Info("MCP stdio transport on stdin/stdout")
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(stdioDone)
			if err := ss.Listen(stdioCtx, o.Stdin, o.Stdout); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
				logger.Warn("stdio transport ended", "error", err)
			}
			logger.Info("stdin closed: shutting down")
		}()
	}

	// Reload triggers: saving a watched file, SIGHUP, POST /-/reload.
	if cfg.Server.WatchOn() {
		w, err := loader.NewWatcher(logger)
		if err != nil {
			logger.Warn("hot reload on save is off", "error", err)
		} else {
			defer w.Close()
			g.watcher = w
			w.Track(o.ConfigPath, cfg)
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.Run(ctx, watchDebounce, func(ctx context.Context) { _ = g.Reload(ctx) })
			}()
		}
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-hup:
				logger.Info("SIGHUP: reloading", "file", o.ConfigPath)
				_ = g.Reload(ctx)
			case <-ctx.Done():
				return
			}
		}
	}()

	g.ready.Store(true)
	logger.Info("wasmgate ready", "took", time.Since(start).Round(time.Millisecond))
	_, _ = daemon.SdNotify(false, daemon.SdNotifyReady)

	var runErr error
	select {
	case <-ctx.Done():
	case <-stdioDone:
	case runErr = <-errc:
	}

	// Graceful shutdown.
	g.ready.Store(false)
	_, _ = daemon.SdNotify(false, daemon.SdNotifyStopping)
	timeout := time.Duration(g.cur.Load().Config.Server.ShutdownTimeout)
	logger.Info("shutting down", "timeout", timeout)
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	httpDone := make(chan struct{})
	if httpSrv != nil {
		go func() {
			defer close(httpDone)
			_ = httpSrv.Shutdown(sctx) // stop accepting; wait for requests
		}()
	} else {
		close(httpDone)
	}
	if err := g.Drain(sctx); err != nil {
		logger.Warn("shutdown timeout reached with calls still running", "error", err)
	}
	if streamable != nil {
		streamable.CloseSessions(sctx) // ends GET streams so Shutdown can finish
	}
	select {
	case <-httpDone:
	case <-sctx.Done():
		httpSrv.Close()
		<-httpDone
	}
	stopStdio()
	stop() // ends the watcher and the SIGHUP loop
	if err := g.Close(sctx); err != nil {
		logger.Warn("closing plugins", "error", err)
	}
	if adminSrv != nil {
		_ = adminSrv.Shutdown(sctx)
	}
	wg.Wait()
	logger.Info("stopped")
	return runErr
}

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

// slogWriter adapts a *log.Logger sink to slog, for libraries that log
// through the standard logger.
type slogWriter struct {
	l    *slog.Logger
	from string
}

func (w slogWriter) Write(p []byte) (int, error) {
	w.l.Warn(string(trimNL(p)), "component", w.from)
	return len(p), nil
}

func trimNL(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}
