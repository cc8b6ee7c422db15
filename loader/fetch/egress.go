package fetch

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"

	"github.com/wasmgate/wasmgate/loader/egress"
)

// Transport returns the transport of fetches from the host (host or
// host:port; the port of a URL naming none is its scheme's) a source URL
// names. It applies plugin HTTP's rules (loader/egress) to every
// connection, the first request's and each redirect's: the gateway's own
// listeners (opts.Listeners) are never reached; a loopback, private or
// other special address only when it is the source's own host and port,
// which the config named; public hosts anywhere, so that a registry or a
// release page may redirect to its CDN. Plain http goes only to a
// loopback host (SecureTransport). The proxy of HTTPS_PROXY/NO_PROXY is
// used as configured: the operator chose it, so connections to it are not
// checked, and where it connects is its own policy. close releases idle
// connections.
func Transport(host string, opts Options) (rt http.RoundTripper, close func(), err error) {
	grant := host
	if h, p, err := net.SplitHostPort(host); err == nil {
		grant = net.JoinHostPort(h, p)
	} else if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		grant = "[" + host + "]"
	}
	policy, err := egress.ParsePolicy([]string{"*:*", grant})
	if err != nil {
		return nil, nil, fmt.Errorf("source host %q: %w", host, err)
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	p := &proxies{}
	t.Proxy = p.proxy
	checked := policy.DialContext(opts.Listeners, nil)
	var direct net.Dialer
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if p.has(addr) {
			return direct.DialContext(ctx, network, addr)
		}
		return checked(ctx, network, addr)
	}
	if opts.TLSConfig != nil {
		t.TLSClientConfig = opts.TLSConfig.Clone()
	}
	return SecureTransport(t), t.CloseIdleConnections, nil
}

// proxies remembers the proxies (host:port) the environment named for a
// transport's requests, which its dialer connects to unchecked.
type proxies struct {
	mu    sync.Mutex
	addrs map[string]bool
}

func (p *proxies) proxy(req *http.Request) (*url.URL, error) {
	u, err := http.ProxyFromEnvironment(req)
	if u == nil || err != nil {
		return u, err
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.addrs == nil {
		p.addrs = map[string]bool{}
	}
	p.addrs[net.JoinHostPort(u.Hostname(), port)] = true
	return u, nil
}

func (p *proxies) has(addr string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addrs[addr]
}
