// Command wasmgate serves WebAssembly plugins, declared in gateway.yaml, as
// an MCP server over stdio and Streamable HTTP.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/wasmgate/wasmgate/gateway/tracing"
	"github.com/wasmgate/wasmgate/internal/gcfloor"
	"github.com/wasmgate/wasmgate/internal/procs"

	"github.com/wasmgate/wasmgate/internal/childproc"

	extism "github.com/extism/go-sdk"
	"github.com/redis/go-redis/v9"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/gateway"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/state"
)

// gcHeapFloor is the heap the collector may reach before it runs, unless
// GOGC is set (package gcfloor).
const gcHeapFloor = 32 << 20

// procsHold is how long HTTP requests must come one at a time before the
// gateway runs on one P, unless GOMAXPROCS is set (package procs).
const procsHold = time.Second

// version and commit are set at build time:
// -ldflags "-X main.version=v1.2.3 -X main.commit=<sha>" (make build and
// make dist do). Without commit, the VCS revision Go recorded is used.
var (
	version = "dev"
	commit  = ""
)

const usage = `wasmgate serves WebAssembly plugins as an MCP server.

Usage:
  wasmgate serve    [--config PATH] [--stdio]   run the gateway
  wasmgate validate [--config PATH]             check a config and its plugins
  wasmgate call     [--config PATH | --url URL] TOOL ['JSON']
                                                call one tool and print the result
  wasmgate read     [--config PATH | --url URL] URI    read one resource
  wasmgate prompt   [--config PATH | --url URL] NAME ['JSON']
                                                get one prompt
  wasmgate lock     [--config PATH] [--check | --yes]
                                                approve what the sources publish: shows
                                                what differs, asks, writes server.lock_file
                                                (docs/trust.md)
  wasmgate credentials list|revoke [--upstream U] [--principal P | --all]
                                                each user's grants to upstreams (over
                                                the admin listener)
  wasmgate flows reset (--session ID | --principal NAME)
                                                forget what a session touched (flow
                                                control, over the admin listener)
  wasmgate import   [--merge gateway.yaml] FILE...
                                                translate Claude Desktop, VS Code, Cursor or
                                                registry server.json configs into upstreams:
  wasmgate plugin new NAME                      create a Go plugin project
  wasmgate version                              print the version and commit

The config path defaults to $WASMGATE_CONFIG, else ./gateway.yaml.
Run 'wasmgate <command> --help' for a command's flags.
`

func main() {
	childproc.Main() // the sandbox re-exec of an upstream server's command never returns
	// Non-dumpable, as OpenSSH: its /proc/<pid>/environ (tokens, secrets)
	// and memory are no other same-user process's to read.
	if err := childproc.Protect(); err != nil {
		fmt.Fprintln(os.Stderr, "wasmgate:", err)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdin, stdout, stderr)
	case "validate":
		return validate(args[1:], stdout, stderr)
	case "call":
		return callCmd(args[1:], stdout, stderr)
	case "read":
		return readCmd(args[1:], stdout, stderr)
	case "prompt":
		return promptCmd(args[1:], stdout, stderr)
	case "plugin":
		return pluginCmd(args[1:], stdout, stderr)
	case "lock":
		return lockCmd(args[1:], stdin, stdout, stderr)
	case "credentials":
		return credentialsCmd(args[1:], stdout, stderr)
	case "flows":
		return flowsCmd(args[1:], stdout, stderr)
	case "import":
		return importCmd(args[1:], stdin, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "wasmgate %s (%s)\n", version, revision())
		return 0
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "wasmgate: unknown command %q\n\n%s", args[0], usage)
	return 2
}

func defaultConfig() string {
	if p := os.Getenv(loader.EnvConfigPath); p != "" {
		return p
	}
	return "gateway.yaml"
}

// newFlags is a command's flag set with --config. The config path is
// resolved by parse: the flag's zero default keeps -help from printing a
// second default after the one the usage line states.
func newFlags(name, summary string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("wasmgate "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := fs.String("config", "", "path of gateway.yaml (default $WASMGATE_CONFIG, else ./gateway.yaml)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: wasmgate %s [flags]\n\n%s\n\nFlags:\n", name, summary)
		fs.PrintDefaults()
	}
	return fs, cfg
}

func parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2, false
	}
	if f := fs.Lookup("config"); f != nil && f.Value.String() == "" {
		_ = f.Value.Set(defaultConfig())
	}
	return 0, true
}

func serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, cfgPath := newFlags("serve", "Run the gateway until SIGINT or SIGTERM (or, with --stdio, until stdin closes).\nLogs go to stderr; stdout belongs to the stdio transport.", stderr)
	stdio := fs.Bool("stdio", false, "serve MCP on stdin/stdout; HTTP and admin then run only if the config sets their enabled: true")
	logFormat := fs.String("log-format", "", "override server.log.format: text or json")
	readyFile := fs.String("ready-file", "", "once ready, write a JSON document saying where the gateway listens (pid, mcp, admin, stdio) to this `path`; removed on exit")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	// Read the config once, here, so the logger can take its format; Run
	// serves this Config and reads the file again only to reload.
	cfg, cfgErr := loader.Load(*cfgPath, os.Environ())
	if *logFormat == "" && cfgErr == nil {
		*logFormat = cfg.Server.Log.Format
	}
	level := new(slog.LevelVar)
	logger := newLogger(stderr, level, *logFormat)
	otel.SetErrorHandler(tracing.ErrorHandler(logger))
	if cfgErr != nil {
		logger.Error("wasmgate failed", "error", cfgErr)
		return 1
	}
	extism.SetLogLevel(extism.LogLevelInfo)
	redis.SetLogger(state.RedisLog{L: logger})
	if _, set := os.LookupEnv("GOGC"); !set {
		// Fewer collections while the heap is small (docs/operations.md);
		// an operator's GOGC is kept as given.
		defer gcfloor.Start(gcHeapFloor)()
	}
	var gov *procs.Governor
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		// One P while HTTP requests come one at a time
		// (docs/operations.md); an operator's GOMAXPROCS is kept as given.
		gov = procs.New(procsHold)
		defer gov.Stop()
	}
	if *readyFile != "" {
		// A file left by a run that did not end cleanly must not pass for
		// this one's.
		if err := removeReadyFile(*readyFile); err != nil {
			logger.Error("wasmgate failed", "error", fmt.Errorf("--ready-file: %w", err))
			return 1
		}
		defer func() {
			if err := removeReadyFile(*readyFile); err != nil {
				logger.Warn("removing the ready file", "error", err)
			}
		}()
	}

	// All signal handling lives here. The first SIGINT/SIGTERM starts a
	// graceful shutdown. Handling stays installed until the process exits,
	// so a later signal (a client that closed stdin and then signals) does
	// not kill it mid-shutdown. SIGHUP asks for a reload.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	reload := make(chan struct{}, 1)
	var readyErr error // set by onReady, which Run calls on this goroutine
	var onReady func(map[string]string)
	if *readyFile != "" {
		onReady = func(listeners map[string]string) {
			if readyErr = writeReadyFile(*readyFile, newReadyDoc(listeners)); readyErr != nil {
				logger.Error("cannot write the ready file; shutting down", "error", readyErr)
				cancel()
			}
		}
	}
	go func() {
		for {
			select {
			case <-sigs:
				cancel()
				return
			case <-hup:
				select {
				case reload <- struct{}{}:
				default: // one is pending already
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	err := gateway.Run(ctx, gateway.RunOptions{
		ConfigPath: *cfgPath,
		Config:     cfg,
		Environ:    os.Environ(),
		Stdio:      *stdio,
		Stdin:      stdin,
		Stdout:     stdout,
		Logger:     logger,
		LogLevel:   level,
		Version:    version,
		Revision:   revision(),
		Reload:     reload,
		OnReady:    onReady,
		Procs:      gov,
	})
	if err != nil {
		logger.Error("wasmgate failed", "error", err)
		return 1
	}
	if readyErr != nil {
		return 1
	}
	return 0
}

// newLogger writes slog records to w as text, or as JSON for "json". In
// JSON, durations are numbers of seconds (a float), so that log queries
// can compare and sum them; text keeps Go's "1.5s" form for people.
func newLogger(w io.Writer, level *slog.LevelVar, format string) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		opts.ReplaceAttr = durationSeconds
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// durationSeconds turns a time.Duration (or a config.Duration) attribute
// into float seconds.
func durationSeconds(_ []string, a slog.Attr) slog.Attr {
	switch v := a.Value.Any().(type) {
	case time.Duration:
		return slog.Float64(a.Key, v.Seconds())
	case config.Duration:
		return slog.Float64(a.Key, time.Duration(v).Seconds())
	}
	return a
}

func validate(args []string, stdout, stderr io.Writer) int {
	fs, cfgPath := newFlags("validate", "Load the config, compile every plugin and check what they expose, without serving.\nExit 0 with a one-line summary, or non-zero with every error found.", stderr)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, err := loader.Load(*cfgPath, os.Environ())
	if err != nil {
		printCmdErr(stderr, "validate", configError(err))
		return 1
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	redis.SetLogger(state.RedisLog{L: logger})
	ctx := context.Background()
	g, err := gateway.Open(ctx, cfg, gateway.Options{Logger: logger, Version: version})
	if err != nil {
		printCmdErr(stderr, "validate", configError(err))
		return 1
	}
	s := g.Current()
	endpoints := g.EndpointReport()
	// The authorization servers of upstreams reached as each caller:
	// reached, and their metadata checked.
	identity := g.CheckIdentities(ctx)
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_ = g.Close(cctx)
	fmt.Fprintf(stdout, "%s: ok: %s; tools: %s\n", cfg.File, s.Summary(), strings.Join(s.ToolNames(), ", "))
	for _, line := range append(append(append(append(s.PluginReport(), s.UpstreamReport()...), s.SkillReport()...), endpoints...), s.FlowReport()...) {
		fmt.Fprintf(stdout, "  %s\n", line)
	}
	failed := false
	for _, line := range identity {
		fmt.Fprintf(stdout, "  %s\n", line)
		failed = failed || strings.HasPrefix(line, "error: ")
	}
	if failed {
		fmt.Fprintf(stderr, "wasmgate validate: %s: an authorization server does not serve what its upstream's auth needs (the error lines above)\n", cfg.File)
		return 1
	}
	return 0
}

func revision() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			return s.Value
		}
	}
	return "unknown"
}
