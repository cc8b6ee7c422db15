package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServe: the fixtures start, the upstream refuses a tools/call
// without a bearer and serves one with any bearer, the nocache endpoint
// answers the provider's exchanged token with expires_in 1 and counts
// it, and -rtt measures the round trip against it.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- serve(ctx, dir, 3, "https://gw.test/mcp", &out) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	var fx Fixtures
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, "fixtures.json")); err == nil && json.Unmarshal(b, &fx) == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no fixtures.json after 30 s")
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "tokens"))
	if err != nil {
		t.Fatal(err)
	}
	toks := strings.Fields(string(b))
	if len(toks) != 3 {
		t.Fatalf("%d caller tokens, want 3", len(toks))
	}

	session := ""
	post := func(u, authz, ctype, body string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, u, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", ctype)
		req.Header.Set("Accept", "application/json, text/event-stream")
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			session = id
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	const call = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calculate","arguments":{"operation":"add","a":5,"b":3}}}`
	if code, body := post(fx.UpstreamURL, "", "application/json", initialize); code != http.StatusOK {
		t.Errorf("initialize without a bearer: HTTP %d %s, want 200 (the gateway lists tools without a caller)", code, body)
	}
	if code, _ := post(fx.UpstreamURL, "", "application/json", call); code != http.StatusUnauthorized {
		t.Errorf("tools/call without a bearer: HTTP %d, want 401", code)
	}
	if code, body := post(fx.UpstreamURL, "Bearer anything", "application/json", call); code != http.StatusOK || !strings.Contains(string(body), `"8"`) {
		t.Errorf("tools/call with a bearer: HTTP %d %s, want 200 and 8", code, body)
	}

	form := url.Values{
		"grant_type": {grantTokenExchange}, "subject_token": {toks[1]},
		"subject_token_type": {"urn:ietf:params:oauth:token-type:access_token"}, "audience": {"https://up.test"},
		"client_id": {fx.ClientID}, "client_secret": {fx.ClientSecret},
	}.Encode()
	code, body := post(fx.NocacheTokenURL, "", "application/x-www-form-urlencoded", form)
	var ans struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.Unmarshal(body, &ans); code != http.StatusOK || err != nil || ans.AccessToken == "" || ans.ExpiresIn != 1 {
		t.Fatalf("exchange at the nocache endpoint: HTTP %d %s, want a token with expires_in 1", code, body)
	}

	var rtt bytes.Buffer
	if err := measureRTT(t.Context(), fx.NocacheTokenURL, filepath.Join(dir, "tokens"), 5, true, &rtt); err != nil {
		t.Fatalf("-rtt: %v", err)
	}
	var st Stats
	resp, err := http.Get(fx.StatsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	want := Stats{TokenExchanges: 7, NocacheExchanges: 7, UpstreamBearers: 1, UpstreamRefused: 1}
	if st != want {
		t.Errorf("stats %+v, want %+v (1 exchange, then -rtt's 1 unrecorded and 5)", st, want)
	}
}

func TestRunUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-rtt", "http://example.com/token", "-token-file", "x"},
		{"-rtt", "http://127.0.0.1:1/token"},
		{"-serve", "x", "-users", "0"},
	} {
		if err := run(t.Context(), args, io.Discard, io.Discard); err == nil {
			t.Errorf("run(%q) succeeded, want an error", args)
		}
	}
}
