package vault_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/auth/vault"
)

// TestAdminHandler: the list shows who connected what and never a token;
// a revocation removes one user's grant, or with all every user's of one
// upstream; a request that is not one is refused.
func TestAdminHandler(t *testing.T) {
	ctx := context.Background()
	var l logs
	v := openVault(t, vault.Keys{Current: newKey(t)}, vault.NewMemory(), nil)
	for _, g := range []vault.Grant{
		grant("github", "alice", "gho_ALICE_ACCESS", "ghr_ALICE_REFRESH"),
		grant("github", "bob", "gho_BOB_ACCESS", "ghr_BOB_REFRESH"),
		grant("tickets", "alice", "tk_ALICE_ACCESS", ""),
	} {
		if err := v.Put(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(vault.AdminHandler(v, l.logger()))
	t.Cleanup(srv.Close)
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	post := func(body string) (int, string) {
		t.Helper()
		resp, err := http.Post(srv.URL+vault.AdminRevokePath, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	noTokens := func(s string) {
		t.Helper()
		for _, tok := range []string{"ACCESS", "REFRESH", "gho_", "ghr_", "tk_"} {
			if strings.Contains(s, tok) {
				t.Errorf("the answer shows a token (%s):\n%s", tok, s)
			}
		}
	}
	code, body := get(vault.AdminListPath)
	noTokens(body)
	var list []vault.Meta
	if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil || len(list) != 3 {
		t.Fatalf("%d %v: %s", code, err, body)
	}
	if list[0].Upstream != "github" || list[0].Principal != "alice" || list[0].Subject != "gh-alice" || list[0].ConnectedAt.IsZero() || len(list[0].Scopes) != 2 {
		t.Errorf("the first entry: %+v", list[0])
	}
	code, body = get(vault.AdminListPath + "?upstream=tickets")
	noTokens(body)
	if code != 200 || strings.Count(body, `"principal"`) != 1 {
		t.Errorf("?upstream=tickets: %d %s", code, body)
	}
	if code, body = get(vault.AdminListPath + "?upstream=none"); code != 200 || strings.TrimSpace(body) != "[]" {
		t.Errorf("an upstream with no grants: %d %s", code, body)
	}

	for _, bad := range []string{
		`{}`, `{"upstream":"github"}`, `{"upstream":"github","principal":"alice","all":true}`,
		`{"upstream":"github","principal":"alice","extra":1}`, `not json`,
	} {
		if code, body := post(bad); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s", bad, code, body)
		}
	}
	if code, body := get(vault.AdminRevokePath); code != http.StatusMethodNotAllowed {
		t.Errorf("GET revoke: %d %s", code, body)
	}
	if code, body := post(`{"upstream":"github","principal":"alice"}`); code != 200 || strings.TrimSpace(body) != `{"revoked":1}` {
		t.Errorf("revoke alice: %d %s", code, body)
	}
	if _, ok, _ := v.Get(ctx, "github", "alice"); ok {
		t.Error("alice's grant outlived its revocation")
	}
	if _, ok, _ := v.Get(ctx, "tickets", "alice"); !ok {
		t.Error("the revocation of alice's github grant took her tickets grant")
	}
	if code, body := post(`{"upstream":"github","principal":"alice"}`); code != 200 || strings.TrimSpace(body) != `{"revoked":0}` {
		t.Errorf("revoke alice again: %d %s", code, body)
	}
	if code, body := post(`{"upstream":"github","all":true}`); code != 200 || strings.TrimSpace(body) != `{"revoked":1}` {
		t.Errorf("revoke all of github: %d %s", code, body)
	}
	if list, _ := v.List(ctx, ""); len(list) != 1 || list[0].Upstream != "tickets" {
		t.Errorf("left: %+v", list)
	}
	out := l.String()
	if !strings.Contains(out, "upstream=github principal=alice revoked=1") || !strings.Contains(out, `principal="(every user)" revoked=1`) {
		t.Errorf("the revocations are not logged:\n%s", out)
	}
	noTokens(out)
}
