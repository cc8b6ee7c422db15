package main

import (
	"bytes"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/cmd/mcpbench/native"
)

// TestTokenFile: with -token-file every client sends its own line's
// token on every request (client i line i modulo their number), and a
// target's token_file does the same for that target.
func TestTokenFile(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{} // the Authorization of every request
	mcp := server.NewStreamableHTTPServer(native.Server())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("Authorization")]++
		mu.Unlock()
		mcp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	file := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(file, []byte("tok-a\n\ntok-b \ntok-c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, "-url", srv.URL+"/mcp", "-token-file", file, "-expect", "8",
		"-clients", "4", "-duration", "100ms", "-warmup", "0s")
	if res := runTestPhase(t, cfg); res.calls <= 0 || res.failures != 0 {
		t.Fatalf("calls = %d failures = %d (%q)", res.calls, res.failures, res.reasons)
	}
	mu.Lock()
	got := slices.Sorted(maps.Keys(seen))
	mu.Unlock()
	if want := []string{"Bearer tok-a", "Bearer tok-b", "Bearer tok-c"}; !slices.Equal(got, want) {
		t.Errorf("Authorization values sent: %q, want %q (4 clients over 3 tokens)", got, want)
	}

	for _, args := range [][]string{
		{"-token-file", filepath.Join(t.TempDir(), "missing")},
		{"-token-file", file, "-token-env", "SET"},
		{"-target", `{"name":"a","url":"http://127.0.0.1:1/mcp"}`, "-target", `{"name":"b","url":"http://127.0.0.1:2/mcp","token_file":"/nonexistent/tokens"}`},
	} {
		_, err := parseConfig(args, func(string) string { return "x" }, &bytes.Buffer{})
		if err == nil {
			t.Errorf("parseConfig(%q) succeeded, want an error", args)
		}
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte("\n \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := parseConfig([]string{"-token-file", empty}, os.Getenv, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "no token") {
		t.Errorf("an empty token file: %v, want an error saying it holds no token", err)
	}
	tgt, err := parseConfig([]string{"-target", `{"name":"a","url":"http://127.0.0.1:1/mcp"}`,
		"-target", `{"name":"b","url":"http://127.0.0.1:2/mcp","token_file":"` + file + `"}`}, os.Getenv, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tgt.targets[1].cfg.tokens; !slices.Equal(got, []string{"tok-a", "tok-b", "tok-c"}) || tgt.targets[0].cfg.tokens != nil {
		t.Errorf("target tokens: a %q, b %q; want none and the file's three", tgt.targets[0].cfg.tokens, got)
	}
}
