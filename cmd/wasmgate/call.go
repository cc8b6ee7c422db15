package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
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
	config, url, tokenEnv *string
	asJSON                *bool
	timeout               *time.Duration
}

func oneCallFlags(fs *flag.FlagSet) oneCall {
	return oneCall{
		config:   fs.String("config", "", "serve this gateway.yaml in-process for the call (default $WASMGATE_CONFIG, else ./gateway.yaml)"),
		url:      fs.String("url", "", "call a running gateway's Streamable HTTP endpoint instead, e.g. http://127.0.0.1:8080/mcp"),
		tokenEnv: fs.String("token-env", "", "with --url: the environment variable holding a bearer token"),
		asJSON:   fs.Bool("json", false, "print the whole MCP result as JSON"),
		timeout:  fs.Duration("timeout", time.Minute, "give up after this long"),
	}
}

// connect returns an initialized client, and a func that closes it and
// whatever it started.
func (o oneCall) connect(ctx context.Context, stderr io.Writer) (*client.Client, func(), error) {
	if *o.url != "" {
		var opts []transport.StreamableHTTPCOption
		if *o.tokenEnv != "" {
			tok := strings.TrimSpace(os.Getenv(*o.tokenEnv))
			if tok == "" {
				return nil, nil, fmt.Errorf("--token-env: %s is not set or empty", *o.tokenEnv)
			}
			opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tok}))
		}
		c, err := client.NewStreamableHttpClient(*o.url, opts...)
		if err != nil {
			return nil, nil, err
		}
		if err := initialize(ctx, c); err != nil {
			c.Close()
			return nil, nil, fmt.Errorf("%s: %w", *o.url, err)
		}
		return c, func() { c.Close() }, nil
	}
	path := *o.config
	if path == "" {
		path = defaultConfig()
	}
	cfg, err := loader.Load(path, os.Environ())
	if err != nil {
		return nil, nil, err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	g, err := gateway.Open(ctx, cfg, gateway.Options{Logger: logger, Version: version, Revision: revision()})
	if err != nil {
		return nil, nil, err
	}
	closeAll := func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = g.Close(cctx)
	}
	c, err := client.NewInProcessClient(g.MCPServer())
	if err == nil {
		err = initialize(ctx, c)
	}
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return c, func() { c.Close(); closeAll() }, nil
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
	ctx, cancel := context.WithTimeout(context.Background(), *o.timeout)
	defer cancel()
	c, closeAll, err := o.connect(ctx, stderr)
	if err != nil {
		printErr(stderr, err)
		return 1
	}
	defer closeAll()
	isErr, err := do(ctx, c, fs.Args(), *o.asJSON, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "wasmgate %s: %v\n", name, err)
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
					return false, fmt.Errorf("arguments are not a JSON object: %w", err)
				}
				req.Params.Arguments = a
			}
			res, err := c.CallTool(ctx, req)
			if err != nil {
				return false, err
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
				return false, err
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
					return false, fmt.Errorf("arguments are not a JSON object of strings: %w", err)
				}
				req.Params.Arguments = a
			}
			res, err := c.GetPrompt(ctx, req)
			if err != nil {
				return false, err
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

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
