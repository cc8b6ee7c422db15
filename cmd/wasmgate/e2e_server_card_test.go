package main

// Server cards and the catalog (issue 45) end to end with the built
// binary over real HTTP: each endpoint's card validates against the
// Server Card draft's JSON schema and lists only what an anonymous
// caller may see; the AI Catalog lists every endpoint's card.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmgate/wasmgate/gateway/servercard/servercardtest"
	"github.com/wasmgate/wasmgate/internal/harness"
)

func cardSchema(t *testing.T) *jsonschema.Schema { return servercardtest.Schema(t) }

// serverCard is what the tests read of a server card.
type serverCard struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description"`
	Title       string `json:"title"`
	Remotes     []struct {
		Type           string `json:"type"`
		URL            string `json:"url"`
		Authentication *struct {
			Required bool     `json:"required"`
			Schemes  []string `json:"schemes"`
		} `json:"authentication"`
		Headers []struct {
			Name     string `json:"name"`
			IsSecret bool   `json:"isSecret"`
		} `json:"headers"`
	} `json:"remotes"`
	Tools     []struct{ Name string } `json:"tools"`
	Resources []struct{ URI string }  `json:"resources"`
	Prompts   []struct{ Name string } `json:"prompts"`
	Meta      map[string]any          `json:"_meta"`
}

// cardGet GETs u with the extra headers and returns the response and body.
func cardGet(t *testing.T, u string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// fetchCard GETs the card at u, checks the response and validates it
// against the draft's schema.
func fetchCard(t *testing.T, s *jsonschema.Schema, u string) (serverCard, []byte) {
	t.Helper()
	resp, body := cardGet(t, u, map[string]string{"Accept": "application/mcp-server-card+json"})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/mcp-server-card+json" {
		t.Errorf("GET %s: Content-Type %q", u, ct)
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.HasPrefix(resp.Header.Get("Cache-Control"), "public") || resp.Header.Get("ETag") == "" {
		t.Errorf("GET %s: headers %v, want CORS *, Cache-Control public and an ETag", u, resp.Header)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("GET %s: not JSON: %v", u, err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("the card at %s does not validate against the draft's schema: %v\n%s", u, err, body)
	}
	var c serverCard
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	return c, body
}

func cardNames[T any](xs []T, name func(T) string) []string {
	out := []string{}
	for _, x := range xs {
		out = append(out, name(x))
	}
	slices.Sort(out)
	return out
}

// TestServerCards: without authentication, the card of an endpoint
// lists what the principal anonymous may see (a tool policy denies it
// is absent, and so are the other endpoints' tools), the card of an
// endpoint whose access leaves anonymous out lists nothing, and the
// catalog lists both cards' URLs; a card's ETag gets 304. With every
// caller authenticated, the card lists no tool, says a bearer token is
// required and holds no token.
func TestServerCards(t *testing.T) {
	t.Parallel()
	schema := cardSchema(t)

	t.Run("anonymous", func(t *testing.T) {
		t.Parallel()
		sections := `policy:
  default: allow
  rules:
    - principals: [anonymous]
      deny: {tools: [say_hello]}
endpoints:
  - name: people
    path: /mcp/people
    title: People tools
    instructions: Greet people and do sums.
    sources: [calculator, greeter]
  - name: storage
    path: /mcp/storage
    sources: [storage]
    access: {principals: [local]}
  - name: search
    path: /mcp/search
    sources: [calculator, greeter]
    discovery: {mode: search}
`
		g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, epYAML(t, "", sections))})
		people := epURL(t, g, "/mcp/people")
		c, body := fetchCard(t, schema, people+"/server-card")
		if got := cardNames(c.Tools, func(x struct{ Name string }) string { return x.Name }); !slices.Equal(got, []string{"calculate"}) {
			t.Errorf("people's card lists tools %v, want [calculate] (say_hello is denied to anonymous; set-storage is another endpoint's)", got)
		}
		if got := cardNames(c.Resources, func(x struct{ URI string }) string { return x.URI }); !slices.Equal(got, []string{"greeter://about"}) {
			t.Errorf("people's card lists resources %v, want [greeter://about]", got)
		}
		if got := cardNames(c.Prompts, func(x struct{ Name string }) string { return x.Name }); !slices.Equal(got, []string{"greeting_prompt"}) {
			t.Errorf("people's card lists prompts %v, want [greeting_prompt]", got)
		}
		if strings.Contains(string(body), "say_hello") {
			t.Errorf("people's card names say_hello, which anonymous may not see:\n%s", body)
		}
		if c.Title != "People tools" || c.Description != "Greet people and do sums." || c.Version != testVersion ||
			!strings.HasSuffix(c.Name, "/people") {
			t.Errorf("people's card: name %q, title %q, description %q, version %q", c.Name, c.Title, c.Description, c.Version)
		}
		if len(c.Remotes) != 1 || c.Remotes[0].Type != "streamable-http" || c.Remotes[0].URL != people || c.Remotes[0].Authentication != nil {
			t.Errorf("people's card remotes: %+v, want one streamable-http remote at %s without authentication", c.Remotes, people)
		}
		// What the card lists, an anonymous client is listed.
		cl, _ := epSession(t, g, "/mcp/people")
		if got := harness.Tools(harness.Ctx(t, 30*time.Second), t, cl); !slices.Equal(got, []string{"calculate"}) {
			t.Errorf("an anonymous client of people is listed %v, the card [calculate]", got)
		}

		storage := epURL(t, g, "/mcp/storage")
		sc, sbody := fetchCard(t, schema, storage+"/server-card")
		if len(sc.Tools)+len(sc.Resources)+len(sc.Prompts) != 0 || strings.Contains(string(sbody), "set-storage") || strings.Contains(string(sbody), "storage://") {
			t.Errorf("the card of an endpoint anonymous may not use lists something:\n%s", sbody)
		}

		// In search mode, the card lists what such a tools/list holds:
		// the meta-tools (nothing is pinned).
		qc, _ := fetchCard(t, schema, epURL(t, g, "/mcp/search")+"/server-card")
		if got := cardNames(qc.Tools, func(x struct{ Name string }) string { return x.Name }); !slices.Equal(got, []string{"call_tool", "find_tools"}) {
			t.Errorf("the search endpoint's card lists tools %v, want [call_tool find_tools]", got)
		}

		// The catalog lists every card, and each URL serves one.
		resp, cat := cardGet(t, epURL(t, g, "/.well-known/ai-catalog.json"), nil)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/ai-catalog+json" {
			t.Fatalf("the catalog: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), cat)
		}
		var doc struct {
			SpecVersion string `json:"specVersion"`
			Entries     []struct {
				Identifier, Type, URL string
			} `json:"entries"`
		}
		if err := json.Unmarshal(cat, &doc); err != nil || doc.SpecVersion == "" || len(doc.Entries) != 3 {
			t.Fatalf("the catalog: %v %s", err, cat)
		}
		for i, want := range []string{people + "/server-card", storage + "/server-card", epURL(t, g, "/mcp/search") + "/server-card"} {
			e := doc.Entries[i]
			if e.URL != want || e.Type != "application/mcp-server-card+json" || !strings.HasPrefix(e.Identifier, "urn:air:") {
				t.Errorf("catalog entry %d = %+v, want the card at %s", i, e, want)
			}
			fetchCard(t, schema, e.URL)
		}

		// Revalidation, and only GET.
		r1, _ := cardGet(t, people+"/server-card", nil)
		if r2, b2 := cardGet(t, people+"/server-card", map[string]string{"If-None-Match": r1.Header.Get("ETag")}); r2.StatusCode != http.StatusNotModified || len(b2) != 0 {
			t.Errorf("the card with its ETag: %d, want 304", r2.StatusCode)
		}
		post, err := http.Post(people+"/server-card", "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		post.Body.Close()
		if post.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("POST to the card: %d, want 405", post.StatusCode)
		}
		if r, _ := cardGet(t, epURL(t, g, "/mcp/nowhere/server-card"), nil); r.StatusCode != http.StatusNotFound {
			t.Errorf("the card of no endpoint: %d, want 404", r.StatusCode)
		}
	})

	t.Run("authenticated", func(t *testing.T) {
		t.Parallel()
		token := newToken(t)
		sections := "auth:\n  principals:\n    - {name: alice, token_sha256: " + sha256Hex(token) + "}\n"
		g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, epYAML(t, "", sections))})
		c, body := fetchCard(t, schema, g.MCPURL+"/server-card")
		if len(c.Tools)+len(c.Resources)+len(c.Prompts) != 0 {
			t.Errorf("with a token required for everything, the card lists %d tools, %d resources, %d prompts; want none:\n%s",
				len(c.Tools), len(c.Resources), len(c.Prompts), body)
		}
		for _, s := range []string{"calculate", "say_hello", token, sha256Hex(token), "alice"} {
			if strings.Contains(string(body), s) {
				t.Errorf("the card holds %q:\n%s", s, body)
			}
		}
		if len(c.Remotes) != 1 || c.Remotes[0].Authentication == nil || !c.Remotes[0].Authentication.Required ||
			len(c.Remotes[0].Headers) != 1 || c.Remotes[0].Headers[0].Name != "Authorization" || !c.Remotes[0].Headers[0].IsSecret {
			t.Errorf("the card's remote %+v, want authentication required and a secret Authorization header", c.Remotes)
		}
		// The MCP path itself still wants the token.
		if resp := harness.PostJSON(t, g.MCPURL, harness.InitializeBody, nil); resp.StatusCode != http.StatusUnauthorized {
			resp.Body.Close()
			t.Errorf("initialize without a token: %d, want 401", resp.StatusCode)
		} else {
			resp.Body.Close()
		}
	})
}
