package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/wasmgate/wasmgate/auth/vault"
	"github.com/wasmgate/wasmgate/internal/netutil"
	"github.com/wasmgate/wasmgate/internal/plural"
	"github.com/wasmgate/wasmgate/loader"
)

const credentialsUsage = `Usage: wasmgate credentials list   [--config PATH] [--admin URL] [--upstream U]
       wasmgate credentials revoke [--config PATH] [--admin URL] --upstream U (--principal P | --all)

Each user's grants to upstream servers (per-user OAuth), as the running
gateway's vault holds them, asked over its admin listener: list shows who
connected what and when (never a token); revoke removes one user's grant,
or with --all every user's grant to one upstream, on every replica.
`

// credentialsCmd is `wasmgate credentials list|revoke`.
func credentialsCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, credentialsUsage)
		return 2
	}
	switch args[0] {
	case "list":
		return credentialsList(args[1:], stdout, stderr)
	case "revoke":
		return credentialsRevoke(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, credentialsUsage)
		return 0
	}
	fmt.Fprintf(stderr, "wasmgate credentials: unknown subcommand %q\n\n%s", args[0], credentialsUsage)
	return 2
}

func credentialsList(args []string, stdout, stderr io.Writer) int {
	fs, cfgPath := newFlags("credentials list", "List each user's grants to upstream servers: who connected what, when, and when it expires (never a token).", stderr)
	adminURL := fs.String("admin", "", "the running gateway's admin listener, e.g. http://127.0.0.1:9090 (default: from admin.listen)")
	upstream := fs.String("upstream", "", "only the grants to this upstream")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	c, err := newAdminClient(*cfgPath, *adminURL)
	if err != nil {
		printCmdErr(stderr, "credentials list", err)
		return 1
	}
	path := vault.AdminListPath
	if *upstream != "" {
		path += "?upstream=" + url.QueryEscape(*upstream)
	}
	var list []vault.Meta
	if err := c.do(http.MethodGet, path, nil, &list); err != nil {
		printCmdErr(stderr, "credentials list", err)
		return 1
	}
	if len(list) == 0 {
		if *upstream != "" {
			fmt.Fprintf(stdout, "no user has connected upstream %s\n", *upstream)
		} else {
			fmt.Fprintln(stdout, "no user has connected an upstream")
		}
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "UPSTREAM\tPRINCIPAL\tSUBJECT\tSCOPES\tCONNECTED\tREFRESHED\tEXPIRES")
	for _, m := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.Upstream, m.Principal, orDash(m.Subject),
			orDash(strings.Join(m.Scopes, " ")), when(m.ConnectedAt), when(m.RefreshedAt), when(m.Expiry))
	}
	_ = tw.Flush()
	return 0
}

func credentialsRevoke(args []string, stdout, stderr io.Writer) int {
	fs, cfgPath := newFlags("credentials revoke", "Revoke a user's grant to an upstream (--principal), or every user's (--all): their next call\nto it, on any replica, asks them to connect again. The grant is removed from the vault; revoke it\nat the upstream's authorization server too if it must stop working there.", stderr)
	adminURL := fs.String("admin", "", "the running gateway's admin listener, e.g. http://127.0.0.1:9090 (default: from admin.listen)")
	upstream := fs.String("upstream", "", "the upstream (required)")
	principal := fs.String("principal", "", "the user whose grant to revoke")
	all := fs.Bool("all", false, "revoke every user's grant to the upstream")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	switch {
	case *upstream == "":
		fmt.Fprintln(stderr, "wasmgate credentials revoke: --upstream is required")
		return 2
	case *all == (*principal != ""):
		fmt.Fprintln(stderr, "wasmgate credentials revoke: give --principal P (one user) or --all (every user), one of the two")
		return 2
	}
	c, err := newAdminClient(*cfgPath, *adminURL)
	if err != nil {
		printCmdErr(stderr, "credentials revoke", err)
		return 1
	}
	var res vault.RevokeResult
	req := vault.RevokeRequest{Upstream: *upstream, Principal: *principal, All: *all}
	if err := c.do(http.MethodPost, vault.AdminRevokePath, req, &res); err != nil {
		printCmdErr(stderr, "credentials revoke", err)
		return 1
	}
	switch {
	case *all:
		fmt.Fprintf(stdout, "revoked %s to upstream %s\n", plural.N(res.Revoked, "grant"), *upstream)
	case res.Revoked == 0:
		fmt.Fprintf(stdout, "%s has no grant to upstream %s: nothing revoked\n", *principal, *upstream)
		return 1
	default:
		fmt.Fprintf(stdout, "revoked the grant of %s to upstream %s\n", *principal, *upstream)
	}
	return 0
}

// adminClient talks to the running gateway's admin listener.
type adminClient struct {
	base, token string
	// absent is what a 404 means: the gateway at base ... (what the
	// command asked for is not served).
	absent string
}

// newAdminClient reads the config at cfgPath for the admin listener's
// address (unless base is given) and its bearer token (admin.auth).
func newAdminClient(cfgPath, base string) (*adminClient, error) {
	cfg, err := loader.LoadUnlocked(cfgPath, os.Environ())
	if err != nil {
		return nil, configError(err)
	}
	c := &adminClient{base: strings.TrimSuffix(base, "/"), absent: "has no credentials vault: no upstream uses user_oauth, or it is an older wasmgate"}
	if c.base == "" {
		if !cfg.Admin.On() {
			return nil, &cliError{what: "no admin listener", why: "admin.enabled is false in " + cfg.File + "; the credentials and flows commands talk to the gateway over it"}
		}
		host, port, err := net.SplitHostPort(cfg.Admin.Listen)
		if err != nil || port == "0" {
			return nil, &cliError{what: "no admin listener", why: "admin.listen is " + cfg.Admin.Listen + "; pass --admin URL"}
		}
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "127.0.0.1"
		}
		c.base = "http://" + net.JoinHostPort(host, port)
	}
	if cfg.Admin.Auth.Set() {
		tok, err := cfg.Admin.Auth.Ref("admin.auth").Read(cfg.File, nil)
		if err != nil {
			return nil, err
		}
		c.token = tok.Value()
	}
	return c, nil
}

// do sends body (JSON, for a POST) to path and decodes the answer into
// out.
func (c *adminClient) do(method, path string, body, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	target := c.base + path
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet {
		// A state-changing admin request: the header no outbound client
		// of the gateway sends (or the token below).
		req.Header.Set(netutil.AdminHeader, "1")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return &cliError{what: "no gateway answers at " + c.base, why: "start it (wasmgate serve), or pass --admin with its admin listener's URL"}
		}
		return fmt.Errorf("ask the gateway at %s: %w", target, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return fmt.Errorf("read the answer of %s: %w", target, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		what, why, _ := strings.Cut(c.absent, ": ")
		return &cliError{what: "the gateway at " + c.base + " " + what, why: why + " (" + errorText(data) + ")"}
	case resp.StatusCode == http.StatusUnauthorized:
		return &cliError{what: "the gateway at " + c.base + " refused the request", why: "missing or wrong admin bearer token (admin.auth)"}
	case resp.StatusCode != http.StatusOK:
		return &cliError{what: "the gateway at " + c.base + " answered " + resp.Status, why: errorText(data)}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("the gateway at %s answered: %w", target, err)
	}
	return nil
}

// errorText is the message of an error answer: its "error" when it is
// a JSON {"error": "..."}, else its text.
func errorText(data []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && e.Error != "" {
		return e.Error
	}
	return strings.TrimSpace(string(data))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// when is t in UTC to the minute, or "-".
func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}
