package gateway

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/ops"
	"github.com/wasmgate/wasmgate/gateway/transport"
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

// httpService serves MCP Streamable HTTP. Stopping it stops accepting,
// lets running calls finish, then ends the sessions' GET streams.
func (g *Gateway) httpService(lc *lifecycle, cfg *loader.Config) service {
	var srv *http.Server
	var ln net.Listener
	var quiesced atomic.Bool
	h := cfg.Transports.HTTP
	return service{
		name: "MCP HTTP listener",
		start: func(ctx context.Context) error {
			var err error
			ln, err = g.listen(cfg, "transports.http.listen", h.Listen)
			if err != nil {
				return err
			}
			g.relay.SetListener(relay.Listener{Addr: ln.Addr().String()})
			handler, _ := g.HTTPHandler(time.Duration(h.SessionIdleTimeout), h.Heartbeat())
			srv = transport.NewServer(h, g.opts.Procs.Handler(handler), g.log)
			ln = transport.LimitConns(ln, h.MaxConnections, g.log)
			first := g.eps.all()[0].Config().Path
			g.status.Listening("http", "http://"+ln.Addr().String()+first)
			for _, e := range g.eps.all() {
				url := "http://" + ln.Addr().String() + e.Config().Path
				g.log.Info("MCP Streamable HTTP listening", "endpoint", e.Name(), "addr", ln.Addr().String(), "path", e.Config().Path, "url", url)
			}
			lc.goServe("http transport", func() error {
				err := srv.Serve(ln)
				if errors.Is(err, http.ErrServerClosed) || (quiesced.Load() && errors.Is(err, net.ErrClosed)) {
					return nil
				}
				return err
			})
			return nil
		},
		// At shutdown the listener closes first, before /readyz turns 503:
		// from then on a new connection is refused, while the requests
		// under way (and those on connections already open) drain in stop.
		quiesce: func() {
			quiesced.Store(true)
			_ = ln.Close()
		},
		stop: func(ctx context.Context) {
			done := make(chan struct{})
			go func() {
				defer close(done)
				_ = srv.Shutdown(ctx) // stop accepting; wait for requests
			}()
			g.drain(ctx)
			g.eps.closeSessions(ctx) // ends GET streams so Shutdown can finish
			select {
			case <-done:
			case <-ctx.Done():
				srv.Close()
				<-done
			}
		},
	}
}

// adminService serves /metrics, the health checks and /-/reload.
func (g *Gateway) adminService(lc *lifecycle, cfg *loader.Config, m *metrics.Metrics) service {
	var srv *http.Server
	return service{
		name: "admin listener",
		start: func(ctx context.Context) error {
			ln, err := g.listen(cfg, "admin.listen", cfg.Admin.Listen)
			if err != nil {
				return err
			}
			srv = ops.NewAdminServer(cfg.Admin, g.adminHandler(m), g.log)
			ln = transport.NewLimitListener(ln, transport.AdminMaxConns)
			g.status.Listening("admin", "http://"+ln.Addr().String()+"/")
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

// stdioService serves MCP on stdin/stdout. When stdin closes, calls
// already read still finish and answer; stopping it (after the drain)
// ends any that outlived the shutdown timeout.
func (g *Gateway) stdioService(lc *lifecycle, stdin io.Reader, stdout io.Writer, st *stdinState) service {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	return service{
		name: "stdio transport",
		start: func(context.Context) error {
			e := g.eps.Stdio()
			name := e.Name()
			g.stdioEndpoint.Store(&name)
			ss := server.NewStdioServer(e.MCPServer())
			ss.SetErrorLogger(transport.ErrorLog(g.log, "stdio"))
			g.status.Listening("stdio", "stdin/stdout")
			g.log.Info("MCP stdio transport on stdin/stdout", "endpoint", e.Name())
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

// watchService reloads when a file the config depends on is saved.
func (g *Gateway) watchService(lc *lifecycle, path string, cfg *loader.Config) service {
	ctx, cancel := context.WithCancel(context.Background())
	return service{
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
				w.Run(ctx, watchDebounce, func(ctx context.Context, changed []string) { _ = g.ReloadFrom(ctx, TriggerFile, changed...) })
				return nil
			})
			return nil
		},
		stop: func(context.Context) { cancel() },
	}
}

// reloadService reloads whenever the command asks (SIGHUP).
func (g *Gateway) reloadService(lc *lifecycle, reload <-chan struct{}, path string) service {
	ctx, cancel := context.WithCancel(context.Background())
	return service{
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

// optionalService is c, except that a start that fails is a warning and
// the gateway serves without it (a listener next to stdio whose port a
// second copy of the same setup already holds).
func optionalService(logger *slog.Logger, c service) service {
	started := false
	return service{
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
		quiesce: func() {
			if started && c.quiesce != nil {
				c.quiesce()
			}
		},
	}
}

// watchdogService sends WATCHDOG=1 to systemd at half of WATCHDOG_USEC
// (when the unit sets WatchdogSec=), each time only if the gateway still
// answers: it is ready, serves a snapshot and the MCP server answers a
// ping. A gateway stuck anywhere on that path stops pinging, and systemd
// restarts it.
func (g *Gateway) watchdogService(lc *lifecycle) service {
	ctx, cancel := context.WithCancel(context.Background())
	return service{
		name: "watchdog",
		start: func(context.Context) error {
			every := g.notify.WatchdogInterval()
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
						g.notify.Send(daemon.SdNotifyWatchdog)
					}
				}
			})
			return nil
		},
		stop: func(context.Context) { cancel() },
	}
}

// relayService disconnects the relay's pages at shutdown (going away),
// after the MCP listeners have drained the calls they forward.
func (g *Gateway) relayService() service {
	return service{
		name:  "browser relay",
		start: func(context.Context) error { return nil },
		stop:  func(ctx context.Context) { g.relay.Close(ctx) },
	}
}

// HTTPHandler serves MCP Streamable HTTP on every endpoint's path
// (package transport), with the browser relay beside them, following
// the serving snapshot; the server returned is the first endpoint's.
func (g *Gateway) HTTPHandler(idleTTL, heartbeat time.Duration) (http.Handler, *server.StreamableHTTPServer) {
	return g.httpHandler(idleTTL, heartbeat, nil)
}

func (g *Gateway) httpHandler(idleTTL, heartbeat time.Duration, ids *transport.SessionIDs) (http.Handler, *server.StreamableHTTPServer) {
	rt := g.eps.serveHTTP(transport.Options{
		IdleTTL: idleTTL, Heartbeat: heartbeat, IDs: cmp.Or(ids, transport.NewSessionIDs()),
		Current: func() *transport.State {
			if s := g.cur.Load(); s != nil {
				return s.parts.id.http
			}
			return nil
		},
		Shared:  g.sharedSessions,
		Metrics: g.opts.Metrics,
		Logger:  g.log,
	})
	first, _ := rt.Route(g.eps.all()[0].Config().Path)
	return rt, first.Server
}

// adminHandler serves the status page (/ and /api/status), /metrics,
// /healthz, /readyz and POST /-/reload (package ops).
func (g *Gateway) adminHandler(m *metrics.Metrics) http.Handler {
	return ops.AdminHandler(ops.AdminOptions{
		Metrics: m,
		Logger:  g.log,
		Current: func() (loader.Admin, string, bool) {
			s := g.cur.Load()
			if s == nil {
				return loader.Admin{}, "", false
			}
			return s.Config.Admin, s.parts.id.adminToken.Value(), true
		},
		Reload: func(ctx context.Context) (string, error) {
			if err := g.ReloadFrom(ctx, TriggerAdmin); err != nil {
				return "", err
			}
			return g.cur.Load().Summary(), nil
		},
		Ready:       g.ready.Load,
		Status:      g.Status,
		Credentials: g.credentialsAdmin(),
		Flows:       g.flowsAdmin(),
		Lock: func(ctx context.Context, write bool, digest string) (any, error) {
			return g.Lock(ctx, write, digest)
		},
	})
}
