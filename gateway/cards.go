package gateway

import (
	"cmp"
	"fmt"
	"net/http"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/gateway/endpoint"
	"github.com/wasmgate/wasmgate/gateway/servercard"
	"github.com/wasmgate/wasmgate/gateway/transport"
)

// Server cards and the catalog (docs/apps-and-skills.md): each endpoint's
// card at <path>/server-card, and an AI Catalog of them at
// /.well-known/ai-catalog.json, on the MCP HTTP listener.

// card is e's server card builder for the listener.
func (es *endpoints) card(e *endpoint.Endpoint) func(r *http.Request, anonymous bool, st *transport.State) any {
	return func(r *http.Request, anonymous bool, st *transport.State) any {
		cfg := e.Config()
		base := servercard.Base(r)
		pub := e.Public(r.Context(), anonymous)
		open := anonymous && cfg.Access.Allows("anonymous", nil)
		desc := fmt.Sprintf("The %s endpoint of an MCP gateway", e.Name())
		if open && cfg.Instructions != "" {
			desc = cfg.Instructions
		}
		remote := servercard.Remote{Type: "streamable-http", URL: base + cfg.Path, SupportedProtocolVersions: servercard.ProtocolVersions()}
		meta := map[string]any{servercard.MetaPrefix + "endpoint": e.Name()}
		if !anonymous {
			schemes := []string{"bearer"}
			if st.Identity.JWT != nil {
				schemes = append(schemes, "oauth2")
				meta[servercard.MetaPrefix+"authorization"] = map[string]any{
					"resourceMetadata": base + auth.MetadataPath + cfg.Path,
				}
			}
			remote.Authentication = &servercard.Authentication{Required: true, Schemes: schemes}
			remote.Headers = []servercard.Header{{
				Name: "Authorization", Description: "The caller's bearer token",
				IsRequired: true, IsSecret: true, Value: "Bearer {token}",
				Variables: map[string]servercard.Input{"token": {Description: "An access token for this endpoint", IsRequired: true, IsSecret: true}},
			}}
		}
		return servercard.Card{
			Schema:       servercard.Schema,
			Name:         servercard.Name(r.Host, e.Name()),
			Version:      cmp.Or(e.Version(), "unknown"),
			Description:  servercard.Description(desc),
			Title:        servercard.Description(cfg.Title),
			Remotes:      []servercard.Remote{remote},
			Capabilities: e.Capabilities(),
			Tools:        pub.Tools,
			Resources:    pub.Resources,
			Prompts:      pub.Prompts,
			Meta:         meta,
		}
	}
}

// catalog serves the AI Catalog of the serving endpoints' cards.
func (es *endpoints) catalog(w http.ResponseWriter, r *http.Request) {
	base := servercard.Base(r)
	doc := servercard.Catalog{SpecVersion: servercard.CatalogSpecVersion, Entries: []servercard.Entry{}}
	for _, e := range es.all() {
		doc.Entries = append(doc.Entries, servercard.Entry{
			Identifier: servercard.Identifier(r.Host, e.Name()),
			Type:       servercard.MediaType,
			URL:        base + e.Config().Path + servercard.Suffix,
		})
	}
	servercard.Write(w, r, servercard.CatalogMediaType, doc)
}
