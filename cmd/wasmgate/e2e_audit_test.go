package main

// The audit log: one line per call, to the log or to audit.file (JSON
// lines, reopened on SIGHUP after a rotation), arguments only when asked,
// with secret-looking values redacted.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// auditRecord is one audit line, from the log (text) or audit.file (JSON).
type auditRecord map[string]string

var logAttrRE = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*"|\S*)`)

// auditLines returns the audit lines of a text log.
func auditLines(t *testing.T, log string) []auditRecord {
	t.Helper()
	var out []auditRecord
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, "component=audit") || !strings.Contains(line, "msg=call") {
			continue
		}
		r := auditRecord{}
		for _, m := range logAttrRE.FindAllStringSubmatch(line, -1) {
			v := m[2]
			if strings.HasPrefix(v, `"`) {
				u, err := strconv.Unquote(v)
				if err != nil {
					t.Fatalf("audit line %q: %s=%s: %v", line, m[1], v, err)
				}
				v = u
			}
			r[m[1]] = v
		}
		out = append(out, r)
	}
	return out
}

// auditFile returns the lines of an audit file, each a JSON object.
func auditFile(t *testing.T, path string) []auditRecord {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []auditRecord
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: a line that is not JSON: %q: %v", path, line, err)
		}
		r := auditRecord{}
		for k, v := range m {
			r[k] = fmt.Sprint(v)
		}
		out = append(out, r)
	}
	return out
}

// waitAuditFile returns the lines of an audit file once it has n of them
// (lines reach audit.file within 100 ms of their call, in batches),
// or what it has after 10 s.
func waitAuditFile(t *testing.T, path string, n int) []auditRecord {
	t.Helper()
	var lines []auditRecord
	harness.WaitFor(10*time.Second, func() bool {
		if _, err := os.Stat(path); err != nil {
			return false
		}
		lines = auditFile(t, path)
		return len(lines) >= n
	})
	return lines
}

// checkAudit checks that got are the audit lines of the calls in want
// (principal, transport, kind, name, outcome), in order, each with a
// session, a duration and the endpoint (default: no endpoints section).
func checkAudit(t *testing.T, where string, got []auditRecord, want [][5]string, session map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d audit lines, want %d (one per call): %v", where, len(got), len(want), got)
		return
	}
	for i, w := range want {
		r := got[i]
		for j, key := range []string{"principal", "transport", "kind", "name", "outcome"} {
			if r[key] != w[j] {
				t.Errorf("%s: audit line %d: %s=%q, want %q (%v)", where, i, key, r[key], w[j], r)
			}
		}
		if r["endpoint"] != "default" {
			t.Errorf("%s: audit line %d: endpoint=%q, want default (%v)", where, i, r["endpoint"], r)
		}
		if s := session[w[1]]; r["session"] == "" || (s != "" && r["session"] != s) {
			t.Errorf("%s: audit line %d: session=%q, want %q", where, i, r["session"], s)
		}
		if d, err := strconv.ParseFloat(r["duration_ms"], 64); err != nil || d < 0 {
			t.Errorf("%s: audit line %d: duration_ms=%q", where, i, r["duration_ms"])
		}
		if _, err := time.Parse(time.RFC3339Nano, r["time"]); err != nil {
			t.Errorf("%s: audit line %d: time=%q: %v", where, i, r["time"], err)
		}
	}
}

// TestAudit: every call (any outcome, any transport) writes one audit
// line; audit.arguments adds the arguments with secret-looking values
// redacted; audit.file takes the lines as JSON, and after the file is
// renamed, SIGHUP makes the gateway write a new one.
func TestAudit(t *testing.T) {
	t.Parallel()
	tok := newToken(t)
	password, apiToken, authz := "pw-"+newToken(t), "api-"+newToken(t), "Bearer "+newToken(t)
	secrets := harness.Secrets{tok, password, apiToken, authz}
	e := bins.NewDir(t)
	audit := filepath.Join(e.Path, "audit.log")
	level := "info"
	render := func(section string) []byte {
		return []byte(e.YAML(harness.NoWatch+"  log: {level: "+level+"}\n",
			harness.Item("name: calculator", "path: "+harness.Q(e.Module("calculator", "examples/plugins/calculator"))),
			harness.Item("name: storage", "path: "+harness.Q(e.Module("storage", "examples/plugins/storage"))),
			harness.Item("name: greeter", "path: "+harness.Q(e.Module("greeter", "examples/plugins/greeter"))),
		) + fmt.Sprintf(`auth:
  principals:
    - {name: auditor, token_sha256: %s}
policy:
  reveal_hidden: true # these tests read the refusal of a hidden name
  rules:
    - principals: [auditor, local]
      allow: {tools: [calculate, say_hello], resources: ["*"], prompts: ["*"]}
%s`, sha256Hex(tok), section))
	}
	harness.WriteFile(t, e.Config, render("audit:\n  arguments: true\n"))
	g := bins.Start(t, harness.Options{Config: e.Config, Stdio: true})
	secrets.Watch(t, g)
	ctx := harness.Ctx(t, 2*time.Minute)
	hc := g.SessionClient(t, withToken(tok))
	sc := g.StdioClient(t)
	sessions := map[string]string{"http": hc.GetSessionId()}

	calls := func() [][5]string {
		t.Helper()
		harness.Calc(ctx, t, hc, 2, 3)
		args := map[string]any{
			"name":      "Ada",
			"password":  password,
			"api_token": apiToken,
			"nested":    map[string]any{"Authorization": authz, "note": "kept"},
		}
		if text, isErr := harness.CallTool(ctx, t, hc, "say_hello", args); isErr {
			t.Fatalf("say_hello = %q", text)
		}
		if text, isErr := harness.CallTool(ctx, t, hc, "set-storage", map[string]any{"key": "k", "value": "v"}); !isErr || !strings.Contains(text, deniedByPolicy) {
			t.Fatalf("set-storage = %q, want it denied", text)
		}
		if _, isErr := harness.CallTool(ctx, t, hc, "calculate", map[string]any{"operation": "add"}); !isErr {
			t.Fatalf("calculate without a and b was served")
		}
		harness.ReadText(ctx, t, hc, "greeter://about")
		if _, err := harness.GetPrompt(ctx, hc, "greeting_prompt", map[string]string{"name": "Grace"}); err != nil {
			t.Fatal(err)
		}
		harness.Calc(ctx, t, sc, 4, 5)
		return [][5]string{
			{"auditor", "http", "tool", "calculate", "ok"},
			{"auditor", "http", "tool", "say_hello", "ok"},
			{"auditor", "http", "tool", "set-storage", "denied"},
			{"auditor", "http", "tool", "calculate", "invalid_args"},
			{"auditor", "http", "resource", "greeter://about", "ok"},
			{"auditor", "http", "prompt", "greeting_prompt", "ok"},
			{"local", "stdio", "tool", "calculate", "ok"},
		}
	}

	// To the log, with arguments.
	want := calls()
	var lines []auditRecord
	harness.WaitFor(10*time.Second, func() bool {
		lines = auditLines(t, g.Stderr())
		return len(lines) >= len(want)
	})
	checkAudit(t, "log", lines, want, sessions)
	if len(lines) == len(want) {
		args := lines[1]["arguments"]
		var got map[string]any
		if err := json.Unmarshal([]byte(args), &got); err != nil {
			t.Fatalf("say_hello's audit arguments %q: %v", args, err)
		}
		nested, _ := got["nested"].(map[string]any)
		if got["name"] != "Ada" || got["password"] != "[redacted]" || got["api_token"] != "[redacted]" ||
			nested["Authorization"] != "[redacted]" || nested["note"] != "kept" {
			t.Errorf("say_hello's audit arguments = %s, want name and note kept, password, api_token and Authorization redacted", args)
		}
		if a := lines[0]["arguments"]; a != `{"a":2,"b":3,"operation":"add"}` {
			t.Errorf("calculate's audit arguments = %q", a)
		}
	}
	secrets.Check(t, "the log", g.Stderr())

	// To audit.file, without arguments: SIGHUP applies it.
	hup := func(what string) {
		t.Helper()
		n := g.ReloadCount(t)
		if err := g.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		if _, fail := g.WaitReload(t, n, what); fail != 0 {
			t.Fatalf("%s: the reload failed:\n%s", what, g.Stderr())
		}
	}
	harness.WriteFile(t, e.Config, render("audit:\n  file: audit.log\n"))
	hup("audit.file")
	inLog := len(auditLines(t, g.Stderr()))
	want = calls()
	file := waitAuditFile(t, audit, len(want))
	checkAudit(t, "audit.file", file, want, sessions)
	for i, r := range file {
		if _, ok := r["arguments"]; ok {
			t.Errorf("audit.file line %d has arguments without audit.arguments: %v", i, r)
		}
	}
	if n := len(auditLines(t, g.Stderr())); n != inLog {
		t.Errorf("%d audit lines went to the log with audit.file set", n-inLog)
	}
	if fi, err := os.Stat(audit); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("audit.file mode: %v %v, want 0600", fi.Mode(), err)
	}

	// Rotation: rename, then SIGHUP. Until the signal the renamed file
	// gets the lines; after it, a new audit.log.
	rotated := audit + ".1"
	if err := os.Rename(audit, rotated); err != nil {
		t.Fatal(err)
	}
	harness.Calc(ctx, t, hc, 1, 1)
	hup("rotate")
	harness.Calc(ctx, t, hc, 2, 2)
	harness.Calc(ctx, t, sc, 3, 3)
	// The reload wrote what waited to the renamed file before reopening.
	if got := auditFile(t, rotated); len(got) != len(want)+1 {
		t.Errorf("the rotated file has %d lines, want %d (every call before SIGHUP)", len(got), len(want)+1)
	}
	checkAudit(t, "the new audit.file", waitAuditFile(t, audit, 2), [][5]string{
		{"auditor", "http", "tool", "calculate", "ok"},
		{"local", "stdio", "tool", "calculate", "ok"},
	}, sessions)
	for _, p := range []string{audit, rotated} {
		b, _ := os.ReadFile(p)
		secrets.Check(t, p, string(b))
	}

	// At log level error: audit.file still gets every line (the level is
	// the log's), the log gets none.
	level = "error"
	harness.WriteFile(t, e.Config, render("audit:\n  file: audit.log\n"))
	hup("log level error")
	inLog = len(auditLines(t, g.Stderr()))
	harness.Calc(ctx, t, hc, 9, 9)
	if got := waitAuditFile(t, audit, 3); len(got) != 3 {
		t.Errorf("audit.file at server.log.level error: %d lines, want 3", len(got))
	}
	harness.WriteFile(t, e.Config, render(""))
	hup("audit to the log at level error")
	harness.Calc(ctx, t, hc, 9, 9)
	time.Sleep(300 * time.Millisecond) // what the gateway logs arrives by then
	if n := len(auditLines(t, g.Stderr())); n != inLog {
		t.Errorf("%d audit lines in the log at server.log.level error, want none (info lines)", n-inLog)
	}
}
