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
	"sync"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
	"github.com/wasmgate/wasmgate/relay"
)

// watchDebounce gathers an editor's burst of writes into one reload.
const watchDebounce = 50 * time.Millisecond

// listen binds addr for the listener configured at key (named in the
// error) and records the bound address, which plugin HTTP never reaches.
func (g *Gateway) listen(cfg *loader.Config, key, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", cfg.File, key, err)
	}
	g.own = append(g.own, ln.Addr().String())
	if err := g.opts.Compiler.SetListenAddrs(g.own...); err != nil {
		ln.Close()
		return nil, fmt.Errorf("%s: %s: %w", cfg.File, key, err)
	}
	return ln, nil
}

// httpComponent serves MCP Streamable HTTP. Stopping it stops accepting,
// lets running calls finish, then ends the sessions' GET streams.
func (g *Gateway) httpComponent(lc *lifecycle, cfg *loader.Config) component {
	var srv *http.Server
	var streamable *server.StreamableHTTPServer
	h := cfg.Transports.HTTP
	return component{
		name: "MCP HTTP listener",
		start: func(ctx context.Context) error {
			ln, err := g.listen(cfg, "transports.http.listen", h.Listen)
			if err != nil {
				return err
			}
			g.relay.SetListener(relay.Listener{Addr: ln.Addr().String()})
			var handler http.Handler
			handler, streamable = g.HTTPHandler(h.Path, time.Duration(h.SessionIdleTimeout))
			srv = newHTTPServer(cfg, handler, g.log)
			ln = limitConns(ln, h.MaxConnections, g.log)
			g.status.listening("http", "http://"+ln.Addr().String()+h.Path)
			g.log.Info("MCP Streamable HTTP listening", "addr", ln.Addr().String(), "path", h.Path, "url", "http://"+ln.Addr().String()+h.Path)
			lc.goServe("http transport", func() error {
				if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
					return err
				}
				return nil
			})
			return nil
		},
		stop: func(ctx context.Context) {
			done := make(chan struct{})
			go func() {
				defer close(done)
				_ = srv.Shutdown(ctx) // stop accepting; wait for requests
			}()
			g.drain(ctx)
			streamable.CloseSessions(ctx) // ends GET streams so Shutdown can finish
			select {
			case <-done:
			case <-ctx.Done():
				srv.Close()
				<-done
			}
		},
	}
}

// adminComponent serves /metrics, the health checks and /-/reload.
func (g *Gateway) adminComponent(lc *lifecycle, cfg *loader.Config, m *metrics.Metrics) component {
	var srv *http.Server
	return component{
		name: "admin listener",
		start: func(ctx context.Context) error {
			ln, err := g.listen(cfg, "admin.listen", cfg.Admin.Listen)
			if err != nil {
				return err
			}
			srv = newAdminServer(cfg, g.adminHandler(m), g.log)
			ln = newLimitListener(ln, adminMaxConns)
			g.status.listening("admin", "http://"+ln.Addr().String()+"/")
			g.log.Info("admin listening", "addr", ln.Addr().String(), "metrics", "http://"+ln.Addr().String()+"/metrics")
			lc.goServe("admin listener", func() error {
				if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
					return err
				}
				return nil
			})
			return nil
		},
		stop: func(ctx context.Context) { _ = srv.Shutdown(ctx) },
	}
}

// stdinState tells Run when the stdio client closed stdin.
type stdinState struct {
	once   sync.Once
	closed chan struct{}
}

// eofReader closes st.closed when r reports end of input (or fails).
type eofReader struct {
	r  io.Reader
	st *stdinState
}

func (e eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.st.once.Do(func() { close(e.st.closed) })
	}
	return n, err
}

// stdioComponent serves MCP on stdin/stdout. When stdin closes, calls
// already read still finish and answer; stopping it (after the drain)
// ends any that outlived the shutdown timeout.
func (g *Gateway) stdioComponent(lc *lifecycle, stdin io.Reader, stdout io.Writer, st *stdinState) component {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	return component{
		name: "stdio transport",
		start: func(context.Context) error {
			ss := server.NewStdioServer(g.mcp)
			ss.SetErrorLogger(log.New(slogWriter{g.log, "stdio"}, "", 0))
			g.status.listening("stdio", "stdin/stdout")
			g.log.Info("MCP stdio transport on stdin/stdout")
			lc.goServe("stdio transport", func() error {
				defer close(done)
				err := ss.Listen(ctx, eofReader{stdin, st}, stdout)
				if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
					g.log.Warn("stdio transport ended", "error", err)
				}
				st.once.Do(func() { close(st.closed) })
				return nil
			})
			return nil
		},
		stop: func(sctx context.Context) {
			g.drain(sctx)
			cancel()
			<-done
		},
	}
}

// watchComponent reloads when a file the config depends on is saved.
func (g *Gateway) watchComponent(lc *lifecycle, path string, cfg *loader.Config) component {
	ctx, cancel := context.WithCancel(context.Background())
	return component{
		name: "file watcher",
		start: func(context.Context) error {
			w, err := loader.NewWatcher(g.log)
			if err != nil {
				g.log.Warn("hot reload on save is off", "error", err)
				return nil
			}
			g.watcher = w
			w.Track(path, cfg)
			lc.goServe("file watcher", func() error {
				defer w.Close()
				w.Run(ctx, watchDebounce, func(ctx context.Context) { _ = g.ReloadFrom(ctx, TriggerFile) })
				return nil
			})
			return nil
		},
		stop: func(context.Context) { cancel() },
	}
}

// reloadComponent reloads whenever the command asks (SIGHUP).
func (g *Gateway) reloadComponent(lc *lifecycle, reload <-chan struct{}, path string) component {
	ctx, cancel := context.WithCancel(context.Background())
	return component{
		name: "reload trigger",
		start: func(context.Context) error {
			lc.goServe("reload trigger", func() error {
				for {
					select {
					case <-reload:
						g.log.Info("SIGHUP: reloading", "file", path)
						_ = g.ReloadFrom(ctx, TriggerSIGHUP)
					case <-ctx.Done():
						return nil
					}
				}
			})
			return nil
		},
		stop: func(context.Context) { cancel() },
	}
}

// drain waits for running calls until ctx ends, and says so if it does.
func (g *Gateway) drain(ctx context.Context) {
	if err := g.Drain(ctx); err != nil {
		g.log.Warn("shutdown timeout reached with calls still running", "error", err)
	}
}

// optionalComponent is c, except that a start that fails is a warning and
// the gateway serves without it (a listener next to stdio whose port a
// second copy of the same setup already holds).
func optionalComponent(logger *slog.Logger, c component) component {
	started := false
	return component{
		name: c.name,
		start: func(ctx context.Context) error {
			if err := c.start(ctx); err != nil {
				logger.Warn("serving stdio without the "+c.name, "error", err)
				return nil
			}
			started = true
			return nil
		},
		stop: func(ctx context.Context) {
			if started {
				c.stop(ctx)
			}
		},
	}
}

// watchdogComponent sends WATCHDOG=1 to systemd at half of WATCHDOG_USEC
// (when the unit sets WatchdogSec=), each time only if the gateway still
// answers: it is ready, serves a snapshot and the MCP server answers a
// ping. A gateway stuck anywhere on that path stops pinging, and systemd
// restarts it.
func (g *Gateway) watchdogComponent(lc *lifecycle) component {
	ctx, cancel := context.WithCancel(context.Background())
	return component{
		name: "watchdog",
		start: func(context.Context) error {
			every := g.notify.watchdogInterval()
			if every <= 0 {
				return nil
			}
			g.log.Info("systemd watchdog on", "interval_s", every.Seconds())
			lc.goServe("watchdog", func() error {
				t := time.NewTicker(every)
				defer t.Stop()
				for {
					select {
					case <-ctx.Done():
						return nil
					case <-t.C:
						if err := g.healthy(ctx, every); err != nil {
							g.log.Warn("not pinging the systemd watchdog", "error", err)
							continue
						}
						g.notify.send(daemon.SdNotifyWatchdog)
					}
				}
			})
			return nil
		},
		stop: func(context.Context) { cancel() },
	}
}
