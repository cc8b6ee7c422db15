package upstreamauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Checking an upstream's authorization servers before serving (`wasmgate
// validate`): each endpoint is reached, and the metadata each server
// publishes (RFC 8414, or OpenID Connect discovery) is read and compared
// with what the config says and what the mode needs.

// Finding is one result of Check: an error (the mode cannot work as
// configured) or a warning (it could not be checked, or may not work).
type Finding struct {
	Error bool
	Msg   string
}

func (f Finding) String() string {
	if f.Error {
		return "error: " + f.Msg
	}
	return "warning: " + f.Msg
}

// Server is what a mode needs of one authorization server.
type Server struct {
	// Role names it in messages ("token endpoint", "the enterprise IdP").
	Role string
	// TokenURL is its token endpoint as configured; AuthorizationURL
	// too, for user_oauth.
	TokenURL, AuthorizationURL string
	// Grants are the grant types the mode uses there.
	Grants []string
	// PKCE: the mode sends an S256 code challenge.
	PKCE bool
	// ClientMetadata: the client ID is a client ID metadata document.
	ClientMetadata bool
}

// metadata is the part of RFC 8414 / OpenID discovery metadata Check reads.
type metadata struct {
	Issuer                 string   `json:"issuer"`
	TokenEndpoint          string   `json:"token_endpoint"`
	AuthorizationEndpoint  string   `json:"authorization_endpoint"`
	GrantTypes             []string `json:"grant_types_supported"`
	CodeChallengeMethods   []string `json:"code_challenge_methods_supported"`
	ClientIDMetadataDocSup bool     `json:"client_id_metadata_document_supported"`
}

// Check reaches srv's endpoints with hc and checks the metadata it
// publishes against what the mode needs. upstream names the upstream in
// every message.
func Check(ctx context.Context, hc *http.Client, upstream string, srv Server) []Finding {
	var out []Finding
	bad := func(format string, args ...any) {
		out = append(out, Finding{Error: true, Msg: fmt.Sprintf("upstream %q: %s: ", upstream, srv.Role) + fmt.Sprintf(format, args...)})
	}
	warn := func(format string, args ...any) {
		out = append(out, Finding{Msg: fmt.Sprintf("upstream %q: %s: ", upstream, srv.Role) + fmt.Sprintf(format, args...)})
	}
	for _, u := range []string{srv.TokenURL, srv.AuthorizationURL} {
		if u == "" {
			continue
		}
		if err := reach(ctx, hc, u); err != nil {
			bad("%s: %v", redactURL(u), err)
		}
	}
	md, where, err := discover(ctx, hc, srv.TokenURL)
	if err != nil {
		warn("publishes no authorization server metadata that names %s (%v): its grants and PKCE support are not checked", redactURL(srv.TokenURL), err)
		return out
	}
	if md.TokenEndpoint != srv.TokenURL {
		bad("its metadata (%s) names token endpoint %s, not %s", where, redactURL(md.TokenEndpoint), redactURL(srv.TokenURL))
	}
	if srv.AuthorizationURL != "" && md.AuthorizationEndpoint != "" && md.AuthorizationEndpoint != srv.AuthorizationURL {
		bad("its metadata (%s) names authorization endpoint %s, not %s", where, redactURL(md.AuthorizationEndpoint), redactURL(srv.AuthorizationURL))
	}
	for _, g := range srv.Grants {
		if len(md.GrantTypes) > 0 && !slices.Contains(md.GrantTypes, g) {
			bad("its metadata (%s) does not list grant type %s among grant_types_supported %v", where, g, md.GrantTypes)
		}
	}
	if srv.PKCE {
		switch {
		case len(md.CodeChallengeMethods) == 0:
			warn("its metadata (%s) lists no code_challenge_methods_supported: PKCE S256 support is unknown", where)
		case !slices.Contains(md.CodeChallengeMethods, "S256"):
			bad("its metadata (%s) does not support PKCE S256 (code_challenge_methods_supported %v)", where, md.CodeChallengeMethods)
		}
	}
	if srv.ClientMetadata && !md.ClientIDMetadataDocSup {
		bad("client_metadata: true, but its metadata (%s) does not say client_id_metadata_document_supported", where)
	}
	return out
}

// reach sends a request to an endpoint: any HTTP answer means it is
// there (a token endpoint answers a bare GET with 400 or 405).
func reach(ctx context.Context, hc *http.Client, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("cannot be reached: %v", unwrapURLError(err))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("answered 404 Not Found")
	}
	return nil
}

func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// discover finds the metadata document of the server whose token
// endpoint is tokenURL: RFC 8414's and OpenID discovery's well-known
// locations for the issuer at the origin and at each path prefix of the
// token URL, the first that names tokenURL (else the first found).
func discover(ctx context.Context, hc *http.Client, tokenURL string) (metadata, string, error) {
	u, err := url.Parse(tokenURL)
	if err != nil || u.Host == "" {
		return metadata{}, "", fmt.Errorf("not a URL")
	}
	origin := u.Scheme + "://" + u.Host
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	var candidates []string
	for i := len(parts) - 1; i >= 0; i-- { // the longest issuer path first
		p := "/" + strings.Join(parts[:i], "/")
		p = strings.TrimSuffix(p, "/")
		candidates = append(candidates, origin+"/.well-known/oauth-authorization-server"+p, origin+p+"/.well-known/openid-configuration")
	}
	var first *metadata
	firstAt := ""
	var lastErr error
	for _, c := range candidates {
		md, err := fetchMetadata(ctx, hc, c)
		if err != nil {
			lastErr = err
			continue
		}
		if md.TokenEndpoint == tokenURL {
			return md, c, nil
		}
		if first == nil {
			first, firstAt = &md, c
		}
	}
	if first != nil {
		return *first, firstAt, nil
	}
	if lastErr == nil {
		lastErr = fmt.Errorf("nothing at the well-known locations")
	}
	return metadata{}, "", lastErr
}

func fetchMetadata(ctx context.Context, hc *http.Client, u string) (metadata, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return metadata{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return metadata{}, unwrapURLError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return metadata{}, fmt.Errorf("%s answered %d", redactURL(u), resp.StatusCode)
	}
	var md metadata
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&md); err != nil {
		return metadata{}, fmt.Errorf("%s: not JSON metadata: %v", redactURL(u), err)
	}
	if md.TokenEndpoint == "" {
		return metadata{}, fmt.Errorf("%s names no token_endpoint", redactURL(u))
	}
	return md, nil
}
