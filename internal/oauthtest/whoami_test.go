package oauthtest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/oauthtest"
)

// TestWhoami: tools/list needs no token; tools/call without one, with one
// for another audience, or signed by another issuer is refused; with a
// valid one whoami answers its subject; every Authorization is recorded.
func TestWhoami(t *testing.T) {
	p := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	other := oauthtest.StartProvider(t, oauthtest.ProviderOptions{})
	w := oauthtest.StartWhoami(t, p.JWKSURL, "https://up.test")

	anon, _ := harness.HTTPClient(t, w.URL, harness.ProtoSessions)
	tools, err := anon.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "whoami" {
		t.Fatalf("tools/list without a token: %v, %+v", err, tools)
	}
	if _, err := harness.CallToolErr(t.Context(), anon, "whoami", nil); err == nil {
		t.Fatal("tools/call without a token succeeded")
	}
	for name, tok := range map[string]string{
		"no token":       "",
		"not a JWT":      "opaque",
		"other audience": p.AccessToken(t, "alice", "https://elsewhere.test"),
		"other issuer":   other.AccessToken(t, "alice", "https://up.test"),
	} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, w.URL,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`))
		req.Header.Set("Content-Type", "application/json")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ") {
			t.Errorf("%s: HTTP %d, WWW-Authenticate %q", name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
	good := p.AccessToken(t, "bob", "https://up.test")
	c, _ := harness.HTTPClient(t, w.URL, harness.ProtoSessions, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + good}))
	text, isErr := harness.CallTool(t.Context(), t, c, "whoami", nil)
	var a oauthtest.WhoamiAnswer
	if isErr || json.Unmarshal([]byte(text), &a) != nil || a.Sub != "bob" || a.Iss != p.Issuer {
		t.Fatalf("whoami: %q (isError %v)", text, isErr)
	}
	found := false
	for _, s := range w.Seen() {
		found = found || strings.Contains(s, good)
	}
	if !found {
		t.Fatal("the Authorization was not recorded")
	}
}
