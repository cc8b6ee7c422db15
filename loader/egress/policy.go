// Package egress is the HTTP client a plugin's outbound requests go
// through: it enforces the plugin's allowed_hosts grants on the first
// request and on every redirect, checks the address every connection
// actually goes to, never reaches the gateway's own listeners, and bounds
// the response's size and the request's time.
//
// # allowed_hosts
//
// Each grant is host[:port]:
//
//   - host is a name (api.example.com), a glob over names (*.example.com;
//     '*' matches any run of characters, dots included, '?' one character,
//     [a-z] a class), an IPv4 literal (192.0.2.7) or a bracketed IPv6
//     literal ([2001:db8::7]). Names are matched case-insensitively.
//   - port is a number, a glob over the port's digits (80*), or '*' for any
//     port. Without a port a grant allows ports 80 and 443 only.
//
// A request is allowed when its URL's host and port (80 for http, 443 for
// https when the URL names none) match one grant. Only http and https URLs
// are allowed.
//
// # Addresses
//
// Whatever the grant, a connection is refused when its address (the IP a
// name resolved to, checked again on the socket before it connects) is
// loopback, link-local, private (RFC 1918, IPv6 ULA), shared (CGNAT,
// 100.64.0.0/10), unspecified, multicast or reserved, unless a grant that
// matches the request's host and port names that address explicitly: an
// IP-literal grant names that IP, and the grant host "localhost" names the
// loopback addresses. A glob never names one, so "*" reaches public
// addresses only, and DNS cannot point an allowed name at the local
// network. The gateway's own listeners are refused even when named.
package egress

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// Grant is one parsed allowed_hosts entry.
type Grant struct {
	host string     // lower-case name, glob, or canonical IP literal
	ip   netip.Addr // valid for an IP-literal grant
	glob bool       // host is a glob
	port string     // "" (80 and 443), "*", a number or a glob
}

// String writes the grant as it is matched.
func (g Grant) String() string {
	h := g.host
	if g.ip.Is6() {
		h = "[" + h + "]"
	}
	if g.port == "" {
		return h
	}
	return h + ":" + g.port
}

// ParseGrant parses one allowed_hosts entry: host[:port], see the package
// documentation.
func ParseGrant(s string) (Grant, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return Grant{}, errors.New("empty host pattern")
	}
	if strings.Contains(s, "/") {
		return Grant{}, errors.New("write host[:port], not a URL")
	}
	var g Grant
	var host string
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return Grant{}, errors.New("missing ']' after an IPv6 address")
		}
		ip, err := netip.ParseAddr(s[1:end])
		if err != nil || !ip.Is6() {
			return Grant{}, fmt.Errorf("%q is not an IPv6 address", s[1:end])
		}
		host, g.ip = ip.String(), ip
		rest := s[end+1:]
		if rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return Grant{}, fmt.Errorf("unexpected %q after ']'", rest)
			}
			g.port = rest[1:]
			if g.port == "" {
				return Grant{}, errors.New("empty port after ':'")
			}
		}
	} else {
		switch strings.Count(s, ":") {
		case 0:
			host = s
		case 1:
			host, g.port, _ = strings.Cut(s, ":")
			if g.port == "" {
				return Grant{}, errors.New("empty port after ':'")
			}
		default:
			return Grant{}, errors.New("write an IPv6 address in brackets, e.g. [::1]:8080")
		}
		host = strings.TrimSuffix(host, ".")
		if host == "" {
			return Grant{}, errors.New("empty host")
		}
		if ip, err := netip.ParseAddr(host); err == nil {
			if ip.Is6() {
				return Grant{}, errors.New("write an IPv6 address in brackets, e.g. [::1]:8080")
			}
			host, g.ip = ip.String(), ip
		} else {
			for _, r := range host {
				if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("-._*?[]^", r)) {
					return Grant{}, fmt.Errorf("host %q: %q is not allowed in a host name or glob", host, r)
				}
			}
			if _, err := path.Match(host, ""); err != nil {
				return Grant{}, fmt.Errorf("host %q: bad glob", host)
			}
			g.glob = strings.ContainsAny(host, "*?[")
		}
	}
	g.host = host
	if g.port != "" && g.port != "*" {
		if strings.Trim(g.port, "0123456789*?[]^-") != "" {
			return Grant{}, fmt.Errorf("port %q: use a number, a glob over digits or '*'", g.port)
		}
		if _, err := path.Match(g.port, ""); err != nil {
			return Grant{}, fmt.Errorf("port %q: bad glob", g.port)
		}
		if !strings.ContainsAny(g.port, "*?[") {
			if n, err := strconv.Atoi(g.port); err != nil || n < 1 || n > 65535 {
				return Grant{}, fmt.Errorf("port %q is out of range (1..65535)", g.port)
			}
		}
	}
	return g, nil
}

// matches reports whether the grant allows host (normalized by target) on
// port.
func (g Grant) matches(host string, port uint16) bool {
	if !g.matchesHost(host) {
		return false
	}
	switch g.port {
	case "":
		return port == 80 || port == 443
	case "*":
		return true
	}
	ok, _ := path.Match(g.port, strconv.Itoa(int(port)))
	return ok
}

func (g Grant) matchesHost(host string) bool {
	if g.glob {
		ok, _ := path.Match(g.host, host)
		return ok
	}
	return host == g.host
}

// names reports whether the grant names ip explicitly, allowing it even
// when it is loopback, private or otherwise local.
func (g Grant) names(ip netip.Addr) bool {
	if g.ip.IsValid() {
		return g.ip.Unmap().WithZone("") == ip.WithZone("")
	}
	return !g.glob && g.host == "localhost" && ip.IsLoopback()
}

// Policy is a plugin's parsed allowed_hosts.
type Policy struct{ grants []Grant }

// ParsePolicy parses allowed_hosts. The error names the first bad entry.
func ParsePolicy(hosts []string) (*Policy, error) {
	p := &Policy{}
	for i, h := range hosts {
		g, err := ParseGrant(h)
		if err != nil {
			return nil, fmt.Errorf("allowed_hosts[%d] %q: %w", i, h, err)
		}
		p.grants = append(p.grants, g)
	}
	return p, nil
}

// target returns the host (lower case, without a trailing dot, an IP in
// canonical form) and port a URL connects to.
func target(u *url.URL) (string, uint16, error) {
	var port uint16
	switch u.Scheme {
	case "http":
		port = 80
	case "https":
		port = 443
	default:
		return "", 0, fmt.Errorf("scheme %q is not allowed (http and https only)", u.Scheme)
	}
	host := normalizeHost(u.Hostname())
	if host == "" {
		return "", 0, errors.New("the URL has no host")
	}
	if s := u.Port(); s != "" {
		n, err := strconv.ParseUint(s, 10, 16)
		if err != nil || n == 0 {
			return "", 0, fmt.Errorf("port %q is out of range (1..65535)", s)
		}
		port = uint16(n)
	}
	return host, port, nil
}

func normalizeHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if ip, err := netip.ParseAddr(h); err == nil {
		return ip.String()
	}
	return h
}

// allows reports whether a grant matches host:port (as target returns
// them), before any address check.
func (p *Policy) allows(host string, port uint16) bool {
	for _, g := range p.grants {
		if g.matches(host, port) {
			return true
		}
	}
	return false
}

// CheckURL returns a *RefusedError unless the URL's scheme, host and port
// are granted.
func (p *Policy) CheckURL(u *url.URL) error {
	host, port, err := target(u)
	if err != nil {
		return &RefusedError{Reason: err.Error()}
	}
	if !p.allows(host, port) {
		reason := net.JoinHostPort(host, strconv.Itoa(int(port))) + " is not in allowed_hosts"
		for _, g := range p.grants {
			if g.matchesHost(host) {
				reason += " (the host is granted on other ports)"
				break
			}
		}
		return &RefusedError{Reason: reason}
	}
	return nil
}

// CheckAddr returns a *RefusedError unless a connection for a request to
// host:port may go to ip: the gateway's own listeners (own, may be nil) are
// always refused, and a local or special address only when a grant
// matching host:port names it.
func (p *Policy) CheckAddr(host string, port uint16, ip netip.Addr, own *Listeners) error {
	ip = ip.Unmap()
	addr := netip.AddrPortFrom(ip, port).String()
	if own.Has(ip, port) {
		return &RefusedError{Reason: fmt.Sprintf("%s is the gateway's own listener", addr)}
	}
	kind := Special(ip)
	if kind == "" {
		return nil
	}
	for _, g := range p.grants {
		if g.matches(host, port) && g.names(ip) {
			return nil
		}
	}
	what := addr
	if host != ip.String() {
		what = fmt.Sprintf("%s (%s)", addr, host)
	}
	return &RefusedError{Reason: fmt.Sprintf("%s is a %s address; allowed_hosts must name it (the IP itself, or localhost for loopback) to reach it", what, kind)}
}

// RefusedError is a request, redirect or connection the policy refuses.
type RefusedError struct {
	Reason string
}

func (e *RefusedError) Error() string { return "refused: " + e.Reason }

var (
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	shared      = netip.MustParsePrefix("100.64.0.0/10")
	ietf        = netip.MustParsePrefix("192.0.0.0/24")
	reserved4   = netip.MustParsePrefix("240.0.0.0/4")
	siteLocal   = netip.MustParsePrefix("fec0::/10")
	compat4     = netip.MustParsePrefix("::/96")
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local  = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// Special returns what kind of non-public address ip is ("loopback",
// "private", ...), or "" for a public one. An IPv6 address embedding an
// IPv4 one (mapped, NAT64, 6to4) is judged by the IPv4 address.
func Special(ip netip.Addr) string {
	ip = ip.Unmap().WithZone("")
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsMulticast():
		return "multicast"
	case ip.IsPrivate(), siteLocal.Contains(ip), nat64Local.Contains(ip):
		return "private"
	case thisNetwork.Contains(ip), ietf.Contains(ip), reserved4.Contains(ip), compat4.Contains(ip):
		return "reserved"
	case shared.Contains(ip):
		return "shared (CGNAT)"
	case nat64.Contains(ip):
		b := ip.As16()
		return Special(netip.AddrFrom4([4]byte(b[12:16])))
	case sixToFour.Contains(ip):
		b := ip.As16()
		return Special(netip.AddrFrom4([4]byte(b[2:6])))
	}
	return ""
}
