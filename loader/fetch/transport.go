package fetch

import (
	"fmt"
	"net/http"

	"github.com/wasmgate/wasmgate/internal/netutil"
)

// Loopback reports whether host (a name or an IP, with or without a port)
// is this machine: localhost, 127.0.0.0/8 or ::1.
func Loopback(host string) bool { return netutil.Loopback(host) }

// SecureTransport wraps base so that it refuses every plain-http request
// except to a loopback host: modules and registry tokens travel over TLS,
// and only a registry or server on this machine (tests, a local mirror)
// may speak plain http. Redirects go through it too.
func SecureTransport(base http.RoundTripper) http.RoundTripper {
	return secureTransport{base}
}

type secureTransport struct{ base http.RoundTripper }

func (t secureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" && !(req.URL.Scheme == "http" && Loopback(req.URL.Host)) {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, fmt.Errorf("refusing %s://%s: only https is allowed (plain http only to a loopback host)", req.URL.Scheme, req.URL.Host)
	}
	return t.base.RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of the wrapped
// transport, if it keeps any.
func (t secureTransport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
