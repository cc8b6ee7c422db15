package relayconfig

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/wasmgate/wasmgate/config"
)

// ---- The namespace of a site's resources (issue 16) ----
//
// A page registers resources and resource templates only under URI
// schemes its site owns: relay.sites[i].resource_schemes, or by default
// the scheme derived from the site's prefix (DefaultScheme): prefix
// "demo_" owns demo://..., "my_app_" owns my-app://... Two sites may not
// own the same scheme; a scheme a plugin also serves is caught by the
// index's ownership checks (one URI or template claimed once, no static
// URI inside another source's template).

// schemeRE is RFC 3986's scheme: a letter, then letters, digits, '+',
// '-' or '.'.
var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]{0,31}$`)

// ValidScheme reports whether s is a URI scheme (RFC 3986, at most 32
// characters).
func ValidScheme(s string) bool { return schemeRE.MatchString(s) }

// DefaultScheme is the scheme a site with prefix owns when its config
// grants none: the prefix without its trailing separator ('_', '-' or
// '.'), lower case, '_' written as '-'. It is "" when that is no scheme
// (a prefix starting with a digit, say): such a site's pages register
// resources only under resource_schemes.
func DefaultScheme(prefix string) string {
	s := strings.TrimRight(prefix, "_-.")
	s = strings.ToLower(strings.ReplaceAll(s, "_", "-"))
	if !ValidScheme(s) {
		return ""
	}
	return s
}

// Schemes are the URI schemes the site's pages may register resources
// under, lower case.
func (s SiteConfig) Schemes() []string {
	if len(s.ResourceSchemes) > 0 {
		return s.ResourceSchemes
	}
	if s.Protocol == ProtocolWULegacy {
		return nil // its pages register no resources
	}
	if d := DefaultScheme(s.Prefix); d != "" {
		return []string{d}
	}
	return nil
}

// OwnsURI reports whether uri (a URI or URI template a page registers)
// is under one of the site's schemes.
func (s SiteConfig) OwnsURI(uri string) bool {
	i := strings.Index(uri, ":")
	if i <= 0 {
		return false
	}
	scheme := strings.ToLower(uri[:i])
	for _, o := range s.Schemes() {
		if scheme == o {
			return true
		}
	}
	return false
}

// NamespaceHint says in a message which URIs a site's page may register.
func (s SiteConfig) NamespaceHint() string {
	sc := s.Schemes()
	if len(sc) == 0 {
		return fmt.Sprintf("%s.resource_schemes grants none and prefix %q gives no URI scheme", s.Key, s.Prefix)
	}
	return fmt.Sprintf("the site's pages register resources under %s:// (%s)", strings.Join(sc, "://, "), s.Key+".resource_schemes or its prefix")
}

// normalizeSchemes checks resource_schemes (syntax, duplicates) and that
// no two sites own the same scheme.
func (c *Config) normalizeSchemes(env *config.Env) {
	owner := map[string]string{}
	for i := range c.Sites {
		s := &c.Sites[i]
		if s.Protocol == ProtocolWULegacy && len(s.ResourceSchemes) > 0 {
			env.Bad(s.Key+".resource_schemes", "a wu-legacy site's pages register no resources")
			continue
		}
		for j, sc := range s.ResourceSchemes {
			k := fmt.Sprintf("%s.resource_schemes[%d]", s.Key, j)
			if !ValidScheme(sc) {
				env.Bad(k, "%q is not a URI scheme: a letter, then letters, digits, '+', '-' or '.' (at most 32), without ://", sc)
				continue
			}
			s.ResourceSchemes[j] = strings.ToLower(sc)
		}
		seen := map[string]bool{}
		for _, sc := range s.Schemes() {
			if !ValidScheme(sc) || seen[sc] {
				continue
			}
			seen[sc] = true
			if prev, ok := owner[sc]; ok {
				env.Bad(s.Key+".resource_schemes", "URI scheme %q is also the resource namespace of %s: give each site its own (resource_schemes, or a different prefix)", sc, prev)
				continue
			}
			owner[sc] = s.Key
		}
	}
}
