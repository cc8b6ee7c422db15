// Package servercard is the discovery documents of the gateway's
// endpoints: a server card for each (the MCP Server Card working group's
// draft, SEP-2127, as the experimental-ext-server-card repository has it
// at commit 8924e08, 2026-07-24) and an AI Catalog listing them
// (docs/apps-and-skills.md, "Server cards and the catalog"). It holds the
// documents' shapes and how they are served over HTTP; what goes in them
// is the gateway's.
package servercard

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/loader"
)

// The documents' identifiers and locations.
const (
	// Schema is the $schema of a server card.
	Schema = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
	// MediaType is a server card's media type.
	MediaType = "application/mcp-server-card+json"
	// Suffix is appended to an endpoint's Streamable HTTP path for its
	// card (GET <streamable-http-url>/server-card).
	Suffix = loader.ServerCardSuffix
	// CatalogPath is where the AI Catalog of the listener's endpoints is
	// served.
	CatalogPath = loader.CatalogPath
	// CatalogMediaType is the AI Catalog's media type.
	CatalogMediaType = "application/ai-catalog+json"
	// CatalogSpecVersion is the AI Catalog's specVersion.
	CatalogSpecVersion = "1.0"
	// MaxAge is how long a card or the catalog may be cached, in seconds:
	// short enough that a reload shows within minutes (ETag revalidation
	// makes a refetch of an unchanged document cheap).
	MaxAge = 300
	// MetaPrefix is the _meta namespace of what the gateway adds.
	MetaPrefix = "io.github.wasmgate/"
)

// Card is a server card. The draft's required fields are $schema, name,
// version and description; Capabilities, Tools, Resources and Prompts
// are SEP-2127's (its pull request's text lists them, the experimental
// draft leaves them to the list methods; the schema's objects are open).
type Card struct {
	Schema       string         `json:"$schema"`
	Name         string         `json:"name"`
	Version      string         `json:"version"`
	Description  string         `json:"description"`
	Title        string         `json:"title,omitempty"`
	Remotes      []Remote       `json:"remotes,omitempty"`
	Capabilities map[string]any `json:"capabilities,omitempty"`
	Tools        []mcp.Tool     `json:"tools,omitempty"`
	Resources    []mcp.Resource `json:"resources,omitempty"`
	Prompts      []mcp.Prompt   `json:"prompts,omitempty"`
	Meta         map[string]any `json:"_meta,omitempty"`
}

// Remote is how to connect to a server over HTTP.
type Remote struct {
	Type                      string          `json:"type"` // "streamable-http"
	URL                       string          `json:"url"`
	SupportedProtocolVersions []string        `json:"supportedProtocolVersions,omitempty"`
	Headers                   []Header        `json:"headers,omitempty"`
	Authentication            *Authentication `json:"authentication,omitempty"`
}

// Header is a header a client sends (its value is the client's own: a
// card never holds a secret).
type Header struct {
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	IsRequired  bool             `json:"isRequired,omitempty"`
	IsSecret    bool             `json:"isSecret,omitempty"`
	Value       string           `json:"value,omitempty"`
	Variables   map[string]Input `json:"variables,omitempty"`
}

// Input is a value the client's user supplies.
type Input struct {
	Description string `json:"description,omitempty"`
	IsRequired  bool   `json:"isRequired,omitempty"`
	IsSecret    bool   `json:"isSecret,omitempty"`
}

// Authentication is SEP-2127's statement of a remote's authentication.
type Authentication struct {
	Required bool     `json:"required"`
	Schemes  []string `json:"schemes"`
}

// Catalog is an AI Catalog (the draft's discovery document).
type Catalog struct {
	SpecVersion string  `json:"specVersion"`
	Entries     []Entry `json:"entries"`
}

// Entry is a catalog entry pointing at a server card.
type Entry struct {
	Identifier string `json:"identifier"`
	Type       string `json:"type"` // MediaType
	URL        string `json:"url"`
}

// ProtocolVersions are the protocol revisions the gateway serves, newest
// first.
func ProtocolVersions() []string {
	v := slices.Clone(mcp.ValidProtocolVersions)
	slices.Sort(v)
	slices.Reverse(v)
	return v
}

// Base is the scheme and host a client reached r at
// ("http://127.0.0.1:8080").
func Base(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

var notNameChar = regexp.MustCompile(`[^a-zA-Z0-9.-]+`)

// Name is a card's reverse-DNS name for the endpoint named endpoint
// reached at host (a Host header, port and all): the host's labels
// reversed (mcp.example.com: com.example.mcp), an IP address or a
// single label as it is, then "/" and the endpoint's name.
func Name(host, endpoint string) string {
	h := host
	if hn, _, err := net.SplitHostPort(host); err == nil {
		h = hn
	}
	h = strings.Trim(strings.ToLower(h), "[].")
	if net.ParseIP(h) == nil && strings.Contains(h, ".") {
		labels := strings.Split(h, ".")
		slices.Reverse(labels)
		h = strings.Join(labels, ".")
	}
	h = strings.Trim(notNameChar.ReplaceAllString(h, "-"), "-")
	if h == "" {
		h = "localhost"
	}
	return h + "/" + endpoint
}

// Identifier is the catalog identifier of the endpoint named endpoint at
// host: urn:air:{publisher}:mcp:{name}.
func Identifier(host, endpoint string) string {
	h := host
	if hn, _, err := net.SplitHostPort(host); err == nil {
		h = hn
	}
	h = strings.Trim(notNameChar.ReplaceAllString(strings.ToLower(h), "-"), "-")
	if h == "" {
		h = "localhost"
	}
	return "urn:air:" + h + ":mcp:" + endpoint
}

// MaxDescription is the longest description a card may have, in
// characters.
const MaxDescription = 100

// Description is s cut to what a card's description may hold (1-100
// characters), at a word when it can, with "…".
func Description(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= MaxDescription {
		return s
	}
	r := []rune(s)[:MaxDescription-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > MaxDescription/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.") + "…"
}

// Write serves doc as JSON of the given media type, cacheable by anyone
// for MaxAge seconds, with an ETag (304 when the client has it) and the
// CORS headers the draft asks of a discovery document. Only GET and HEAD
// get the document; OPTIONS the CORS preflight; anything else 405.
func Write(w http.ResponseWriter, r *http.Request, mediaType string, doc any) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET")
	h.Set("Access-Control-Allow-Headers", "Content-Type, If-None-Match")
	h.Set("Access-Control-Expose-Headers", "ETag")
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		h.Set("Allow", "GET, HEAD, OPTIONS")
		http.Error(w, "Method Not Allowed: this document is read with GET", http.StatusMethodNotAllowed)
		return
	}
	body, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
		return
	}
	body = append(body, '\n')
	sum := sha256.Sum256(body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
	h.Set("ETag", etag)
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("Vary", "Host")
	h.Set("X-Content-Type-Options", "nosniff")
	if match := r.Header.Get("If-None-Match"); match != "" && etagMatches(match, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if accept := r.Header.Get("Accept"); accept != "" && !strings.Contains(accept, mediaType) && strings.Contains(accept, "application/json") {
		mediaType = "application/json" // a client that asks for plain JSON gets it so labelled
	}
	h.Set("Content-Type", mediaType)
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// etagMatches reports whether an If-None-Match header names etag (or *).
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
