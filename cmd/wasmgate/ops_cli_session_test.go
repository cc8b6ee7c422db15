package main

// Issue 48, item 3: `wasmgate call/read/prompt --url` end the MCP session
// they open (DELETE) when they exit, whatever the outcome, so a script
// that calls the gateway in a loop does not pile up sessions until its
// principal is locked out (transports.http.max_sessions_per_principal).

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func TestCLIEndsItsSession(t *testing.T) {
	t.Parallel()
	const token = "cli-session-token-0123456789abcdef"
	// Two sessions per principal: without the DELETE, the third run is
	// refused (503) and the runs after it too.
	cfg := bins.YAML(harness.Parts{HTTP: "    max_sessions_per_principal: 2\n", Plugins: harness.ExamplePlugins(t) + "  - {name: hostile, path: " + harness.Q(harness.Wasm(t, "testdata/plugins/hostile")) + "}\n", Sections: `auth:
  principals:
    - {name: alice, token_env: E2E_CLI_TOKEN}
policy:
  rules:
    - principals: [alice]
      allow: {tools: ["*"], resources: ["*"], prompts: ["*"]}
`})
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, cfg), Env: []string{"E2E_CLI_TOKEN=" + token}})
	env := []string{"E2E_CLI_TOKEN=" + token}
	auth := []string{"--url", g.MCPURL, "--token-env", "E2E_CLI_TOKEN"}

	sessions := func() int { return apiStatus(t, g).Sessions["http"] }
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string // in its output
	}{
		{"call", []string{"call", "calculate", `{"operation":"add","a":1,"b":2}`}, 0, "3"},
		{"call isError", []string{"call", "calculate", `{"operation":"divide","a":1,"b":0}`}, 1, "Division by zero"},
		{"call unknown tool", []string{"call", "calculat", "{}"}, 1, `no tool "calculat"`},
		{"call bad arguments", []string{"call", "calculate", "{not json"}, 1, "not a JSON object"},
		{"read", []string{"read", "greeter://about"}, 0, ""},
		{"read unknown", []string{"read", "nope://x"}, 1, `no resource "nope://x"`},
		{"prompt", []string{"prompt", "greeting_prompt", `{"name":"Ada"}`}, 0, "Ada"},
		{"prompt unknown", []string{"prompt", "greeting"}, 1, `no prompt "greeting"`},
		{"call timed out", []string{"call", "--timeout", "300ms", "sleep", `{"ms":3000}`}, 1, "sleep"},
		{"call again", []string{"call", "calculate", `{"operation":"add","a":2,"b":2}`}, 0, "4"},
	} {
		args := append([]string{tc.args[0]}, append(append([]string{}, auth...), tc.args[1:]...)...)
		r := bins.Run(t, harness.RunOptions{Env: env}, args...)
		if r.Code != tc.code || !strings.Contains(r.Stdout+r.Stderr, tc.out) || strings.Contains(r.Stderr, "warning") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.name, r.Code, r.Stdout, r.Stderr, tc.code, tc.out)
		}
		// The DELETE is sent before the process exits: the session is gone
		// at once (a short wait covers the server's own bookkeeping).
		if !harness.WaitFor(2*time.Second, func() bool { return sessions() == 0 }) {
			t.Fatalf("after %s (%s): %d HTTP sessions open on the gateway, want 0 (the CLI did not end its session)", tc.name, strings.Join(args, " "), sessions())
		}
	}

	// Ctrl-C during a call: the call is cancelled, the session ended.
	ctx := harness.Ctx(t, 30*time.Second)
	cmd := exec.CommandContext(ctx, bins.Path, append(append([]string{"call"}, auth...), "sleep", `{"ms":20000}`)...)
	cmd.Env = append(harness.CleanEnv(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !harness.WaitFor(10*time.Second, func() bool { return apiStatus(t, g).CallsRunning > 0 }) {
		t.Fatal("the sleep call never ran")
	}
	_ = cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "wasmgate call: interrupted") {
		t.Errorf("call interrupted: %v, stderr %q; want exit 1 and \"wasmgate call: interrupted\"", err, stderr.String())
	}
	if !harness.WaitFor(2*time.Second, func() bool { return sessions() == 0 }) {
		t.Fatalf("after an interrupted call: %d HTTP sessions open on the gateway, want 0", sessions())
	}
}
