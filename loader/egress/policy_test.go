package egress

import (
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

func TestParseGrant(t *testing.T) {
	for _, tt := range []struct {
		in, want, err string
	}{
		{in: "api.example.com", want: "api.example.com"},
		{in: "  API.Example.COM. ", want: "api.example.com"},
		{in: "*.example.com:8443", want: "*.example.com:8443"},
		{in: "localhost:*", want: "localhost:*"},
		{in: "example.com:80*", want: "example.com:80*"},
		{in: "example.com:[0-9]", want: "example.com:[0-9]"},
		{in: "127.0.0.1:9000", want: "127.0.0.1:9000"},
		{in: "[::1]:8080", want: "[::1]:8080"},
		{in: "[0:0::1]", want: "[::1]"},
		{in: "*", want: "*"},
		{in: "*:*", want: "*:*"},
		{in: "", err: "empty host pattern"},
		{in: "   ", err: "empty host pattern"},
		{in: "https://example.com", err: "not a URL"},
		{in: "example.com/path", err: "not a URL"},
		{in: "example.com:", err: "empty port"},
		{in: ":80", err: "empty host"},
		{in: "::1", err: "in brackets"},
		{in: "::1:80", err: "in brackets"},
		{in: "[::1", err: "missing ']'"},
		{in: "[127.0.0.1]:80", err: "not an IPv6 address"},
		{in: "[::1]x", err: "unexpected"},
		{in: "[::1]:", err: "empty port"},
		{in: "example.com:0", err: "out of range"},
		{in: "example.com:65536", err: "out of range"},
		{in: "example.com:http", err: "use a number"},
		{in: "exa mple.com", err: "not allowed in a host name"},
		{in: "user@example.com", err: "not allowed in a host name"},
		{in: "a[b-", err: "bad glob"},
		{in: "example.com:[1-", err: "bad glob"},
	} {
		g, err := ParseGrant(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseGrant(%q) = %v, %v; want an error containing %q", tt.in, g, err, tt.err)
			}
			continue
		}
		if err != nil || g.String() != tt.want {
			t.Errorf("ParseGrant(%q) = %q, %v; want %q", tt.in, g, err, tt.want)
		}
	}
}

func TestParsePolicyNamesEntry(t *testing.T) {
	_, err := ParsePolicy([]string{"ok.example", "bad:port"})
	if err == nil || !strings.Contains(err.Error(), `allowed_hosts[1] "bad:port"`) {
		t.Errorf("ParsePolicy = %v, want an error naming allowed_hosts[1]", err)
	}
}

func TestCheckURL(t *testing.T) {
	for _, tt := range []struct {
		grants []string
		url    string
		ok     bool
	}{
		// No port in the grant: 80 and 443 only, whatever the scheme.
		{[]string{"api.example.com"}, "https://api.example.com/v1", true},
		{[]string{"api.example.com"}, "http://api.example.com/v1", true},
		{[]string{"api.example.com"}, "http://api.example.com:443/", true},
		{[]string{"api.example.com"}, "https://api.example.com:8443/", false},
		{[]string{"api.example.com"}, "http://API.Example.com./", true},
		{[]string{"api.example.com"}, "https://other.example.com/", false},
		{[]string{"api.example.com"}, "https://api.example.com.evil.net/", false},
		{[]string{"api.example.com"}, "ftp://api.example.com/", false},
		{[]string{"api.example.com"}, "file:///etc/passwd", false},
		{[]string{"api.example.com"}, "https:///nohost", false},
		// Ports.
		{[]string{"api.example.com:8443"}, "https://api.example.com:8443/", true},
		{[]string{"api.example.com:8443"}, "https://api.example.com/", false},
		{[]string{"api.example.com:*"}, "http://api.example.com:1/", true},
		{[]string{"api.example.com:80*"}, "http://api.example.com:8080/", true},
		{[]string{"api.example.com:80*"}, "http://api.example.com:9080/", false},
		{[]string{"api.example.com:80*"}, "http://api.example.com/", true},
		// Globs on the host.
		{[]string{"*.example.com"}, "https://a.b.example.com/", true},
		{[]string{"*.example.com"}, "https://example.com/", false},
		{[]string{"*.example.com"}, "https://badexample.com/", false},
		{[]string{"api-?.example.com"}, "https://api-1.example.com/", true},
		{[]string{"*"}, "https://anything.example/", true},
		{[]string{"*"}, "https://anything.example:8443/", false},
		{[]string{"*:*"}, "https://anything.example:8443/", true},
		// IP literals match their canonical form only.
		{[]string{"127.0.0.1:9000"}, "http://127.0.0.1:9000/", true},
		{[]string{"127.0.0.1:9000"}, "http://127.0.0.1:9001/", false},
		{[]string{"127.0.0.1:9000"}, "http://localhost:9000/", false},
		{[]string{"[::1]:9000"}, "http://[0::1]:9000/", true},
		{[]string{"localhost"}, "http://127.0.0.1/", false},
		// Nothing granted.
		{nil, "https://api.example.com/", false},
	} {
		p, err := ParsePolicy(tt.grants)
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		err = p.CheckURL(u)
		var refused *RefusedError
		if tt.ok != (err == nil) || (err != nil && !errors.As(err, &refused)) {
			t.Errorf("%v: CheckURL(%s) = %v, want allowed %v", tt.grants, tt.url, err, tt.ok)
		}
	}
}

func TestCheckAddr(t *testing.T) {
	own := &Listeners{}
	if err := own.Set("127.0.0.1:9090", "[::1]:8080"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		grants []string
		host   string
		port   uint16
		ip     string
		err    string // "" allowed
	}{
		{[]string{"api.example.com"}, "api.example.com", 443, "93.184.216.34", ""},
		{[]string{"api.example.com"}, "api.example.com", 443, "2606:2800:220:1::1", ""},
		// An allowed name resolving to a local address.
		{[]string{"api.example.com"}, "api.example.com", 443, "127.0.0.1", "loopback"},
		{[]string{"api.example.com"}, "api.example.com", 443, "::1", "loopback"},
		{[]string{"api.example.com"}, "api.example.com", 443, "::ffff:127.0.0.1", "loopback"},
		{[]string{"api.example.com"}, "api.example.com", 443, "10.1.2.3", "private"},
		{[]string{"api.example.com"}, "api.example.com", 443, "172.16.0.1", "private"},
		{[]string{"api.example.com"}, "api.example.com", 443, "192.168.1.1", "private"},
		{[]string{"api.example.com"}, "api.example.com", 443, "fd00::1", "private"},
		{[]string{"api.example.com"}, "api.example.com", 443, "169.254.169.254", "link-local"},
		{[]string{"api.example.com"}, "api.example.com", 443, "fe80::1", "link-local"},
		{[]string{"api.example.com"}, "api.example.com", 443, "100.64.0.1", "CGNAT"},
		{[]string{"api.example.com"}, "api.example.com", 443, "0.0.0.0", "unspecified"},
		{[]string{"api.example.com"}, "api.example.com", 443, "::", "unspecified"},
		{[]string{"api.example.com"}, "api.example.com", 443, "224.0.0.1", "multicast"},
		{[]string{"api.example.com"}, "api.example.com", 443, "ff02::1", "multicast"},
		{[]string{"api.example.com"}, "api.example.com", 443, "255.255.255.255", "reserved"},
		{[]string{"api.example.com"}, "api.example.com", 443, "0.1.2.3", "reserved"},
		{[]string{"api.example.com"}, "api.example.com", 443, "64:ff9b::a01:203", "private"},
		{[]string{"api.example.com"}, "api.example.com", 443, "2002:7f00:1::1", "loopback"},
		// Globs never name a local address.
		{[]string{"*"}, "evil.example", 80, "127.0.0.1", "loopback"},
		{[]string{"*:*"}, "127.0.0.1", 8000, "127.0.0.1", "loopback"},
		{[]string{"127.0.0.*:*"}, "127.0.0.1", 8000, "127.0.0.1", "loopback"},
		// An IP literal names that IP, for its own host only.
		{[]string{"127.0.0.1:8000"}, "127.0.0.1", 8000, "127.0.0.1", ""},
		{[]string{"10.0.0.5"}, "10.0.0.5", 443, "10.0.0.5", ""},
		{[]string{"10.0.0.5", "*"}, "evil.example", 443, "10.0.0.5", "private"},
		{[]string{"[::1]:*"}, "::1", 8000, "::1", ""},
		// localhost names the loopback addresses, and nothing else.
		{[]string{"localhost:*"}, "localhost", 8000, "127.0.0.1", ""},
		{[]string{"localhost:*"}, "localhost", 8000, "::1", ""},
		{[]string{"localhost:*"}, "localhost", 8000, "10.0.0.1", "private"},
		{[]string{"localhost:8000", "*:*"}, "localhost", 9000, "127.0.0.1", "loopback"},
		// The gateway's own listeners, even when named.
		{[]string{"127.0.0.1:*"}, "127.0.0.1", 9090, "127.0.0.1", "gateway's own listener"},
		{[]string{"localhost:*"}, "localhost", 9090, "127.0.0.1", "gateway's own listener"},
		{[]string{"localhost:*"}, "localhost", 8080, "::1", "gateway's own listener"},
		{[]string{"0.0.0.0:*"}, "0.0.0.0", 9090, "0.0.0.0", "gateway's own listener"},
		{[]string{"localhost:*"}, "localhost", 8080, "127.0.0.1", ""}, // 8080 listens on ::1 only
	} {
		p, err := ParsePolicy(tt.grants)
		if err != nil {
			t.Fatal(err)
		}
		err = p.CheckAddr(tt.host, tt.port, netip.MustParseAddr(tt.ip), own)
		if tt.err == "" {
			if err != nil {
				t.Errorf("%v: CheckAddr(%s:%d -> %s) = %v, want allowed", tt.grants, tt.host, tt.port, tt.ip, err)
			}
			continue
		}
		var refused *RefusedError
		if err == nil || !errors.As(err, &refused) || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%v: CheckAddr(%s:%d -> %s) = %v, want refused with %q", tt.grants, tt.host, tt.port, tt.ip, err, tt.err)
		}
	}
}

func TestSpecial(t *testing.T) {
	for ip, want := range map[string]string{
		"8.8.8.8":            "",
		"1.1.1.1":            "",
		"2001:4860::8888":    "",
		"172.32.0.1":         "",
		"100.128.0.1":        "",
		"64:ff9b::808:808":   "",
		"2002:808:808::1":    "",
		"127.0.0.1":          "loopback",
		"127.255.255.254":    "loopback",
		"::1":                "loopback",
		"::ffff:10.0.0.1":    "private",
		"fec0::1":            "private",
		"64:ff9b:1::1":       "private",
		"169.254.0.1":        "link-local",
		"100.127.255.255":    "shared (CGNAT)",
		"239.255.255.250":    "multicast",
		"240.0.0.1":          "reserved",
		"192.0.0.8":          "reserved",
		"::7f00:1":           "reserved",
		"fe80::1%eth0":       "link-local",
		"64:ff9b::7f00:1":    "loopback",
		"64:ff9b::a9fe:a9fe": "link-local",
	} {
		if got := Special(netip.MustParseAddr(ip)); got != want {
			t.Errorf("Special(%s) = %q, want %q", ip, got, want)
		}
	}
}

func TestListenersUnspecified(t *testing.T) {
	l := &Listeners{local: func() ([]net.Addr, error) {
		return []net.Addr{&net.IPNet{IP: net.ParseIP("192.0.2.10"), Mask: net.CIDRMask(24, 32)}}, nil
	}}
	if err := l.Set("0.0.0.0:8080", "[::]:9090"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		ip   string
		port uint16
		want bool
	}{
		{"127.0.0.1", 8080, true},
		{"127.0.0.2", 8080, true},
		{"::1", 9090, true},
		{"192.0.2.10", 8080, true},  // this machine's own address
		{"192.0.2.11", 8080, false}, // another machine
		{"127.0.0.1", 8081, false},
		{"0.0.0.0", 9090, true},
		{"::", 8080, true},
	} {
		if got := l.Has(netip.MustParseAddr(tt.ip), tt.port); got != tt.want {
			t.Errorf("Has(%s, %d) = %v, want %v", tt.ip, tt.port, got, tt.want)
		}
	}
	if err := l.Set("localhost:80"); err == nil {
		t.Error("Set(localhost:80) accepted a name")
	}
	var none *Listeners
	if none.Has(netip.MustParseAddr("127.0.0.1"), 80) {
		t.Error("a nil *Listeners has an address")
	}
}
