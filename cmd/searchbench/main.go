// Command searchbench measures tool search (issue 41, docs/endpoints.md
// "Large catalogs") over a real gateway, for make bench-search
// (scripts/bench-search.sh). It has four modes:
//
//	searchbench -serve-synthetic 10000 [-seed 1]
//	    serve, over stdin and stdout, an MCP server (mcp-go) with the
//	    synthetic catalog of gateway/search (search.Synthetic): every
//	    tool answers "ok NAME" to any arguments
//	searchbench -serve-catalog FILE -source NAME
//	    serve, over stdin and stdout, the tools one source of FILE (the
//	    shape of gateway/search/testdata/catalog.json) lists, as listed
//	    there; every tool answers "ok NAME"
//	searchbench -url URL -tool NAME [-queries 500] [-calls 1000] [-rounds 3]
//	    drive one mcp-go client (Streamable HTTP, one session) against
//	    URL: in each round, find_tools with the next of a fixed set of
//	    varied queries (search.SyntheticQueries), the tool NAME called by
//	    its own name, and the same through call_tool (-phases: which of
//	    the three), -calls of each after -warmup, the order rotating each
//	    round; prints one JSON line per phase with the medians over the
//	    rounds of p50 and p99
//	searchbench -url URL -list-bytes
//	    print, as JSON, the bytes of the result of URL's tools/list
//	    (every page, summed) and the tools it lists
//
// and -catalog-bytes FILE, which prints the bytes of FILE's tools as one
// tools/list result would hold them ({"tools":[...]}, in-process). Only
// loopback URLs are driven.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "searchbench:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

// options is the command line.
type options struct {
	serveSynthetic int
	seed           uint64
	serveCatalog   string
	source         string
	catalogBytes   string
	url            string
	listBytes      bool
	tool           string
	queries        int
	querySeed      uint64
	calls          int
	warmup         int
	rounds         int
	timeout        time.Duration
	phases         string
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var o options
	fs := flag.NewFlagSet("searchbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.serveSynthetic, "serve-synthetic", 0, "serve this many synthetic tools over stdio")
	fs.Uint64Var(&o.seed, "seed", 1, "with -serve-synthetic: the catalog's seed")
	fs.StringVar(&o.serveCatalog, "serve-catalog", "", "serve one source of this catalog file over stdio (with -source)")
	fs.StringVar(&o.source, "source", "", "with -serve-catalog: the source whose tools to serve")
	fs.StringVar(&o.catalogBytes, "catalog-bytes", "", "print the bytes of this catalog file's tools as one tools/list result")
	fs.StringVar(&o.url, "url", "", "the gateway endpoint to drive (Streamable HTTP, loopback only)")
	fs.BoolVar(&o.listBytes, "list-bytes", false, "with -url: print the bytes of its tools/list result")
	fs.StringVar(&o.tool, "tool", "", "with -url: the small tool to call for comparison")
	fs.IntVar(&o.queries, "queries", 500, "how many distinct find_tools queries")
	fs.Uint64Var(&o.querySeed, "query-seed", 2, "the queries' seed (search.SyntheticQueries)")
	fs.IntVar(&o.calls, "calls", 1000, "measured calls per phase and round")
	fs.IntVar(&o.warmup, "warmup", 200, "unmeasured calls per phase and round, first")
	fs.IntVar(&o.rounds, "rounds", 3, "rounds; the phases' order rotates each round")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Second, "how long one call may take")
	fs.StringVar(&o.phases, "phases", "find_tools,tools/call,call_tool", "with -url: the phases to run, of find_tools, tools/call and call_tool")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	switch {
	case o.serveSynthetic > 0:
		return serveStdio(ctx, syntheticServer(o.serveSynthetic, o.seed), stdin, stdout)
	case o.serveCatalog != "":
		if o.source == "" {
			return fmt.Errorf("-serve-catalog needs -source: %w", errUsage)
		}
		s, err := catalogServer(o.serveCatalog, o.source)
		if err != nil {
			return err
		}
		return serveStdio(ctx, s, stdin, stdout)
	case o.catalogBytes != "":
		return printCatalogBytes(o.catalogBytes, stdout)
	case o.url != "":
		if err := checkLoopback(o.url); err != nil {
			return err
		}
		if o.listBytes {
			return printListBytes(ctx, o.url, stdout)
		}
		if o.tool == "" || o.calls < 1 || o.rounds < 1 || o.queries < 1 || o.warmup < 0 {
			return fmt.Errorf("-url needs -tool, and -calls, -rounds and -queries at least 1: %w", errUsage)
		}
		return drive(ctx, o, stdout, stderr)
	}
	fs.Usage()
	return errUsage
}
