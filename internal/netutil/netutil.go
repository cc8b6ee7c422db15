// Package netutil holds the small address checks that several packages
// make the same way.
package netutil

import (
	"net"
	"strings"
)

// Loopback reports whether host (a name or an IP, with or without a port)
// is this machine: localhost, 127.0.0.0/8 or ::1. Other names are not
// resolved: a name may point anywhere tomorrow.
func Loopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// LoopbackListen reports whether a listen address (host:port) is bound to
// loopback only; an empty host (":8080") listens everywhere.
func LoopbackListen(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && host != "" && Loopback(host)
}

// AdminHeader is the request header the admin listener's state-changing
// endpoints (POST /-/reload, POST /-/lock) require when admin.auth sets
// no token: `curl -X POST -H 'Wasmgate-Admin: 1' ...`. A browser sends a
// custom header to another origin only after a CORS preflight the admin
// never grants, and the gateway's own outbound clients (upstreams, their
// token endpoints, plugin HTTP, module fetches, tracing) never send it,
// so a redirect that makes one of them POST to the admin listener is
// refused.
const AdminHeader = "Wasmgate-Admin"
