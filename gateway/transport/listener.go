package transport

import (
	"log/slog"
	"net"
	"sync"
)

// fdReserve is how many file descriptors the MCP listener leaves to the
// rest of the process (the admin listener, plugin files, the compilation
// cache, logs) when the descriptor limit is low: transports.http
// .max_connections is lowered to the limit minus this, or minus half the
// limit if that is smaller.
const fdReserve = 256

// AdminMaxConns bounds the admin listener's connections: Prometheus, health
// checks and an operator need few.
const AdminMaxConns = 32

// LimitConns bounds the MCP listener to transports.http.max_connections
// connections, lowered to fit the process's descriptor limit (RLIMIT_NOFILE,
// systemd's LimitNOFILE) with fdReserve to spare, so that clients holding
// connections cannot take the descriptors the admin listener needs.
func LimitConns(ln net.Listener, want int, logger *slog.Logger) net.Listener {
	n := want
	if limit := openFileLimit(); limit > 0 {
		if avail := limit - min(fdReserve, limit/2); n > avail {
			n = max(avail, 1)
			logger.Warn("transports.http.max_connections lowered to fit the open-file limit",
				"max_connections", want, "now", n, "open_file_limit", limit,
				"hint", "raise LimitNOFILE (ulimit -n) to at least max_connections + 256")
		}
	}
	return NewLimitListener(ln, n)
}

// limitListener accepts at most n connections at once. Past that, Accept
// waits for one to close; new connections wait in the kernel's accept
// queue, holding no descriptor of this process.
type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func NewLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, sem: make(chan struct{}, n), done: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, release: sync.OnceFunc(func() { <-l.sem })}, nil
}

func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

// limitConn gives its place back when closed.
type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// CloseWrite lets net/http half-close the connection before closing it, so
// that a client still sending reads the error response instead of a reset.
func (c *limitConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
