package main

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/auth/vault"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/netutil"
)

// `wasmgate credentials list|revoke` against the vault's admin handler
// behind the admin listener's checks (the bearer token of admin.auth,
// the admin header on a POST): a table without tokens, a revocation of
// one user and of every user, and the refusals of the flags.
func TestCredentialsCLI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	key := make([]byte, vault.KeySize)
	_, _ = rand.Read(key)
	v, err := vault.Open(ctx, vault.Keys{Current: key}, vault.NewMemory(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sec := func(s string) config.Secret {
		x, _ := config.SecretRef{Env: "X"}.Read("", func(string) (string, bool) { return s, true })
		return x
	}
	at := time.Date(2026, 3, 4, 5, 6, 0, 0, time.UTC)
	for _, g := range []vault.Grant{
		{Upstream: "github", Principal: "alice", AccessToken: sec("gho_ALICE"), RefreshToken: sec("ghr_ALICE"), Subject: "octo-alice", Scopes: []string{"repo", "read:org"}, ConnectedAt: at, RefreshedAt: at, Expiry: at.Add(8 * time.Hour)},
		{Upstream: "github", Principal: "bob", AccessToken: sec("gho_BOB"), ConnectedAt: at},
		{Upstream: "tickets", Principal: "alice", AccessToken: sec("tk_ALICE"), ConnectedAt: at},
	} {
		if err := v.Put(ctx, g); err != nil {
			t.Fatal(err)
		}
	}
	const adminToken = "admin-token-for-the-test-0123456789"
	h := vault.AdminHandler(v, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+adminToken {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost && r.Header.Get(netutil.AdminHeader) == "" {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "gateway.yaml")
	harness.WriteFile(t, cfg, []byte("admin: {auth: {bearer_token_env: ADMIN_TOKEN}}\n"))
	run := func(env string, args ...string) harness.Result {
		t.Helper()
		return bins.Run(t, harness.RunOptions{Plain: true, Env: []string{"ADMIN_TOKEN=" + env}},
			append([]string{"credentials"}, append(args, "--config", cfg, "--admin", srv.URL)...)...)
	}
	r := run(adminToken, "list")
	if r.Code != 0 {
		t.Fatalf("list: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{
		"UPSTREAM  PRINCIPAL  SUBJECT     SCOPES         CONNECTED          REFRESHED          EXPIRES",
		"github    alice      octo-alice  repo read:org  2026-03-04 05:06Z  2026-03-04 05:06Z  2026-03-04 13:06Z",
		"github    bob        -           -              2026-03-04 05:06Z  -                  -",
		"tickets   alice",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("list does not show %q:\n%s", want, r.Stdout)
		}
	}
	if strings.Contains(r.Stdout, "ALICE") || strings.Contains(r.Stdout, "BOB") {
		t.Errorf("list shows a token:\n%s", r.Stdout)
	}
	if r := run(adminToken, "list", "--upstream", "tickets"); r.Code != 0 || strings.Count(r.Stdout, "\n") != 2 {
		t.Errorf("list --upstream tickets: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run("wrong-token", "list"); r.Code != 1 || !strings.Contains(r.Stderr, "missing or wrong admin bearer token") {
		t.Errorf("a wrong admin token: %d\n%s", r.Code, r.Stderr)
	}
	for _, bad := range [][]string{{"revoke", "--principal", "alice"}, {"revoke", "--upstream", "github"}, {"revoke", "--upstream", "github", "--principal", "alice", "--all"}} {
		if r := run(adminToken, bad...); r.Code != 2 {
			t.Errorf("%v: %d\n%s", bad, r.Code, r.Stderr)
		}
	}
	if r := run(adminToken, "revoke", "--upstream", "github", "--principal", "alice"); r.Code != 0 || !strings.Contains(r.Stdout, "revoked the grant of alice to upstream github") {
		t.Errorf("revoke alice: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if _, ok, _ := v.Get(ctx, "github", "alice"); ok {
		t.Error("alice's grant outlived its revocation")
	}
	if r := run(adminToken, "revoke", "--upstream", "github", "--principal", "alice"); r.Code != 1 || !strings.Contains(r.Stdout, "nothing revoked") {
		t.Errorf("revoke alice again: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run(adminToken, "revoke", "--upstream", "github", "--all"); r.Code != 0 || !strings.Contains(r.Stdout, "revoked 1 grant to upstream github") {
		t.Errorf("revoke --all: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := run(adminToken, "list", "--upstream", "github"); r.Code != 0 || !strings.Contains(r.Stdout, "no user has connected upstream github") {
		t.Errorf("list after revoke --all: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}
