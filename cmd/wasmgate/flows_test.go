package main

import (
	"bytes"
	"strings"
	"testing"
)

// The flags of `wasmgate flows reset`: one of --session and --principal,
// and the usage of the command (no gateway is asked).
func TestFlowsResetArgs(t *testing.T) {
	// Not parallel: it sets WASMGATE_CONFIG with t.Setenv.
	for _, c := range []struct {
		args             []string
		session, princ   string
		cfg, admin, want string // want: in stderr when the flags are refused
		code             int
	}{
		{args: []string{"--session", "s1"}, session: "s1", cfg: "gateway.yaml"},
		{args: []string{"--principal", "alice", "--admin", "http://127.0.0.1:9090", "--config", "/etc/g.yaml"}, princ: "alice", cfg: "/etc/g.yaml", admin: "http://127.0.0.1:9090"},
		{args: nil, want: "give --session ID (one session) or --principal NAME (one principal), one of the two", code: 2},
		{args: []string{"--session", "s1", "--principal", "alice"}, want: "one of the two", code: 2},
		{args: []string{"--session", strings.Repeat("x", 513)}, want: "--session is longer than 512 bytes", code: 2},
		{args: []string{"--principal", strings.Repeat("x", 513)}, want: "--principal is longer than 512 bytes", code: 2},
		{args: []string{"--session", "s1", "extra"}, want: `unexpected argument "extra"`, code: 2},
		{args: []string{"--user", "alice"}, want: "flag provided but not defined: -user", code: 2},
		{args: []string{"--help"}, want: "Usage: wasmgate flows reset [flags]", code: 0},
	} {
		t.Setenv("WASMGATE_CONFIG", "")
		var stderr bytes.Buffer
		cfg, admin, req, code, ok := flowsResetArgs(c.args, &stderr)
		if c.want == "" {
			if !ok || cfg != c.cfg || admin != c.admin || req.Session != c.session || req.Principal != c.princ {
				t.Errorf("%q: %q %q %+v %v\n%s", c.args, cfg, admin, req, ok, &stderr)
			}
			continue
		}
		if ok || code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%q: ok %v, exit %d, stderr:\n%s\nwant exit %d and %q", c.args, ok, code, &stderr, c.code, c.want)
		}
	}

	for _, c := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{nil, 2, "", "Usage: wasmgate flows reset"},
		{[]string{"help"}, 0, "Usage: wasmgate flows reset", ""},
		{[]string{"clear"}, 2, "", `wasmgate flows: unknown subcommand "clear"`},
		{[]string{"reset"}, 2, "", "one of the two"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"flows"}, c.args...), strings.NewReader(""), &stdout, &stderr); code != c.code ||
			!strings.Contains(stdout.String(), c.stdout) || !strings.Contains(stderr.String(), c.stderr) {
			t.Errorf("flows %q: exit %d\nstdout: %s\nstderr: %s", c.args, code, &stdout, &stderr)
		}
	}
	var stdout bytes.Buffer
	if run([]string{"help"}, nil, &stdout, &stdout); !strings.Contains(stdout.String(), "wasmgate flows reset (--session ID | --principal NAME)") {
		t.Errorf("the usage does not list flows reset:\n%s", &stdout)
	}
}
