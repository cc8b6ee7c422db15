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
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	return harness.NodeServer(t, "@modelcontextprotocol/server-filesystem")
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

// waitAudit waits (10 s at most) until the gateway has logged n audit
// lines that match after offset, and returns every one that does: an
// audit line may be logged after the client has its answer.
func waitAudit(t *testing.T, g *harness.Gateway, offset, n int, match func(auditRecord) bool) []auditRecord {
	t.Helper()
	var out []auditRecord
	harness.WaitFor(10*time.Second, func() bool {
		out = out[:0]
		for _, a := range auditLines(t, g.StderrSince(offset)) {
			if match(a) {
				out = append(out, a)
			}
		}
		return len(out) >= n
	})
	return out
}

// named matches the audit lines of calls of name.
func named(name string) func(auditRecord) bool {
	return func(a auditRecord) bool { return a["name"] == name }
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

// TestInterceptorFilesystem: the redact (Go and Rust) and argguard
// examples in front of the real server-filesystem, which serves a folder
// with a shared subfolder (argguard's root) and a secret one beside it.
// The TypeScript SDK client reads a file holding an e-mail address, an
// IBAN and a card number, through the Go redact on fs_read_text_file and
// the Rust one on fs_read_file, and gets the [redacted ...] markers
// instead; the audit line says that redact modified the result.
// argguard refuses paths outside its root (traversal, absolute, in an
// array) that the server itself would serve, and lets one inside
// through.
func TestInterceptorFilesystem(t *testing.T) {
	t.Parallel()
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

	warmInterceptors(t, "examples/interceptors/redact", "examples/interceptors/redact-rs", "examples/interceptors/argguard")
	sections := filesUpstream(t, base) + fmt.Sprintf(`interceptors:
  - name: redact
    path: %q
    on: [tools/call, resources/read, prompts/get]
    phase: response
    match: {tools: ["fs_read_[^f]*"]}
    limits: {timeout: 10s}
    config: {patterns: [email, iban, card]}
  - name: redact-rs
    path: %q
    on: [tools/call]
    phase: response
    match: {tools: [fs_read_file]}
    limits: {timeout: 10s}
    config: {patterns: [email, iban, card]}
  - name: argguard
    path: %q
    on: [tools/call]
    phase: request
    match: {sources: [files]}
    limits: {timeout: 10s}
    config: {root: %q, path_args: [path, paths, source, destination]}
`, harness.Wasm(t, "examples/interceptors/redact"), harness.Wasm(t, "examples/interceptors/redact-rs"), harness.Wasm(t, "examples/interceptors/argguard"), shared)
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Server: harness.NoWatch,
		Plugins: harness.Item("name: calculator", "path: "+harness.Q(harness.Wasm(t, "examples/plugins/calculator"))), Sections: sections}))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 3*time.Minute)
	c := g.SessionClient(t)
	waitListed(ctx, t, c, "fs_read_text_file", "fs_read_file", "fs_read_multiple_files", "calculate")

	// Each redact example on a tool of its own, the same read.
	for _, r := range []struct{ interceptor, other, tool string }{
		{"redact", "redact-rs", "fs_read_text_file"},
		{"redact-rs", "redact", "fs_read_file"},
	} {
		t.Run(r.interceptor, func(t *testing.T) {
			offset := len(g.Stderr())
			args, _ := json.Marshal(map[string]any{"path": pii})
			v := runEndpointClient(t, "http", g.MCPURL, r.tool+"="+string(args))
			if len(v.Calls) != 1 || v.Calls[0].Result == nil {
				t.Fatalf("the TypeScript SDK client's call: %+v", v.Calls)
			}
			got := v.Calls[0].Result.text()
			if v.Calls[0].Result.IsError || !strings.Contains(got, "Customer record 7") || !strings.Contains(got, "status: active") {
				t.Fatalf("%s through %s: %q (isError %v); want the file's text", r.tool, r.interceptor, got, v.Calls[0].Result.IsError)
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
			audited := waitAudit(t, g, offset, 1, named(r.tool))
			if len(audited) != 1 || interceptorDecision(audited[0], r.interceptor) != "modify" || audited[0]["outcome"] != "ok" ||
				interceptorDecision(audited[0], "argguard") != "continue" || interceptorDecision(audited[0], r.other) != "" {
				t.Errorf("audit lines of the call: %v; want one, interceptor=%s decision=modify (argguard continue, %s not run)", audited, r.interceptor, r.other)
			}

			// The structured content (server-filesystem sends the text there
			// too) is redacted as well.
			res, err := harness.CallToolErr(ctx, c, r.tool, map[string]any{"path": pii})
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %q", r.tool, err, harness.ResultText(res))
			}
			all, _ := json.Marshal(res)
			if strings.Contains(string(all), piiEmail) || strings.Contains(string(all), "GB82") || strings.Contains(string(all), piiCard) ||
				!strings.Contains(string(all), "[redacted email]") {
				t.Errorf("the whole result holds PII or no marker: %s", all)
			}
			// A result without PII is let through unchanged.
			if text, isErr := harness.CallTool(ctx, t, c, r.tool, map[string]any{"path": hello}); isErr || text != "hello from the shared folder" {
				t.Errorf("%s of a file without PII: %q (isError %v)", r.tool, text, isErr)
			}
			if n := g.Scrape(t).Sum("wasmgate_interceptor_decisions_total", map[string]string{"interceptor": r.interceptor, "decision": "modify"}); n != 2 {
				t.Errorf("%s's modify decisions: %v, want 2", r.interceptor, n)
			}
		})
	}

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
		denied := waitAudit(t, g, offset, len(outside), func(a auditRecord) bool {
			return interceptorDecision(a, "argguard") == "deny" && a["outcome"] == "denied"
		})
		if len(denied) != len(outside) {
			t.Errorf("%d audit lines with argguard deny, want %d", len(denied), len(outside))
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

// TestInterceptorDescribeLocked: `wasmgate lock` approves
// server-filesystem's tools; the describe example, added, is refused
// until `wasmgate lock` approves it too; then, with it on tools/list,
// every tool is still listed (its description rewritten, not
// withheld by the lock's check, which judges what the source publishes)
// and callable, the hidden ones are not listed, nothing is held, and
// `wasmgate lock --check` finds no tool changed.
func TestInterceptorDescribeLocked(t *testing.T) {
	t.Parallel()
	warmInterceptors(t, "examples/interceptors/describe")
	base := t.TempDir()
	note := filepath.Join(base, "note.txt")
	harness.WriteFile(t, note, []byte("a note"))
	plugins := harness.Item("name: calculator", "path: "+harness.Q(harness.Wasm(t, "examples/plugins/calculator")))
	yaml := func(interceptors string) []byte {
		return []byte(bins.YAML(harness.Parts{Server: harness.NoWatch, Plugins: plugins, Sections: filesUpstream(t, base) + interceptors}))
	}
	cfg := harness.WriteConfig(t, string(yaml("")))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 3*time.Minute)
	c := g.SessionClient(t)
	waitListed(ctx, t, c, "fs_read_text_file", "fs_write_file", "fs_move_file", "calculate")
	published := listDefs(ctx, t, c)

	reloads := g.ReloadCount(t)
	if out := mustLock(t, g, cfg); !strings.Contains(out, `upstream "files": tool "fs_read_text_file": new, not in the lock`) {
		t.Errorf("wasmgate lock did not approve server-filesystem's tools:\n%s", out)
	}
	g.WaitReload(t, reloads, "wasmgate lock")

	const prefix = "[files] "
	hidden := []string{"fs_write_file", "fs_move_file"}
	harness.RenameOver(t, cfg, yaml(fmt.Sprintf(`interceptors:
  - name: describe
    path: %q
    on: [tools/list]
    phase: response
    limits: {timeout: 10s}
    config:
      prefix: %q
      replace: {"Read the complete contents": "Read all of"}
      hide: [fs_write_file, "*_move_file"]
`, harness.Wasm(t, "examples/interceptors/describe"), prefix)))
	// An interceptor the lock does not know is refused, the whole
	// config with it (withholding it would serve calls it should see).
	if code, body := g.PostReload(t); code == http.StatusOK || !strings.Contains(body, `interceptors[0] (interceptor "describe"): new, not in the lock`) {
		t.Fatalf("reload with an interceptor the lock does not know: %d %s; want it refused", code, body)
	}
	if listed := listDefs(ctx, t, c); len(listed) != len(published) {
		t.Fatalf("after the refused reload %d tools are listed, want the %d served before", len(listed), len(published))
	}
	reloads = g.ReloadCount(t)
	if out := mustLock(t, g, cfg); !strings.Contains(out, `interceptor "describe": new, not in the lock`) || strings.Contains(out, `tool "`) {
		t.Errorf("wasmgate lock with the describe interceptor: want it alone approved, no tool changed:\n%s", out)
	}
	g.WaitReload(t, reloads, "wasmgate lock")

	listed := listDefs(ctx, t, c)
	rewritten := 0
	for name, tl := range published {
		got, ok := listed[name]
		switch {
		case slices.Contains(hidden, name):
			if ok {
				t.Errorf("%s is listed; describe hides it", name)
			}
		case !ok:
			t.Errorf("%s is not listed with the describe interceptor (withheld?)", name)
		case tl.Description == "":
			if got.Description != "" {
				t.Errorf("%s: description %q, want none (describe gives none to a tool without one)", name, got.Description)
			}
		default:
			want := prefix + strings.ReplaceAll(tl.Description, "Read the complete contents", "Read all of")
			if got.Description != want {
				t.Errorf("%s: description %q, want %q", name, got.Description, want)
			}
			if want != prefix+tl.Description {
				rewritten++
			}
		}
	}
	if len(listed) != len(published)-len(hidden) {
		t.Errorf("%d tools listed, want %d (the %d published less the hidden)", len(listed), len(published)-len(hidden), len(published))
	}
	if rewritten == 0 {
		t.Error("no description had its replace: applied (server-filesystem's descriptions changed?)")
	}
	locked, held := trustSection(t, g)
	if !locked || len(held) != 0 {
		t.Errorf("the trust section: locked %v, held %+v; want locked with nothing held", locked, held)
	}
	if n := g.Scrape(t).Sum("wasmgate_trust_unapproved", nil); n != 0 {
		t.Errorf("wasmgate_trust_unapproved = %v, want 0", n)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "fs_read_text_file", map[string]any{"path": note}); isErr || text != "a note" {
		t.Errorf("fs_read_text_file with its description rewritten: %q (isError %v)", text, isErr)
	}
	harness.Calc(ctx, t, c, 4, 5)
	if r := lockRun(t, g, cfg, "--check"); strings.Contains(r.Stdout, `tool "`) {
		t.Errorf("wasmgate lock --check with the describe interceptor finds tools changed: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// The TypeScript SDK client lists the same.
	v := runEndpointClient(t, "http", g.MCPURL)
	for _, name := range hidden {
		if slices.Contains(v.Tools, name) {
			t.Errorf("the TypeScript SDK client lists %s", name)
		}
	}
	if !slices.Contains(v.Tools, "fs_read_text_file") || len(v.Tools) != len(published)-len(hidden) {
		t.Errorf("the TypeScript SDK client lists %v", v.Tools)
	}
	if n := g.Scrape(t).Sum("wasmgate_interceptor_decisions_total", map[string]string{"interceptor": "describe", "decision": "modify"}); n < 2 {
		t.Errorf("describe's modify decisions: %v, want one per list", n)
	}
}

// hostileCase is one way testdata/interceptors/hostile misbehaves: an
// interceptor hostile-<name> on tools/call of the source <name> (a
// calculator, its tool <name>_calculate).
type hostileCase struct {
	name, phase, config, limits string
	source                      string // more of the source's item
	want                        string // in the message of the call failed closed
}

var hostileCases = []hostileCase{
	{name: "trap", phase: "request", config: "{mode: trap}", want: "intercept_request"},
	{name: "loop", phase: "request", config: "{mode: loop}", limits: "{timeout: 300ms}", want: "timed out (limits.timeout 300ms)"},
	// The source's timeout bounds its interceptors too: 17 MiB through
	// the Extism kernel takes seconds under the race detector.
	{name: "huge", phase: "response", config: "{mode: huge, bytes: 17825792}", limits: "{timeout: 90s, memory: 256MiB}",
		source: "limits: {timeout: 90s}", want: "over the bound of 16777216"},
	{name: "big", phase: "response", config: "{mode: huge, bytes: 65536}", source: "limits: {max_output: 16KiB}", want: "the source's limits.max_output"},
	{name: "badargs", phase: "request", config: "{mode: schema}", want: "its modification was refused"},
	{name: "badresult", phase: "response", config: "{mode: schema}", want: "its modification was refused"},
	{name: "garbage", phase: "request", config: "{mode: garbage}", want: "not a JSON object"},
}

// TestInterceptorHostile: testdata/interceptors/hostile traps, loops,
// answers over 16 MiB, modifies a result past the source's
// limits.max_output, modifies arguments and a result into shapes the
// tool refuses, and answers garbage: with failure: closed each call
// fails with a message naming the interceptor; reloaded to failure: open
// each call goes on untouched, counted as decision=error and logged. A
// modification that tries to widen the call (another tool, method,
// source, endpoint, principal) changes the arguments and nothing else.
// The gateway serves throughout.
func TestInterceptorHostile(t *testing.T) {
	t.Parallel()
	warmInterceptors(t, "testdata/interceptors/hostile")
	module, calc := harness.Q(harness.Wasm(t, "testdata/interceptors/hostile")), harness.Q(harness.Wasm(t, "examples/plugins/calculator"))
	yaml := func(failure string) []byte {
		plugins := harness.Item("name: calculator", "path: "+calc) +
			harness.Item("name: greeter", "path: "+harness.Q(harness.Wasm(t, "examples/plugins/greeter"))) +
			harness.Item("name: rename", "path: "+calc, "prefix: rename")
		var ic strings.Builder
		ic.WriteString("interceptors:\n")
		for _, hc := range hostileCases {
			items := []string{"name: " + hc.name, "path: " + calc, "prefix: " + hc.name}
			if hc.source != "" {
				items = append(items, hc.source)
			}
			plugins += harness.Item(items...)
			limits := hc.limits
			if limits == "" {
				limits = "{timeout: 10s}"
			}
			fmt.Fprintf(&ic, "  - {name: hostile-%s, path: %s, on: [tools/call], phase: %s, match: {sources: [%s]}, failure: %s, limits: %s, config: %s}\n",
				hc.name, module, hc.phase, hc.name, failure, limits, hc.config)
		}
		fmt.Fprintf(&ic, "  - {name: hostile-rename, path: %s, on: [tools/call], phase: request, match: {sources: [rename]}, failure: %s, limits: {timeout: 10s}, config: {mode: rename, arguments: {a: 1000}}}\n",
			module, failure)
		return []byte(bins.YAML(harness.Parts{Server: harness.NoWatch, Plugins: plugins, Sections: ic.String()}))
	}
	cfg := harness.WriteConfig(t, string(yaml("closed")))
	g := bins.Start(t, harness.Options{Config: cfg})
	ctx := harness.Ctx(t, 5*time.Minute)
	c := g.SessionClient(t)
	add := map[string]any{"operation": "add", "a": 1, "b": 2}

	// serving checks that the gateway still answers, after what.
	serving := func(what string) {
		t.Helper()
		if !g.Alive() {
			t.Fatalf("the gateway exited after %s:\n%s", what, g.Stderr())
		}
		offset := len(g.Stderr())
		if text, failed := callOutcome(ctx, c, "calculate", map[string]any{"operation": "add", "a": 20, "b": 22}); failed || text != "42" {
			t.Fatalf("calculate (no interceptor) after %s: %q (failed %v)", what, text, failed)
		}
		// Its audit line is written after the answer: wait for it, so
		// that it is not counted with the next call's.
		if got := waitAudit(t, g, offset, 1, named("calculate")); len(got) != 1 {
			t.Fatalf("calculate (no interceptor) after %s: audit lines %v, want one", what, got)
		}
	}
	// widening checks the rename interceptor's call: its arguments
	// modified (a: 1000), its tool and caller not.
	widening := func(failure string) {
		t.Helper()
		offset := len(g.Stderr())
		if text, failed := callOutcome(ctx, c, "rename_calculate", add); failed || text != "1002" {
			t.Errorf("rename_calculate, failure %s: %q (failed %v); want 1000+2 (the arguments modified, the tool not)", failure, text, failed)
		}
		serving("rename_calculate")
		renamed := waitAudit(t, g, offset, 1, named("rename_calculate"))
		plain := waitAudit(t, g, offset, 1, named("calculate"))
		if len(renamed) != 1 || len(plain) != 1 {
			t.Fatalf("audit lines of rename_calculate %v and calculate %v: want one each", renamed, plain)
		}
		a := renamed[0]
		if interceptorDecision(a, "hostile-rename") != "modify" || a["outcome"] != "ok" || a["kind"] != "tool" || a["endpoint"] != plain[0]["endpoint"] {
			t.Errorf("the audit line of rename_calculate: %v", a)
		}
		if a["principal"] != plain[0]["principal"] || a["principal"] == "root" {
			t.Errorf("rename_calculate ran as %q, calculate as %q: the interceptor changed the caller", a["principal"], plain[0]["principal"])
		}
		if other := auditLines(t, g.StderrSince(offset)); slices.ContainsFunc(other, named("say_hello")) {
			t.Errorf("the rename interceptor reached say_hello: %v", other)
		}
	}

	for _, hc := range hostileCases {
		text, failed := callOutcome(ctx, c, hc.name+"_calculate", add)
		if !failed || !strings.Contains(text, fmt.Sprintf(`interceptor "hostile-%s" failed`, hc.name)) || !strings.Contains(text, hc.want) ||
			!strings.Contains(text, "failure: closed") {
			t.Errorf("%s, failure closed: %q (failed %v); want it failed naming hostile-%s and %q", hc.name, text, failed, hc.name, hc.want)
		}
		serving(hc.name + ", failure closed")
	}
	widening("closed")

	harness.RenameOver(t, cfg, yaml("open"))
	g.MustReload(t, "reload to failure: open")
	for _, hc := range hostileCases {
		offset := len(g.Stderr())
		if text, failed := callOutcome(ctx, c, hc.name+"_calculate", add); failed || text != "3" {
			t.Errorf("%s, failure open: %q (failed %v); want the call to go on untouched", hc.name, text, failed)
		}
		line, _ := g.WaitLog(offset, "interceptor=hostile-"+hc.name+" failure=open", 10*time.Second)
		if !strings.Contains(line, `msg="interceptor failed"`) || !strings.Contains(line, hc.want) {
			t.Errorf("%s, failure open: no log line of the failure with %q:\n%s", hc.name, hc.want, g.StderrSince(offset))
		}
		serving(hc.name + ", failure open")
	}
	widening("open")

	m := g.Scrape(t)
	for _, hc := range hostileCases {
		if n := m.Sum("wasmgate_interceptor_decisions_total", map[string]string{"interceptor": "hostile-" + hc.name, "decision": "error"}); n != 2 {
			t.Errorf("hostile-%s: %v decision=error counted, want 2 (closed and open)", hc.name, n)
		}
	}
	if n := m.Sum("wasmgate_interceptor_decisions_total", map[string]string{"interceptor": "hostile-rename", "decision": "modify"}); n != 2 {
		t.Errorf("hostile-rename: %v decision=modify counted, want 2", n)
	}
	if n := m.ToolCalls("say_hello", "ok"); n != 0 {
		t.Errorf("say_hello was called %v times", n)
	}
	type interceptorStatus struct {
		Name      string `json:"name"`
		Errors    int64  `json:"errors"`
		LastError string `json:"last_error"`
	}
	var status []interceptorStatus
	statusSection(t, g, "interceptors", &status)
	for _, hc := range hostileCases {
		i := slices.IndexFunc(status, func(s interceptorStatus) bool { return s.Name == "hostile-"+hc.name })
		if i < 0 || status[i].Errors < 1 || !strings.Contains(status[i].LastError, hc.want) {
			t.Errorf("the status page's interceptors section has no errors for hostile-%s: %+v", hc.name, status)
		}
	}
}

// TestInterceptorReloadUnderLoad: 16 sessions call say_hello with an
// e-mail address as the name without pause while the interceptor's
// module is replaced (noop.wasm renamed over by redact.wasm) and the
// config saved twice (redact's patterns changed, then changed back),
// with the watcher on. No call fails, and after each change the new
// interceptor serves.
func TestInterceptorReloadUnderLoad(t *testing.T) {
	t.Parallel()
	const clients = 16
	warmInterceptors(t, "examples/interceptors/redact")
	e := bins.NewDir(t)
	filter := e.Module("filter", "examples/interceptors/noop")
	redact := harness.ReadFixture(t, "examples/interceptors/redact")
	greeter := harness.Item("name: greeter", "path: "+harness.Q(harness.Wasm(t, "examples/plugins/greeter")))
	render := func(patterns, comment string) []byte {
		return []byte(comment + bins.YAML(harness.Parts{Plugins: greeter, Sections: fmt.Sprintf(
			"interceptors:\n  - {name: filter, path: %q, on: [tools/call], phase: response, limits: {timeout: 10s, concurrency: 8}, config: {patterns: [%s]}}\n",
			filter, patterns)}))
	}
	harness.WriteFile(t, e.Config, render("email", ""))
	g := bins.Start(t, harness.Options{Config: e.Config})
	ctx := harness.Ctx(t, 4*time.Minute)

	var (
		stop     atomic.Bool
		calls    atomic.Int64
		failMu   sync.Mutex
		failures []string
		wg       sync.WaitGroup
	)
	for w := range clients {
		c := g.SessionClient(t)
		wg.Go(func() {
			name := fmt.Sprintf("user%d@example.com", w)
			for !stop.Load() {
				cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
				res, err := harness.CallToolErr(cctx, c, "say_hello", map[string]any{"name": name})
				cancel()
				var bad string
				switch {
				case err != nil:
					bad = err.Error()
				case res.IsError:
					bad = "isError: " + harness.ResultText(res)
				case harness.ResultText(res) != "Hello, "+name+"!" && harness.ResultText(res) != "Hello, [redacted email]!":
					bad = fmt.Sprintf("say_hello %s = %q", name, harness.ResultText(res))
				}
				calls.Add(1)
				if bad != "" {
					failMu.Lock()
					failures = append(failures, fmt.Sprintf("client %d at %s: %s", w, time.Now().Format("15:04:05.000"), bad))
					failMu.Unlock()
				}
			}
		})
	}
	defer func() {
		stop.Store(true)
		wg.Wait()
	}()
	control := g.SessionClient(t)
	// serves waits until the control session's say_hello answers want,
	// under load.
	serves := func(what, want string) {
		t.Helper()
		var got string
		if !harness.WaitFor(30*time.Second, func() bool {
			got, _ = callOutcome(ctx, control, "say_hello", map[string]any{"name": "ctl@example.com"})
			return got == want
		}) {
			t.Fatalf("%s: say_hello answers %q, want %q", what, got, want)
		}
	}
	waitCalls := func(n int64) {
		t.Helper()
		target := calls.Load() + n
		if !harness.WaitFor(60*time.Second, func() bool { return calls.Load() >= target }) {
			t.Fatalf("the load made %d calls, want %d", calls.Load(), target)
		}
	}
	serves("noop", "Hello, ctl@example.com!")
	waitCalls(clients)

	for i, change := range []struct {
		what string
		save func()
		want string
	}{
		{"noop.wasm renamed over by redact.wasm", func() { harness.RenameOver(t, filter, redact) }, "Hello, [redacted email]!"},
		{"config saved: patterns [card]", func() { harness.RenameOver(t, e.Config, render("card", "")) }, "Hello, ctl@example.com!"},
		{"config saved: patterns [email, card]", func() { harness.RenameOver(t, e.Config, render("email, card", "# saved again\n")) }, "Hello, [redacted email]!"},
	} {
		before := g.ReloadCount(t)
		change.save()
		g.WaitReload(t, before, change.what)
		if g.LastReloadOK(t) != 1 {
			t.Fatalf("change %d (%s): the reload failed:\n%s", i, change.what, g.Stderr())
		}
		serves(change.what, change.want)
		waitCalls(clients)
	}
	time.Sleep(500 * time.Millisecond)
	stop.Store(true)
	wg.Wait()

	t.Logf("%d calls of %d sessions across 3 reloads", calls.Load(), clients)
	if len(failures) > 0 {
		t.Errorf("%d of %d calls failed under reload, want none; first:\n%s", len(failures), calls.Load(), strings.Join(failures[:min(len(failures), 10)], "\n"))
	}
	if n := g.Scrape(t).Sum("wasmgate_interceptor_decisions_total", map[string]string{"interceptor": "filter", "decision": "error"}); n != 0 {
		t.Errorf("filter: %v decision=error under reload, want 0", n)
	}
}
