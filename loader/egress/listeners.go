package egress

import (
	"fmt"
	"net"
	"net/netip"
	"sync/atomic"
)

// Listeners is the set of the gateway's own listen addresses, which no
// plugin may connect to whatever its grants say. It is safe for concurrent
// use, and clients check it on every connection, so Set may be called
// after the clients were built (listeners on port 0 are known only once
// they listen). The zero value is an empty set; a nil *Listeners too.
type Listeners struct {
	addrs atomic.Pointer[[]netip.AddrPort]
	// local lists this machine's addresses, for listeners bound to the
	// unspecified address; nil means net.InterfaceAddrs.
	local func() ([]net.Addr, error)
}

// Set replaces the set with addrs, each an ip:port as net.Listener.Addr
// writes it (127.0.0.1:8080, [::]:9090).
func (l *Listeners) Set(addrs ...string) error {
	list := make([]netip.AddrPort, 0, len(addrs))
	for _, a := range addrs {
		ap, err := netip.ParseAddrPort(a)
		if err != nil {
			return fmt.Errorf("gateway listen address %q: %w", a, err)
		}
		list = append(list, netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port()))
	}
	l.addrs.Store(&list)
	return nil
}

// Has reports whether a connection to ip:port would reach one of the
// listeners. A listener on the unspecified address (0.0.0.0, ::) is
// reached through any loopback or local address; a connection to the
// unspecified address reaches any local listener.
func (l *Listeners) Has(ip netip.Addr, port uint16) bool {
	if l == nil {
		return false
	}
	p := l.addrs.Load()
	if p == nil {
		return false
	}
	ip = ip.Unmap().WithZone("")
	for _, a := range *p {
		if a.Port() != port {
			continue
		}
		switch {
		case a.Addr() == ip, ip.IsUnspecified():
			return true
		case a.Addr().IsUnspecified():
			if ip.IsLoopback() || l.isLocal(ip) {
				return true
			}
		}
	}
	return false
}

// isLocal reports whether ip is one of this machine's interface addresses.
// When they cannot be listed, every address counts as local (refusing the
// listener's port everywhere is the safe side).
func (l *Listeners) isLocal(ip netip.Addr) bool {
	list := l.local
	if list == nil {
		list = net.InterfaceAddrs
	}
	addrs, err := list()
	if err != nil {
		return true
	}
	for _, a := range addrs {
		var s string
		switch a := a.(type) {
		case *net.IPNet:
			s = a.IP.String()
		case *net.IPAddr:
			s = a.IP.String()
		default:
			continue
		}
		if la, err := netip.ParseAddr(s); err == nil && la.Unmap() == ip {
			return true
		}
	}
	return false
}
