package main

// The CLI's one error style: `wasmgate <command>: <what failed>: <why>`,
// each cause said once, and a refusal named as what it is (authentication,
// authorization, a refused connection, an unknown name) with what to try.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/wasmgate/wasmgate/internal/spell"
)

// cliError is a failure already worded for a person: what failed, and why.
type cliError struct {
	what, why string
}

func (e *cliError) Error() string { return e.what + ": " + e.why }

// printCmdErr prints err as `wasmgate <cmd>: <what failed>: <why>`; a
// multi-line cause (a config's list of errors) goes indented below.
func printCmdErr(w io.Writer, cmd string, err error) {
	msg := cleanCause(err.Error())
	head, rest, multi := strings.Cut(msg, "\n")
	if !multi {
		fmt.Fprintf(w, "wasmgate %s: %s\n", cmd, msg)
		return
	}
	fmt.Fprintf(w, "wasmgate %s: %s:\n", cmd, strings.TrimRight(head, ": "))
	for _, line := range strings.Split(rest, "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// configError says that a config did not load; its lines go below.
func configError(err error) error {
	return &cliError{what: "invalid configuration", why: "\n" + err.Error()}
}

// cleanCause drops what libraries repeat: "transport error: " and a cause
// that follows itself ("failed to send request: failed to send request").
func cleanCause(s string) string {
	s = strings.ReplaceAll(s, "transport error: ", "")
	parts := strings.Split(s, ": ")
	out := parts[:0]
	for _, p := range parts {
		if len(out) > 0 && out[len(out)-1] == p {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ": ")
}

// lastResponse records the status (and the start of the body) of the
// last HTTP answer that was not a success, so that a 401 or 403 is
// reported as such: mcp-go reports a 4xx to initialize as "a legacy SSE
// server" and a 401 as "authorization required".
type lastResponse struct {
	base   http.RoundTripper
	mu     sync.Mutex
	status int
	body   string
}

func (l *lastResponse) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(req)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), resp.Body), resp.Body}
	l.mu.Lock()
	l.status, l.body = resp.StatusCode, strings.TrimSpace(strings.SplitN(string(head), "\n", 2)[0])
	l.mu.Unlock()
	return resp, nil
}

func (l *lastResponse) get() (int, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.status, l.body
}

// urlError words a failure to reach or use the gateway at url.
func urlError(url string, last *lastResponse, withToken bool, err error) error {
	status, body := last.get()
	var authErr *transport.AuthorizationRequiredError
	switch {
	case status == http.StatusUnauthorized || errors.As(err, &authErr) || errors.Is(err, transport.ErrUnauthorized):
		if withToken {
			return &cliError{what: "authentication failed at " + url,
				why: "HTTP 401: the gateway did not accept the token (check the --token-env variable or --token value is the principal's current token)"}
		}
		return &cliError{what: "authentication failed at " + url,
			why: "HTTP 401: the gateway wants a bearer token; pass it with --token-env VAR (the variable holding it) or --token TOKEN"}
	case status == http.StatusForbidden:
		why := "HTTP 403"
		if body != "" {
			why += " (" + body + ")"
		}
		return &cliError{what: "authorization failed at " + url,
			why: why + ": the gateway refused this request; check the principal's policy rules, the token's scopes, or transports.http.allowed_origins"}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &cliError{what: "cannot connect to " + url,
			why: "connection refused: is the gateway running, and listening on that address and port (the \"MCP Streamable HTTP listening\" log line)?"}
	case status >= 400:
		why := fmt.Sprintf("HTTP %d", status)
		if body != "" {
			why += " (" + body + ")"
		}
		if status == http.StatusNotFound {
			why += ": check the path (transports.http.path, default /mcp)"
		}
		return &cliError{what: "request to " + url + " failed", why: why}
	}
	return &cliError{what: "cannot reach " + url, why: cleanCause(err.Error())}
}

// unknownName words a call of a name the gateway does not have, listing
// the names it has, closest first.
func unknownName(kind, name string, have []string) error {
	if len(have) == 0 {
		return &cliError{what: fmt.Sprintf("no %s %q", kind, name), why: fmt.Sprintf("the gateway has no %ss (or none this caller may use)", kind)}
	}
	sorted := slices.Clone(have)
	slices.SortStableFunc(sorted, func(a, b string) int {
		if d := spell.Distance(name, a) - spell.Distance(name, b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return &cliError{what: fmt.Sprintf("no %s %q", kind, name), why: fmt.Sprintf("the %ss are: %s", kind, strings.Join(sorted, ", "))}
}
