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
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway"
	"github.com/wasmgate/wasmgate/loader"
)

// newFlagSet is a command's flag set whose usage names its arguments.
func newFlagSet(name, argsUsage, summary string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("wasmgate "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: wasmgate %s [flags] %s\n\n%s\n\nFlags:\n", name, argsUsage, summary)
		fs.PrintDefaults()
	}
	return fs
}

func flagCode(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// oneCall is what call, read and prompt share: where to call (a config
// served in-process, or a running gateway's URL) and how to print.
type oneCall struct {
	config, url, token, tokenEnv *string
	endpoint                     *string
	asJSON                       *bool
	timeout                      *time.Duration
	// last is the last failed HTTP answer (with --url), for the wording
	// of an error.
	last *lastResponse
}

func oneCallFlags(fs *flag.FlagSet) oneCall {
	return oneCall{
		config:   fs.String("config", "", "serve this gateway.yaml in-process for the call (default $WASMGATE_CONFIG, else ./gateway.yaml)"),
		url:      fs.String("url", "", "call a running gateway's Streamable HTTP endpoint instead, e.g. http://127.0.0.1:8080/mcp"),
		endpoint: fs.String("endpoint", "", "with the in-process gateway: the endpoint to call (endpoints[].name; default the one stdio serves: the first)"),
		token:    fs.String("token", "", "with --url: a bearer token (visible to other users in the process list; prefer --token-env)"),
		tokenEnv: fs.String("token-env", "", "with --url: the environment variable holding a bearer token"),
		asJSON:   fs.Bool("json", false, "print the whole MCP result as JSON"),
		timeout:  fs.Duration("timeout", time.Minute, "give up after this long"),
		last:     &lastResponse{base: http.DefaultTransport},
	}
}

// connect returns an initialized client, and a func that closes it and
// whatever it started. With --url, closing ends the MCP session the
// client opened (DELETE), and its error says when the gateway did not
// end it.
func (o oneCall) connect(ctx context.Context, stderr io.Writer) (*client.Client, func() error, error) {
	if *o.url != "" {
		tok := *o.token
		if *o.tokenEnv != "" {
			if tok = strings.TrimSpace(os.Getenv(*o.tokenEnv)); tok == "" {
				return nil, nil, &cliError{what: "--token-env " + *o.tokenEnv, why: "the variable is not set or empty"}
			}
		}
		st := &sessionTransport{base: o.last, token: tok}
		c, err := client.NewStreamableHttpClient(*o.url, transport.WithHTTPBasicClient(&http.Client{Transport: st}))
		if err != nil {
			return nil, nil, &cliError{what: "--url " + *o.url, why: cleanCause(err.Error())}
		}
		closeURL := func() error {
			_ = c.Close() // sends the DELETE when the gateway issued a session id
			return st.endError(*o.url)
		}
		if err := initialize(ctx, c); err != nil {
			_ = closeURL() // an initialize answered before a later failure left a session
			return nil, nil, urlError(*o.url, o.last, tok != "", err)
		}
		return c, closeURL, nil
	}
	path := *o.config
	if path == "" {
		path = defaultConfig()
	}
	cfg, err := loader.Load(path, os.Environ())
	if err != nil {
		return nil, nil, configError(err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	g, err := gateway.Open(ctx, cfg, gateway.Options{Logger: logger, Version: version, Revision: revision()})
	if err != nil {
		return nil, nil, configError(err)
	}
	closeAll := func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = g.Close(cctx)
	}
	srv := g.MCPServer()
	if *o.endpoint != "" {
		e := g.Endpoint(*o.endpoint)
		if e == nil {
			closeAll()
			return nil, nil, &cliError{what: "--endpoint " + *o.endpoint, why: "no such endpoint in " + cfg.File + " (endpoints[].name)"}
		}
		srv = e.MCPServer()
	}
	c, err := client.NewInProcessClient(srv)
	if err == nil {
		err = initialize(ctx, c)
	}
	if err != nil {
		closeAll()
		return nil, nil, &cliError{what: "start the in-process gateway", why: err.Error()}
	}
	return c, func() error { c.Close(); closeAll(); return nil }, nil
}

// sessionTransport is the HTTP transport of --url: it sends the bearer
// token on every request, the DELETE that ends the session included
// (mcp-go's WithHTTPHeaders leaves that one without it, so a gateway with
// authentication refused it and kept the session for its
// session_idle_timeout), and records how the DELETE was answered.
type sessionTransport struct {
	base  http.RoundTripper
	token string

	mu      sync.Mutex
	deleted bool  // a DELETE was sent
	status  int   // its answer's status
	err     error // or why it got none
}

func (s *sessionTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if s.token != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	resp, err := s.base.RoundTrip(req)
	if req.Method == http.MethodDelete {
		s.mu.Lock()
		s.deleted, s.err = true, err
		if err == nil {
			s.status = resp.StatusCode
		}
		s.mu.Unlock()
	}
	return resp, err
}

// endError says why the session at url was not ended, or nil: no DELETE
// was needed (no session id was issued), or the gateway answered it with
// a success, 404 (the session is gone already) or 405 (the server does
// not let clients end sessions).
func (s *sessionTransport) endError(url string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	why := ""
	switch {
	case !s.deleted:
		return nil
	case s.err != nil:
		why = cleanCause(s.err.Error())
	case s.status < 300, s.status == http.StatusNotFound, s.status == http.StatusMethodNotAllowed:
		return nil
	default:
		why = fmt.Sprintf("DELETE answered HTTP %d", s.status)
	}
	return &cliError{what: "the MCP session at " + url + " was not ended",
		why: why + "; it stays open until the gateway's transports.http.session_idle_timeout"}
}

func initialize(ctx context.Context, c *client.Client) error {
	if err := c.Start(ctx); err != nil {
		return err
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "wasmgate-call", Version: version}
	_, err := c.Initialize(ctx, req)
	return err
}

// runOne parses the flags of a call-like command, connects, runs do and
// prints its result; do reports whether the result is an error.
func runOne(name, argsUsage, summary string, nargs [2]int, args []string, stdout, stderr io.Writer,
	do func(ctx context.Context, c *client.Client, args []string, asJSON bool, out io.Writer) (bool, error)) int {
	fs := newFlagSet(name, argsUsage, summary, stderr)
	o := oneCallFlags(fs)
	if err := fs.Parse(args); err != nil {
		return flagCode(err)
	}
	if fs.NArg() < nargs[0] || fs.NArg() > nargs[1] {
		fs.Usage()
		return 2
	}
	// Ctrl-C or SIGTERM cancels the call, and the session still ends
	// (closeAll runs on every path once connected).
	sigCtx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(sigCtx, *o.timeout)
	defer cancel()
	c, closeAll, err := o.connect(ctx, stderr)
	if err != nil {
		printCmdErr(stderr, name, err)
		return 1
	}
	defer func() {
		stop() // a second Ctrl-C while the session ends stops the process
		if err := closeAll(); err != nil {
			fmt.Fprintf(stderr, "wasmgate %s: warning: %v\n", name, err)
		}
	}()
	isErr, err := do(ctx, c, fs.Args(), *o.asJSON, stdout)
	if err != nil {
		var ce *cliError
		if sigCtx.Err() != nil {
			err = &cliError{what: "interrupted", why: "the request was cancelled"}
		} else if *o.url != "" && !errors.As(err, &ce) {
			if status, _ := o.last.get(); status == http.StatusUnauthorized || status == http.StatusForbidden {
				err = urlError(*o.url, o.last, *o.token != "" || *o.tokenEnv != "", err)
			}
		}
		printCmdErr(stderr, name, err)
		return 1
	}
	if isErr {
		return 1
	}
	return 0
}

func callCmd(args []string, stdout, stderr io.Writer) int {
	return runOne("call", "TOOL ['JSON arguments']",
		"Call one tool and print its result (its text, or the whole result with --json).\nExit 0, or 1 when the result is an error (isError) or the call fails.",
		[2]int{1, 2}, args, stdout, stderr,
		func(ctx context.Context, c *client.Client, args []string, asJSON bool, out io.Writer) (bool, error) {
			req := mcp.CallToolRequest{}
			req.Params.Name = args[0]
			if len(args) == 2 {
				var a map[string]any
				if err := json.Unmarshal([]byte(args[1]), &a); err != nil {
					return false, &cliError{what: "arguments of " + args[0], why: "not a JSON object: " + err.Error()}
				}
				req.Params.Arguments = a
			}
			res, err := c.CallTool(ctx, req)
			if err != nil {
				return false, callError(ctx, c, "tool", args[0], err)
			}
			if asJSON {
				return res.IsError, printJSON(out, res)
			}
			for _, item := range res.Content {
				if t, ok := mcp.AsTextContent(item); ok {
					fmt.Fprintln(out, t.Text)
				} else {
					b, _ := json.Marshal(item)
					fmt.Fprintln(out, string(b))
				}
			}
			return res.IsError, nil
		})
}

func readCmd(args []string, stdout, stderr io.Writer) int {
	return runOne("read", "URI", "Read one resource and print its text (or the whole result with --json).",
		[2]int{1, 1}, args, stdout, stderr,
		func(ctx context.Context, c *client.Client, args []string, asJSON bool, out io.Writer) (bool, error) {
			req := mcp.ReadResourceRequest{}
			req.Params.URI = args[0]
			res, err := c.ReadResource(ctx, req)
			if err != nil {
				return false, callError(ctx, c, "resource", args[0], err)
			}
			if asJSON {
				return false, printJSON(out, res)
			}
			for _, item := range res.Contents {
				switch v := item.(type) {
				case mcp.TextResourceContents:
					fmt.Fprintln(out, v.Text)
				case mcp.BlobResourceContents:
					fmt.Fprintln(out, v.Blob)
				}
			}
			return false, nil
		})
}

func promptCmd(args []string, stdout, stderr io.Writer) int {
	return runOne("prompt", "NAME ['JSON arguments']", "Get one prompt and print its messages (role: text), or the whole result with --json.",
		[2]int{1, 2}, args, stdout, stderr,
		func(ctx context.Context, c *client.Client, args []string, asJSON bool, out io.Writer) (bool, error) {
			req := mcp.GetPromptRequest{}
			req.Params.Name = args[0]
			if len(args) == 2 {
				var a map[string]string
				if err := json.Unmarshal([]byte(args[1]), &a); err != nil {
					return false, &cliError{what: "arguments of " + args[0], why: "not a JSON object of strings: " + err.Error()}
				}
				req.Params.Arguments = a
			}
			res, err := c.GetPrompt(ctx, req)
			if err != nil {
				return false, callError(ctx, c, "prompt", args[0], err)
			}
			if asJSON {
				return false, printJSON(out, res)
			}
			for _, m := range res.Messages {
				if t, ok := mcp.AsTextContent(m.Content); ok {
					fmt.Fprintf(out, "%s: %s\n", m.Role, t.Text)
				}
			}
			return false, nil
		})
}

// callError words a failed tools/call, resources/read or prompts/get: a
// name the gateway does not list is unknown, with the names it has.
func callError(ctx context.Context, c *client.Client, kind, name string, err error) error {
	what := fmt.Sprintf("%s %s", kind, name)
	msg := err.Error()
	if errors.Is(err, mcp.ErrResourceNotFound) && strings.Contains(msg, "handler not found") {
		if have, lerr := listResources(ctx, c); lerr == nil {
			return unknownName(kind, name, have)
		}
	}
	if kind != "resource" && strings.Contains(msg, "not found") {
		if have, lerr := listNames(ctx, c, kind); lerr == nil && !slices.Contains(have, name) {
			return unknownName(kind, name, have)
		}
	}
	return &cliError{what: what, why: cleanCause(msg)}
}

// listNames lists the gateway's tools or prompts.
func listNames(ctx context.Context, c *client.Client, kind string) ([]string, error) {
	var names []string
	if kind == "tool" {
		res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			return nil, err
		}
		for _, t := range res.Tools {
			names = append(names, t.Name)
		}
		return names, nil
	}
	res, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		return nil, err
	}
	for _, p := range res.Prompts {
		names = append(names, p.Name)
	}
	return names, nil
}

// listResources lists the URIs of the gateway's resources and the
// templates of its resource templates.
func listResources(ctx context.Context, c *client.Client) ([]string, error) {
	var names []string
	res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		return nil, err
	}
	for _, r := range res.Resources {
		names = append(names, r.URI)
	}
	tpl, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		return nil, err
	}
	for _, t := range tpl.ResourceTemplates {
		if t.URITemplate != nil {
			names = append(names, t.URITemplate.Raw())
		}
	}
	return names, nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
