package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// maxClients bounds -clients so a typo cannot open thousands of sessions.
const maxClients = 1024

// defaultProtocolVersion is the newest MCP revision that still uses the
// initialize handshake and Mcp-Session-Id sessions; mcp-go v1.2.1 negotiates
// it (and 2025-06-18, 2025-03-26) through initialize.
const defaultProtocolVersion = "2025-11-25"

// config is the validated command line.
type config struct {
	url             *url.URL
	tool            string
	args            json.RawMessage // compact JSON object
	expect          string
	hasExpect       bool
	clients         []int
	duration        time.Duration
	warmup          time.Duration
	callTimeout     time.Duration
	tokens          []string // bearer tokens: client i of a phase sends tokens[i % len(tokens)]
	protocolVersion string
	json            bool
	cpuProfile      string
	procs           int
	serve           string        // -serve: serve the native baseline instead
	serveStdio      bool          // -serve-stdio: the same over stdin/stdout
	otlpSink        string        // -otlp-sink: accept and discard OTLP/HTTP exports
	reverseProxy    string        // -reverse-proxy: forward every request to -url, doing nothing else
	traceTo         string        // -trace-to: with -serve, trace every call to this OTLP/HTTP endpoint
	serveFloor      string        // -serve-floor: serve net/http + encoding/json, no MCP library
	stdioFloor      string        // -stdio-floor: forward Streamable HTTP to a shared -serve-stdio server, doing nothing else
	cpuPIDs         []int         // -cpu-pid: the processes whose CPU per call is reported, the server first
	targets         []target      // -target: servers compared in interleaved slices
	slice           time.Duration // -slice: each target's turn in an interleaved comparison
}

// parseConfig parses and validates the command line. getenv resolves
// -token-env; usage and flag errors are written to stderr.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var (
		cfg       config
		rawURL    string
		rawArgs   string
		clients   string
		tokenEnv  string
		tokenFile string
		cpuPIDs   string
		targets   []string
	)
	fs := flag.NewFlagSet("mcpbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&rawURL, "url", "http://127.0.0.1:8080/mcp", "MCP Streamable HTTP endpoint (loopback only)")
	fs.StringVar(&cfg.tool, "tool", "calculate", "name of the tool to call")
	fs.StringVar(&rawArgs, "args", `{"operation":"add","a":5,"b":3}`, "tool arguments, a JSON object")
	fs.Func("expect", "exact text of the first text content every call must return (optional)", func(s string) error {
		cfg.expect, cfg.hasExpect = s, true
		return nil
	})
	fs.StringVar(&clients, "clients", "1,16", "comma-separated concurrent client counts, one phase each")
	fs.DurationVar(&cfg.duration, "duration", 5*time.Second, "measured duration of each phase")
	fs.DurationVar(&cfg.warmup, "warmup", time.Second, "unrecorded warmup before each phase")
	fs.DurationVar(&cfg.callTimeout, "timeout", 10*time.Second, "how long a call may run past the end of its phase before it is abandoned")
	fs.StringVar(&tokenEnv, "token-env", "", "name of an environment variable holding a bearer token (optional)")
	fs.StringVar(&tokenFile, "token-file", "", "a file of bearer tokens, one a line: client i of a phase sends line i modulo their number, so that every client can be a caller of its own (optional; not with -token-env)")
	fs.StringVar(&cfg.protocolVersion, "protocol-version", defaultProtocolVersion, "MCP protocol version requested in initialize")
	fs.BoolVar(&cfg.json, "json", false, "also print a JSON summary line per phase")
	fs.IntVar(&cfg.procs, "procs", 1, "GOMAXPROCS of the driver; 1 keeps it from competing with a server on the same small machine (0: Go's default)")
	fs.StringVar(&cpuPIDs, "cpu-pid", "", "process ids (comma-separated, the server first; on this machine) whose CPU time per call over each measured window is reported, with the driver's own (Linux /proc; optional)")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the driver (with -serve or -serve-stdio: of that server, until it stops) to this file (optional)")
	fs.StringVar(&cfg.otlpSink, "otlp-sink", "", "instead of driving load, accept and discard OTLP/HTTP trace exports on this loopback host:port (the collector of make bench-tracing)")
	fs.StringVar(&cfg.reverseProxy, "reverse-proxy", "", "instead of driving load, serve on this loopback host:port a plain HTTP reverse proxy (net/http/httputil) to -url that does nothing but forward (the floor of any HTTP proxy in make bench-upstream)")
	fs.StringVar(&cfg.traceTo, "trace-to", "", "with -serve: record the spans the gateway records for every call (OpenTelemetry SDK, sampled at ratio 1) and export them to this loopback OTLP/HTTP endpoint, such as -otlp-sink's (make bench-tracing's floor)")
	fs.StringVar(&cfg.serveFloor, "serve-floor", "", "instead of driving load, serve on this loopback host:port, at /mcp, the floor of make bench: net/http and encoding/json answering initialize and tools/call of calculate, no MCP library")
	fs.StringVar(&cfg.stdioFloor, "stdio-floor", "", "instead of driving load, serve on this loopback host:port, at /mcp, the floor of any proxy from Streamable HTTP to a stdio server: mcpbench -serve-stdio started once for every session, each request forwarded under an id of its own and its answer sent back, nothing else (make bench-peers' stdio_floor)")
	fs.BoolVar(&cfg.serveStdio, "serve-stdio", false, "instead of driving load, serve the same native server over stdin and stdout until stdin ends (the stdio upstream of make bench)")
	fs.StringVar(&cfg.serve, "serve", "", "instead of driving load, serve mcp-go's own Streamable HTTP server with a native calculate tool on this loopback host:port, at /mcp, until interrupted (the baseline of make bench)")
	fs.Func("target", "a server of an interleaved comparison, as a JSON object {\"name\",\"url\",\"pid\"?,\"pids\"?,\"tool\"?,\"args\"?,\"expect\"?,\"token_env\"?,\"token_file\"?} (unset fields take -tool, -args, -expect, -token-env or -token-file; pid: the server process whose CPU time per call is reported, or pids: the server side's processes, each with all its descendants, summed); repeat for each server, at least two: their clients take turns of -slice, the order rotating each round, and every target is compared with the first round by round (replaces -url and -cpu-pid)", func(s string) error {
		targets = append(targets, s)
		return nil
	})
	fs.DurationVar(&cfg.slice, "slice", 200*time.Millisecond, "with -target: how long each target's clients call in one turn")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: mcpbench [flags]\n\nLoad-tests one tool of an MCP Streamable HTTP server on this machine.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}

	u, err := parseLoopbackURL(rawURL)
	if err != nil {
		return config{}, err
	}
	cfg.url = u

	if cfg.tool == "" {
		return config{}, errors.New("-tool must not be empty")
	}
	if cfg.args, err = compactObject(rawArgs); err != nil {
		return config{}, fmt.Errorf("-args: %w", err)
	}
	if cfg.clients, err = parseClients(clients); err != nil {
		return config{}, fmt.Errorf("-clients: %w", err)
	}
	if cfg.cpuPIDs, err = parsePIDs(cpuPIDs); err != nil {
		return config{}, fmt.Errorf("-cpu-pid: %w", err)
	}
	if cfg.duration <= 0 {
		return config{}, errors.New("-duration must be positive")
	}
	if cfg.warmup < 0 {
		return config{}, errors.New("-warmup must not be negative")
	}
	if cfg.callTimeout <= 0 {
		return config{}, errors.New("-timeout must be positive")
	}
	if cfg.procs < 0 {
		return config{}, errors.New("-procs must not be negative")
	}
	if cfg.protocolVersion == "" {
		return config{}, errors.New("-protocol-version must not be empty")
	}
	for flag, addr := range map[string]string{"-serve": cfg.serve, "-reverse-proxy": cfg.reverseProxy, "-serve-floor": cfg.serveFloor, "-stdio-floor": cfg.stdioFloor} {
		if addr == "" {
			continue
		}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return config{}, fmt.Errorf("%s %q: %w", flag, addr, err)
		}
		if err := checkLoopbackHost(host); err != nil {
			return config{}, fmt.Errorf("%s %q: %w", flag, addr, err)
		}
	}
	if cfg.traceTo != "" {
		if cfg.serve == "" {
			return config{}, errors.New("-trace-to needs -serve")
		}
		if _, err := parseLoopbackURL(cfg.traceTo); err != nil {
			return config{}, fmt.Errorf("-trace-to: %w", err)
		}
	}
	if cfg.tokens, err = readTokens("-", tokenEnv, tokenFile, getenv); err != nil {
		return config{}, err
	}
	if len(targets) == 1 {
		return config{}, errNeedTwoTargets
	}
	if len(targets) > 0 {
		if cfg.slice <= 0 || cfg.slice > cfg.duration {
			return config{}, fmt.Errorf("-slice %v must be positive and at most -duration %v", cfg.slice, cfg.duration)
		}
		if len(cfg.cpuPIDs) > 0 {
			return config{}, errors.New("-cpu-pid does not go with -target: give each target's pid in its JSON")
		}
		names := map[string]bool{}
		for _, raw := range targets {
			t, err := parseTarget(raw, cfg, getenv)
			if err != nil {
				return config{}, fmt.Errorf("-target %w", err)
			}
			if names[t.Name] {
				return config{}, fmt.Errorf("-target: name %q given twice", t.Name)
			}
			names[t.Name] = true
			cfg.targets = append(cfg.targets, t)
		}
	}
	return cfg, nil
}

// parseLoopbackURL accepts only http(s) URLs whose host is localhost or a
// loopback IP literal. Load against other addresses is not allowed.
func parseLoopbackURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("-url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("-url %q: scheme must be http or https", raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("-url %q: credentials in the URL are not supported; use -token-env", raw)
	}
	if err := checkLoopbackHost(u.Hostname()); err != nil {
		return nil, fmt.Errorf("-url %q: %w", raw, err)
	}
	return u, nil
}

// checkLoopbackHost reports an error unless host is "localhost" or a loopback
// IP literal (127.0.0.0/8, ::1).
func checkLoopbackHost(host string) error {
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("host %q is not localhost or a loopback IP: mcpbench only drives load against this machine (127.0.0.0/8, ::1, localhost)", host)
	}
	if !ip.Unmap().IsLoopback() {
		return fmt.Errorf("host %s is not a loopback address: mcpbench only drives load against this machine (127.0.0.0/8, ::1, localhost)", ip)
	}
	return nil
}

// isLoopbackAddr reports whether a dialed "host:port" is on a loopback IP.
func isLoopbackAddr(addr net.Addr) bool {
	ap, err := netip.ParseAddrPort(addr.String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

func compactObject(raw string) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(raw)); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if buf.Len() == 0 || buf.Bytes()[0] != '{' {
		return nil, errors.New("must be a JSON object")
	}
	return buf.Bytes(), nil
}

// parsePIDs parses -cpu-pid: none, or comma-separated process ids.
func parsePIDs(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for field := range strings.SplitSeq(s, ",") {
		pid, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("%q is not a process id", field)
		}
		out = append(out, pid)
	}
	return out, nil
}

func parseClients(s string) ([]int, error) {
	var out []int
	for field := range strings.SplitSeq(s, ",") {
		field = strings.TrimSpace(field)
		n, err := strconv.Atoi(field)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", field)
		}
		if n < 1 || n > maxClients {
			return nil, fmt.Errorf("%d is out of range 1..%d", n, maxClients)
		}
		out = append(out, n)
	}
	return out, nil
}

// readTokens resolves a token_env and a token_file (at most one of them
// set; flag prefixes the names in errors: "-" for the command line's
// flags): the environment variable's value, or the file's non-empty
// lines. Neither set is no token.
func readTokens(flag, env, file string, getenv func(string) string) ([]string, error) {
	switch {
	case env != "" && file != "":
		return nil, fmt.Errorf("%stoken-env and %stoken-file do not go together", flag, flag)
	case env != "":
		tok := strings.TrimSpace(getenv(env))
		if tok == "" {
			return nil, fmt.Errorf("%stoken-env: environment variable %s is empty or unset", flag, env)
		}
		return []string{tok}, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%stoken-file: %w", flag, err)
		}
		var toks []string
		for line := range strings.Lines(string(b)) {
			if line = strings.TrimSpace(line); line != "" {
				toks = append(toks, line)
			}
		}
		if len(toks) == 0 {
			return nil, fmt.Errorf("%stoken-file: %s holds no token", flag, file)
		}
		return toks, nil
	}
	return nil, nil
}
