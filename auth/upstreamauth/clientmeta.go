package upstreamauth

import (
	"encoding/json"
	"strings"
)

// clientMetadataPath is where the gateway serves its client ID metadata
// documents, one per upstream: clientMetadataPath + <upstream> + ".json".
const clientMetadataPath = "/oauth/client-metadata/"

// clientMetadataURL is the client ID metadata document's URL for one
// upstream, which is also the client_id the gateway uses there.
func clientMetadataURL(publicURL, upstream string) string {
	return strings.TrimSuffix(publicURL, "/") + clientMetadataPath + upstream + ".json"
}

// ClientMetadata is an OAuth client ID metadata document
// (draft-ietf-oauth-client-id-metadata-document, which the MCP
// authorization specification of 2025-11-25 prefers over dynamic client
// registration): the authorization server fetches the client_id URL and
// finds this.
type ClientMetadata struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	ClientURI               string   `json:"client_uri"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	Scope                   string   `json:"scope,omitempty"`
}

// ClientMetadata is the source's client ID metadata document; ok is false
// unless the source was made with ClientMetadata.
func (u *UserOAuth) ClientMetadata() (doc ClientMetadata, ok bool) {
	if !u.opts.ClientMetadata {
		return ClientMetadata{}, false
	}
	return ClientMetadata{
		ClientID:                u.opts.ClientID,
		ClientName:              "wasmgate (" + u.opts.Upstream + ")",
		ClientURI:               u.opts.PublicURL,
		RedirectURIs:            []string{u.conf.RedirectURL},
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: "none",
		Scope:                   strings.Join(u.opts.Scopes, " "),
	}, true
}

// clientMetadataJSON is the document as served.
func (u *UserOAuth) clientMetadataJSON() ([]byte, bool) {
	doc, ok := u.ClientMetadata()
	if !ok {
		return nil, false
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil { // strings and string slices always marshal
		return nil, false
	}
	return append(b, '\n'), true
}
