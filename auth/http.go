package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/wasmgate/wasmgate/auth/authconfig"
)

// MetadataPath is where RFC 9728 puts the protected-resource metadata of
// a resource at the root of its host. For a resource with a path (the MCP
// endpoint, /mcp), MetadataURL inserts it before the path. (The loader
// keeps endpoints' paths out of it: authconfig.MetadataPath.)
const MetadataPath = authconfig.MetadataPath

// Challenge returns the value of the WWW-Authenticate header of a 401
// answer (RFC 6750): `Bearer realm="wasmgate"`, with
// `error="invalid_token"` when err says a token was given and refused,
// and, when jwt is configured and resourceMetadataURL is not empty,
// `resource_metadata="…"` (RFC 9728) so that an MCP client finds the
// authorization server. Static tokens alone announce no metadata: there
// is no authorization server to send the client to.
func (a *Authenticator) Challenge(resourceMetadataURL string, err error) string {
	parts := []string{`realm="wasmgate"`}
	if errors.Is(err, ErrInvalidToken) {
		parts = append(parts, `error="invalid_token"`)
	}
	if a.jwt != nil && resourceMetadataURL != "" {
		parts = append(parts, "resource_metadata="+quote(resourceMetadataURL))
	}
	return "Bearer " + strings.Join(parts, ", ")
}

// quote writes s as an HTTP quoted-string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			// not allowed in a header value; dropped
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Metadata is the RFC 9728 protected-resource metadata document.
type Metadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	// ResourceSigningAlgValuesSupported lists the JWS algorithms accepted
	// for access tokens.
	ResourceSigningAlgValuesSupported []string `json:"resource_signing_alg_values_supported,omitempty"`
}

// Metadata returns the metadata document of resource (the URL of the MCP
// endpoint; "" means jwt.audience). ok is false without jwt.
func (a *Authenticator) Metadata(resource string) (m Metadata, ok bool) {
	if a.jwt == nil {
		return Metadata{}, false
	}
	if resource == "" {
		resource = a.jwt.cfg.Audience
	}
	algs := make([]string, 0, len(a.jwt.algs))
	for name := range a.jwt.algs {
		algs = append(algs, name)
	}
	slices.Sort(algs)
	return Metadata{
		Resource:                          resource,
		AuthorizationServers:              slices.Clone(a.jwt.cfg.AuthorizationServers),
		BearerMethodsSupported:            []string{"header"},
		ResourceSigningAlgValuesSupported: algs,
	}, true
}

// MetadataHandler serves the metadata document of resource (see
// Metadata) to GET and HEAD, as application/json. Without jwt it answers
// 404. Mount it at MetadataURL(resource)'s path, and at MetadataPath for
// clients that look at the root.
func (a *Authenticator) MetadataHandler(resource string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m, ok := a.Metadata(resource)
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		body, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=300")
		if r.Method == http.MethodGet {
			w.Write(append(body, '\n'))
		}
	})
}

// MetadataURL returns where RFC 9728 puts the metadata of resource: the
// well-known path inserted between the host and the resource's path
// (https://mcp.example.com/mcp ->
// https://mcp.example.com/.well-known/oauth-protected-resource/mcp).
func MetadataURL(resource string) (string, error) {
	u, err := url.Parse(resource)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("resource %q: want an absolute http(s) URL", resource)
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	m := url.URL{Scheme: u.Scheme, Host: u.Host}
	return m.String() + MetadataPath + path, nil
}
