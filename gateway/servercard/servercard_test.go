package servercard

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmgate/wasmgate/gateway/servercard/servercardtest"
)

func cardSchema(t *testing.T) *jsonschema.Schema { return servercardtest.Schema(t) }

func validate(t *testing.T, s *jsonschema.Schema, body []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("not JSON: %v: %s", err, body)
	}
	return s.Validate(inst)
}

// TestCardValidates: a full card as the gateway builds it, and a minimal
// one, validate against the draft's schema; a card without a
// description or with a name that is not reverse-DNS does not (the
// schema is not vacuous).
func TestCardValidates(t *testing.T) {
	s := cardSchema(t)
	full := Card{
		Schema: Schema, Name: Name("mcp.example.com:8443", "dev"), Version: "1.2.3",
		Description: Description(strings.Repeat("Tools for the build and the ticket queue. ", 5)),
		Title:       "Developer tools",
		Remotes: []Remote{{Type: "streamable-http", URL: "https://mcp.example.com:8443/mcp/dev", SupportedProtocolVersions: ProtocolVersions(),
			Authentication: &Authentication{Required: true, Schemes: []string{"bearer", "oauth2"}},
			Headers: []Header{{Name: "Authorization", IsRequired: true, IsSecret: true, Value: "Bearer {token}",
				Variables: map[string]Input{"token": {IsRequired: true, IsSecret: true}}}}}},
		Capabilities: map[string]any{"tools": map[string]any{"listChanged": true}},
		Tools:        []mcp.Tool{mcp.NewTool("calculate", mcp.WithDescription("Adds"))},
		Meta:         map[string]any{MetaPrefix + "endpoint": "dev"},
	}
	for name, c := range map[string]Card{"full": full, "minimal": {Schema: Schema, Name: Name("127.0.0.1:8080", "default"), Version: "dev", Description: "x"}} {
		b, _ := json.Marshal(c)
		if err := validate(t, s, b); err != nil {
			t.Errorf("%s card does not validate: %v\n%s", name, err, b)
		}
	}
	bad := full
	bad.Description = ""
	b, _ := json.Marshal(bad)
	if validate(t, s, b) == nil {
		t.Errorf("a card without a description validates: the schema is not applied")
	}
	bad = full
	bad.Name = "no-slash"
	b, _ = json.Marshal(bad)
	if validate(t, s, b) == nil {
		t.Errorf("a card named %q validates", bad.Name)
	}
}

// TestName: reverse-DNS from the Host header; addresses and single
// labels as they are; ports dropped; what the pattern refuses replaced.
func TestName(t *testing.T) {
	for host, want := range map[string]string{
		"mcp.example.com":      "com.example.mcp/dev",
		"MCP.Example.com:8443": "com.example.mcp/dev",
		"127.0.0.1:8080":       "127.0.0.1/dev",
		"localhost:1":          "localhost/dev",
		"[::1]:8080":           "1/dev",
		"":                     "localhost/dev",
		"evil/host":            "evil-host/dev",
	} {
		if got := Name(host, "dev"); got != want {
			t.Errorf("Name(%q) = %q, want %q", host, got, want)
		}
	}
	if got := Identifier("mcp.example.com:8443", "dev"); got != "urn:air:mcp.example.com:mcp:dev" {
		t.Errorf("Identifier = %q", got)
	}
}

// TestDescription: short text is kept (spaces folded), long text is cut
// under 100 characters at a word.
func TestDescription(t *testing.T) {
	if got := Description("  Tools  for\nthe build. "); got != "Tools for the build." {
		t.Errorf("Description = %q", got)
	}
	long := strings.Repeat("überlange Wörter ", 20)
	got := Description(long)
	if n := utf8.RuneCountInString(got); n > MaxDescription || !strings.HasSuffix(got, "…") || strings.Contains(got, "Wör…") {
		t.Errorf("Description(long) = %q (%d characters), want at most %d, cut at a word, with …", got, n, MaxDescription)
	}
}

// TestWrite: GET gets the document with its media type, CORS and cache
// headers and an ETag; the ETag again gets 304; OPTIONS the preflight;
// POST 405; a client asking only for JSON gets application/json.
func TestWrite(t *testing.T) {
	doc := Catalog{SpecVersion: CatalogSpecVersion, Entries: []Entry{{Identifier: "urn:air:h:mcp:a", Type: MediaType, URL: "http://h/mcp/a/server-card"}}}
	do := func(method string, hdr map[string]string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, CatalogPath, nil)
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		Write(w, r, CatalogMediaType, doc)
		return w
	}
	w := do(http.MethodGet, nil)
	if w.Code != 200 || w.Header().Get("Content-Type") != CatalogMediaType || w.Header().Get("Access-Control-Allow-Origin") != "*" ||
		!strings.HasPrefix(w.Header().Get("Cache-Control"), "public") || w.Header().Get("ETag") == "" {
		t.Fatalf("GET: %d %v", w.Code, w.Header())
	}
	var got Catalog
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got.Entries) != 1 {
		t.Fatalf("GET body: %v %s", err, w.Body)
	}
	if w2 := do(http.MethodGet, map[string]string{"If-None-Match": w.Header().Get("ETag")}); w2.Code != http.StatusNotModified || w2.Body.Len() != 0 {
		t.Errorf("GET with its ETag: %d %q, want 304 and no body", w2.Code, w2.Body)
	}
	if w2 := do(http.MethodGet, map[string]string{"If-None-Match": `"other"`}); w2.Code != 200 {
		t.Errorf("GET with another ETag: %d, want 200", w2.Code)
	}
	if w2 := do(http.MethodOptions, nil); w2.Code != http.StatusNoContent || w2.Header().Get("Access-Control-Allow-Methods") != "GET" {
		t.Errorf("OPTIONS: %d %v", w2.Code, w2.Header())
	}
	if w2 := do(http.MethodPost, nil); w2.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", w2.Code)
	}
	if w2 := do(http.MethodGet, map[string]string{"Accept": "application/json"}); w2.Header().Get("Content-Type") != "application/json" {
		t.Errorf("GET asking for application/json: Content-Type %q", w2.Header().Get("Content-Type"))
	}
}
