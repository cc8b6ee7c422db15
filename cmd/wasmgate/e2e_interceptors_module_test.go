package main

// Interceptors written as WebAssembly modules (issue 44, "Tests that
// must exist") through the binary: the shipped examples against a real
// upstream (@modelcontextprotocol/server-filesystem) seen by the
// TypeScript SDK, the description rewriter under a lock file, a hostile
// module failing closed and open, and a hot reload of an interceptor
// under load.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// filesystemServer is the node binary and server-filesystem's entry
// point, failing (not skipping: CI installs them) when they are not
// there.
func filesystemServer(t *testing.T) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: install Node.js 20+, then `npm ci --prefix tests/node` (make test does): %v", err)
	}
	script = filepath.Join(harness.RepoRoot(), "tests", "node", "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("@modelcontextprotocol/server-filesystem is not installed: run `npm ci --prefix tests/node` (make test does): %v", err)
	}
	return node, script
}

// filesUpstream is the upstreams: section serving dir with
// server-filesystem as source "files", its tools prefixed fs_.
func filesUpstream(t *testing.T, dir string) string {
	node, script := filesystemServer(t)
	return fmt.Sprintf("upstreams:\n  - {name: files, command: [%q, %q, %q], prefix: fs, limits: {timeout: 60s}}\n", node, script, dir)
}

// warmInterceptors compiles interceptor modules into the shared cache
// (Binaries.WarmCache serves each as a plugin, which it is not: the
// gateway fails after compiling it), so that a -race gateway starts
// in seconds.
func warmInterceptors(t *testing.T, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		bins.WarmCache(t, rel)
	}
}

// interceptorDecision is what the audit line a says interceptor name
// decided of its call, "" when it did not see it.
func interceptorDecision(a auditRecord, name string) string {
	names, decisions := strings.Split(a["interceptor"], ","), strings.Split(a["decision"], ",")
	for i, n := range names {
		if n == name && i < len(decisions) {
			return decisions[i]
		}
	}
	return ""
}

// callOutcome is a tool call's result text, or its JSON-RPC error's
// message, and whether it failed either way.
func callOutcome(ctx context.Context, c *client.Client, tool string, args map[string]any) (text string, failed bool) {
	res, err := harness.CallToolErr(ctx, c, tool, args)
	if err != nil {
		return err.Error(), true
	}
	return harness.ResultText(res), res.IsError
}

// The PII the redact example must keep from the client: an e-mail
// address, an IBAN whose check digits hold and a card number that passes
// the Luhn check.
const (
	piiEmail = "alice.smith@example.com"
	piiIBAN  = "GB82 WEST 1234 5698 7654 32"
	piiCard  = "4111 1111 1111 1111"
)

// TestInterceptorFilesystem: the redact and argguard examples in front of
// the real server-filesystem, which serves a folder with a shared
// subfolder (argguard's root) and a secret one beside it. The
// TypeScript SDK client reads a file holding an e-mail address, an IBAN
// and a card number and gets the [redacted ...] markers instead; the
// audit line says redact modified the result. argguard refuses paths
// outside its root (traversal, absolute, in an array) that the server
// itself would serve, and lets one inside through.
func TestInterceptorFilesystem(t *testing.T) {
	base := t.TempDir()
	shared, secret := filepath.Join(base, "shared"), filepath.Join(base, "secret")
	for _, d := range []string{shared, secret} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pii := filepath.Join(shared, "customer.txt")
	harness.WriteFile(t, pii, []byte(fmt.Sprintf("Customer record 7\ncontact: %s\npays from %s\ncard on file: %s\nstatus: active\n", piiEmail, piiIBAN, piiCard)))
	hello := filepath.Join(shared, "hello.txt")
	harness.WriteFile(t, hello, []byte("hello from the shared folder"))
	plans := filepath.Join(secret, "plans.txt")
	harness.WriteFile(t, plans, []byte("the secret plans"))

	warmInterceptors(t, "examples/interceptors/redact", "examples/interceptors/argguard")
	sections := filesUpstream(t, base) + fmt.Sprintf(`interceptors:
  - name: redact
    path: %q
    on: [tools/call, resources/read, prompts/get]
    phase: response
    limits: {timeout: 10s}
    config: {patterns: [email, iban, card]}
  - name: argguard
    path: %q
    on: [tools/call]
    phase: request
    match: {sources: [files]}
    limits: {timeout: 10s}
    config: {root: %q, path_args: [path, paths, source, destination]}
`, harness.Wasm(t, "examples/interceptors/redact"), harness.Wasm(t, "examples/interceptors/argguard"), shared)
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Server: harness.NoWatch,
		Plugins: harness.Item("name: calculator", "path: "+harness.Q(harness.Wasm(t, "examples/plugins/calculator"))), Sections: sections}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 3*time.Minute)
	c := g.SessionClient(t)
	waitListed(ctx, t, c, "fs_read_text_file", "fs_read_multiple_files", "calculate")

	t.Run("redact", func(t *testing.T) {
		offset := len(g.Stderr())
		args, _ := json.Marshal(map[string]any{"path": pii})
		v := runEndpointClient(t, "http", g.MCPURL, "fs_read_text_file="+string(args))
		if len(v.Calls) != 1 || v.Calls[0].Result == nil {
			t.Fatalf("the TypeScript SDK client's call: %+v", v.Calls)
		}
		got := v.Calls[0].Result.text()
		if v.Calls[0].Result.IsError || !strings.Contains(got, "Customer record 7") || !strings.Contains(got, "status: active") {
			t.Fatalf("fs_read_text_file through redact: %q (isError %v); want the file's text", got, v.Calls[0].Result.IsError)
		}
		for _, leak := range []string{piiEmail, "example.com", piiIBAN, "GB82", piiCard, "1111"} {
			if strings.Contains(got, leak) {
				t.Errorf("the TypeScript SDK client got %q: it holds %q", got, leak)
			}
		}
		for _, marker := range []string{"[redacted email]", "[redacted iban]", "[redacted card]"} {
			if !strings.Contains(got, marker) {
				t.Errorf("the TypeScript SDK client got %q: no %s", got, marker)
			}
		}
		var audited []auditRecord
		for _, a := range auditLines(t, g.StderrSince(offset)) {
			if a["name"] == "fs_read_text_file" {
				audited = append(audited, a)
			}
		}
		if len(audited) != 1 || interceptorDecision(audited[0], "redact") != "modify" || audited[0]["outcome"] != "ok" ||
			interceptorDecision(audited[0], "argguard") != "continue" {
			t.Errorf("audit lines of the call: %v; want one, interceptor=redact decision=modify (argguard continue)", audited)
		}

		// The structured content (server-filesystem sends the text there
		// too) is redacted as well.
		res, err := harness.CallToolErr(ctx, c, "fs_read_text_file", map[string]any{"path": pii})
		if err != nil || res.IsError {
			t.Fatalf("fs_read_text_file: %v %q", err, harness.ResultText(res))
		}
		all, _ := json.Marshal(res)
		if strings.Contains(string(all), piiEmail) || strings.Contains(string(all), "GB82") || strings.Contains(string(all), piiCard) ||
			!strings.Contains(string(all), "[redacted email]") {
			t.Errorf("the whole result holds PII or no marker: %s", all)
		}
		// A result without PII is let through unchanged.
		if text, isErr := harness.CallTool(ctx, t, c, "fs_read_text_file", map[string]any{"path": hello}); isErr || text != "hello from the shared folder" {
			t.Errorf("fs_read_text_file of a file without PII: %q (isError %v)", text, isErr)
		}
		if n := g.Scrape(t).Sum("wasmgate_interceptor_decisions_total", map[string]string{"interceptor": "redact", "decision": "modify"}); n != 2 {
			t.Errorf("redact's modify decisions: %v, want 2", n)
		}
	})

	t.Run("argguard", func(t *testing.T) {
		// Inside the root: served.
		if text, isErr := harness.CallTool(ctx, t, c, "fs_read_text_file", map[string]any{"path": hello}); isErr || text != "hello from the shared folder" {
			t.Errorf("fs_read_text_file inside the root: %q (isError %v)", text, isErr)
		}
		if text, isErr := harness.CallTool(ctx, t, c, "fs_read_text_file", map[string]any{"path": shared + "/./sub/../hello.txt"}); isErr || text != "hello from the shared folder" {
			t.Errorf("fs_read_text_file inside the root, not clean: %q (isError %v)", text, isErr)
		}
		// Outside it, though server-filesystem serves the whole base
		// folder: refused by the interceptor before the server sees it.
		offset := len(g.Stderr())
		outside := []struct {
			tool string
			args map[string]any
		}{
			{"fs_read_text_file", map[string]any{"path": shared + "/../secret/plans.txt"}},
			{"fs_read_text_file", map[string]any{"path": "../secret/plans.txt"}},
			{"fs_read_text_file", map[string]any{"path": plans}},
			{"fs_read_text_file", map[string]any{"path": "/etc/passwd"}},
			{"fs_read_file", map[string]any{"path": shared + "/../../../../etc/hostname"}},
			{"fs_read_multiple_files", map[string]any{"paths": []string{hello, plans}}},
			{"fs_get_file_info", map[string]any{"path": shared + "_other"}},
		}
		for _, tc := range outside {
			text, failed := callOutcome(ctx, c, tc.tool, tc.args)
			if !failed || !strings.Contains(text, `denied by interceptor "argguard"`) || strings.Contains(text, "secret plans") {
				t.Errorf("%s %v: %q (failed %v); want it denied by argguard", tc.tool, tc.args, text, failed)
			}
		}
		denied := 0
		for _, a := range auditLines(t, g.StderrSince(offset)) {
			if interceptorDecision(a, "argguard") == "deny" && a["outcome"] == "denied" {
				denied++
			}
		}
		if denied != len(outside) {
			t.Errorf("%d audit lines with argguard deny, want %d", denied, len(outside))
		}
		// The TypeScript SDK client sees the refusal as a tool error.
		args, _ := json.Marshal(map[string]any{"path": shared + "/../secret/plans.txt"})
		v := runEndpointClient(t, "http", g.MCPURL, "fs_read_text_file="+string(args))
		if len(v.Calls) != 1 || v.Calls[0].Result == nil || !v.Calls[0].Result.IsError ||
			!strings.Contains(v.Calls[0].Result.text(), `denied by interceptor "argguard"`) {
			t.Errorf("the TypeScript SDK client's traversal: %+v", v.Calls)
		}
		// The interceptor sees the files source only.
		harness.Calc(ctx, t, c, 2, 3)
	})
}
