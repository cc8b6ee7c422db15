package egress

import "strings"

// Origin is the https:// origin of a grant as a Content-Security-Policy
// source expression (what an MCP App's _meta.ui.csp.connectDomains
// lists): "api.example.com" is "https://api.example.com",
// "*.example.com" "https://*.example.com", "127.0.0.1:8443"
// "https://127.0.0.1:8443", a port "*" ":*". ok is false for a grant a
// CSP source cannot say without allowing more than the grant does (a
// glob other than a leading "*." or a lone "*", a port glob): such a
// grant gives an App nothing.
func (g Grant) Origin() (origin string, ok bool) {
	host := g.host
	if g.glob {
		rest, lead := strings.CutPrefix(host, "*.")
		switch {
		case host == "*":
		case lead && !strings.ContainsAny(rest, "*?[]\\"):
		default:
			return "", false
		}
	}
	if g.ip.Is6() {
		host = "[" + host + "]"
	}
	switch {
	case g.port == "":
		return "https://" + host, true
	case g.port == "*":
		return "https://" + host + ":*", true
	case strings.ContainsAny(g.port, "*?[]\\"):
		return "", false
	}
	return "https://" + host + ":" + g.port, true
}

// ConnectDomains are the origins (Grant.Origin) of the grants in
// allowed_hosts, in order, each once; entries that do not parse or
// have no origin are left out (the loader refuses the former).
func ConnectDomains(hosts []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range hosts {
		g, err := ParseGrant(h)
		if err != nil {
			continue
		}
		if o, ok := g.Origin(); ok && !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	return out
}
