// Command identitybench starts the fixtures of make bench-identity and
// measures a token endpoint's round trip (scripts/bench-identity.sh).
//
// With -serve DIR it serves, on loopback, until interrupted:
//
//   - a real OpenID provider (internal/oauthtest's, zitadel's op package)
//     knowing -users users u00, u01, ...; DIR/tokens gets one access token
//     a line for each of them, for the gateway's resource (-audience), to
//     be the gateway's callers (mcpbench -token-file);
//   - at /mcp, the upstream: mcp-go's server with mcpbench's native
//     calculate tool behind a guard that refuses a tools/call without a
//     bearer token (the gateway lists the tools without one, as
//     internal/oauthtest's whoami allows). It checks that a bearer is
//     there, not its signature:
//     the static bearer and the exchanged tokens cost it the same;
//   - at /nocache/token, the provider's token endpoint behind a reverse
//     proxy that rewrites expires_in to 1 second in every answer, so that
//     a gateway never caches the tokens it gets there: every call through
//     an upstream whose token_url is this one exchanges its caller's token
//     (the cache-miss path; the tokens themselves are the provider's);
//   - at /bench/stats, JSON counts: token exchanges at the provider (all,
//     and through /nocache/token), the distinct bearers the upstream saw,
//     and how many of them were a caller's own token (must be 0).
//
// DIR/fixtures.json holds the URLs (issuer, jwks_url, token_url,
// nocache_token_url, upstream_url, stats_url) and the client credentials
// for the gateway's token_exchange. The line "serving URL" is printed once
// everything listens.
//
// With -rtt URL it sends -n token exchanges of the first token of
// -token-file to the token endpoint URL one after another, on one
// keep-alive connection as the gateway does, and prints their p50 and p99
// (one JSON line with -json): the round trip a cache miss adds.
//
// The provider is a test package's (it takes a testing.TB): this program
// passes it a small stand-in (fixtureTB) whose Fatal panics and whose
// Cleanup runs at exit.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// zitadel's op logs every route it registers at info.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(os.Stderr, "identitybench: %v\n", err)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("identitybench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		serveDir  = fs.String("serve", "", "serve the fixtures, writing tokens and fixtures.json to this folder")
		users     = fs.Int("users", 16, "with -serve: how many users (callers) the provider knows")
		audience  = fs.String("audience", "https://wasmgate.bench/mcp", "with -serve: the audience of the callers' tokens (the gateway's resource)")
		rttURL    = fs.String("rtt", "", "measure the round trip of a token exchange at this (loopback) token endpoint")
		tokenFile = fs.String("token-file", "", "with -rtt: the callers' tokens, one a line (the first is exchanged)")
		n         = fs.Int("n", 200, "with -rtt: how many exchanges")
		asJSON    = fs.Bool("json", false, "with -rtt: also print a JSON line")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *serveDir != "" && *rttURL == "":
		if *users < 1 || *users > 1000 {
			return fmt.Errorf("-users %d is out of range 1..1000", *users)
		}
		return serve(ctx, *serveDir, *users, *audience, stdout)
	case *rttURL != "" && *serveDir == "":
		if err := loopback(*rttURL); err != nil {
			return fmt.Errorf("-rtt: %w", err)
		}
		if *tokenFile == "" || *n < 1 {
			return errors.New("-rtt needs -token-file and -n of at least 1")
		}
		return measureRTT(ctx, *rttURL, *tokenFile, *n, *asJSON, stdout)
	}
	fs.Usage()
	return errors.New("give -serve DIR or -rtt URL")
}

// loopback reports an error unless raw is an http URL on a loopback IP:
// the program talks only to this machine.
func loopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(u.Hostname())
	if u.Scheme != "http" || err != nil || !ip.IsLoopback() {
		return fmt.Errorf("%q is not an http URL on a loopback IP", raw)
	}
	return nil
}

// writeJSON writes v to path.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// newClient is a keep-alive HTTP client for one caller at a time.
func newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}
}
