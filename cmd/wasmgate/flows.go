package main

import (
	"fmt"
	"io"
	"net/http"

	flowctl "github.com/wasmgate/wasmgate/flow" // not flow: a test of package main has a type flow
)

const flowsUsage = `Usage: wasmgate flows reset [--config PATH] [--admin URL] (--session ID | --principal NAME)

Flow control (the flows section, docs/flows.md), asked over the running
gateway's admin listener: reset forgets what a session (or a principal,
under flows.scope: principal or for its requests without a session) has
touched, and the calls a person approved in it, on every replica that
shares the state: its next calls are judged as a new session's.
`

// flowsCmd is `wasmgate flows reset`.
func flowsCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, flowsUsage)
		return 2
	}
	switch args[0] {
	case "reset":
		return flowsReset(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, flowsUsage)
		return 0
	}
	fmt.Fprintf(stderr, "wasmgate flows: unknown subcommand %q\n\n%s", args[0], flowsUsage)
	return 2
}

// flowsResetArgs parses the flags of `wasmgate flows reset`: ok is false
// with the exit code when they are wrong (or asked for help).
func flowsResetArgs(args []string, stderr io.Writer) (cfgPath, adminURL string, req flowctl.ResetRequest, code int, ok bool) {
	fs, cfg := newFlags("flows reset", "Forget the taint of a session (--session) or of a principal (--principal), and the calls\na person approved in it: its next calls, on any replica, are judged as a new session's.", stderr)
	admin := fs.String("admin", "", "the running gateway's admin listener, e.g. http://127.0.0.1:9090 (default: from admin.listen)")
	fs.StringVar(&req.Session, "session", "", "the MCP session id (Mcp-Session-Id) whose taint to forget")
	fs.StringVar(&req.Principal, "principal", "", "the principal whose taint to forget")
	if code, ok := parse(fs, args); !ok {
		return "", "", req, code, false
	}
	switch {
	case (req.Session == "") == (req.Principal == ""):
		fmt.Fprintln(stderr, "wasmgate flows reset: give --session ID (one session) or --principal NAME (one principal), one of the two")
		return "", "", req, 2, false
	case len(req.Session) > flowctl.MaxResetName:
		fmt.Fprintf(stderr, "wasmgate flows reset: --session is longer than %d bytes\n", flowctl.MaxResetName)
		return "", "", req, 2, false
	case len(req.Principal) > flowctl.MaxResetName:
		fmt.Fprintf(stderr, "wasmgate flows reset: --principal is longer than %d bytes\n", flowctl.MaxResetName)
		return "", "", req, 2, false
	}
	return *cfg, *admin, req, 0, true
}

func flowsReset(args []string, stdout, stderr io.Writer) int {
	cfgPath, adminURL, req, code, ok := flowsResetArgs(args, stderr)
	if !ok {
		return code
	}
	c, err := newAdminClient(cfgPath, adminURL)
	if err != nil {
		printCmdErr(stderr, "flows reset", err)
		return 1
	}
	c.absent = "has no flow control: its config has no flows rules, or it is an older wasmgate"
	var res flowctl.ResetResult
	if err := c.do(http.MethodPost, flowctl.AdminResetPath, req, &res); err != nil {
		printCmdErr(stderr, "flows reset", err)
		return 1
	}
	what := "session " + req.Session
	if req.Principal != "" {
		what = "principal " + req.Principal
	}
	if !res.Reset {
		fmt.Fprintf(stdout, "%s has no taint: nothing reset\n", what)
		return 1
	}
	fmt.Fprintf(stdout, "forgot the taint of %s (and its approvals)\n", what)
	return 0
}
