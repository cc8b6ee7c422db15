package main

// The CLI's error style (clierr.go): `wasmgate <command>: <what failed>:
// <why>`, one line, each cause once; a 401 is an authentication failure
// with the flags that fix it, a refused connection says so, an unknown
// tool lists the tools there are, closest first.

import (
	"net"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func TestCLIErrors(t *testing.T) {
	t.Parallel()
	const token = "cli-errors-token-0123456789abcdef"
	cfg := bins.YAML(harness.Parts{Plugins: harness.ExamplePlugins(t), Sections: `auth:
  principals:
    - {name: ci, token_env: E2E_CLI_TOKEN}
policy:
  rules:
    - principals: [ci]
      allow: {tools: ["*"], resources: ["*"], prompts: ["*"]}
`})
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, cfg), Env: []string{"E2E_CLI_TOKEN=" + token}})

	// A port nothing listens on: bind one, close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/mcp"
	l.Close()

	examples := harness.WriteConfig(t, bins.ExamplesYAML(t, ""))
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string // the whole first line of stderr
	}{
		{"no token", nil, []string{"call", "--url", g.MCPURL, "calculate", "{}"},
			"wasmgate call: authentication failed at " + g.MCPURL + ": HTTP 401: the gateway wants a bearer token; pass it with --token-env VAR (the variable holding it) or --token TOKEN"},
		{"wrong token", nil, []string{"call", "--url", g.MCPURL, "--token", "not-the-token-at-all", "calculate", "{}"},
			"wasmgate call: authentication failed at " + g.MCPURL + ": HTTP 401: the gateway did not accept the token (check the --token-env variable or --token value is the principal's current token)"},
		{"empty token env", nil, []string{"call", "--url", g.MCPURL, "--token-env", "E2E_UNSET", "calculate", "{}"},
			"wasmgate call: --token-env E2E_UNSET: the variable is not set or empty"},
		{"refused", nil, []string{"call", "--url", closed, "calculate", "{}"},
			"wasmgate call: cannot connect to " + closed + `: connection refused: is the gateway running, and listening on that address and port (the "MCP Streamable HTTP listening" log line)?`},
		{"unknown tool over HTTP", []string{"E2E_CLI_TOKEN=" + token}, []string{"call", "--url", g.MCPURL, "--token-env", "E2E_CLI_TOKEN", "calculat", "{}"},
			`wasmgate call: no tool "calculat": the tools are: calculate, say_hello, set-storage`},
		{"unknown tool in-process", nil, []string{"call", "--config", examples, "say_helo"},
			`wasmgate call: no tool "say_helo": the tools are: say_hello, calculate, set-storage`},
		{"unknown prompt", nil, []string{"prompt", "--config", examples, "greeting"},
			`wasmgate prompt: no prompt "greeting": the prompts are: greeting_prompt`},
		{"unknown resource", nil, []string{"read", "--config", examples, "nope://x"},
			`wasmgate read: no resource "nope://x": the resources are: `},
		{"bad config", nil, []string{"call", "--config", "/nonexistent/gateway.yaml", "calculate"},
			"wasmgate call: invalid configuration:"},
		{"bad config validate", nil, []string{"validate", "--config", "/nonexistent/gateway.yaml"},
			"wasmgate validate: invalid configuration:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bins.Run(t, harness.RunOptions{Env: tc.env}, tc.args...)
			first, _, _ := strings.Cut(r.Stderr, "\n")
			if r.Code != 1 || !strings.HasPrefix(first, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and a first line starting\n%s", r.Code, r.Stderr, tc.want)
			}
			for _, doubled := range []string{"wasmgate: ", "transport error", "failed to send request: failed to send request", "not found: tool not found"} {
				if strings.Contains(r.Stderr, doubled) {
					t.Errorf("stderr has %q:\n%s", doubled, r.Stderr)
				}
			}
		})
	}
	// The token works, from the environment and from the flag.
	if r := bins.Run(t, harness.RunOptions{}, "call", "--url", g.MCPURL, "--token", token, "calculate", `{"operation":"add","a":1,"b":2}`); r.Code != 0 || strings.TrimSpace(r.Stdout) != "3" {
		t.Errorf("call --token: exit %d, stdout %q\n%s", r.Code, r.Stdout, r.Stderr)
	}
}
