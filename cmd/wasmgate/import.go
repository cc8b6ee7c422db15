package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wasmgate/wasmgate/config/importer"
	"github.com/wasmgate/wasmgate/internal/atomicfile"
	"github.com/wasmgate/wasmgate/loader"
)

const importSummary = `Translate the MCP servers of other clients' configs into upstreams: entries
(docs/upstreams.md). FILE is a Claude Desktop claude_desktop_config.json, a
VS Code or Cursor mcp.json (or a VS Code settings.json with "mcp"), or an MCP
registry server.json; "-" reads stdin. The format is found from the content
unless --format names it.

Without --merge, the upstreams: YAML goes to stdout. With --merge, the
servers are added to that gateway.yaml's upstreams (its comments kept), and
the file is replaced atomically. Secrets are never copied: they become
env_from or auth.bearer_env, with a comment naming the variable to set.
Each local command gets a suggested sandbox, commented out; whatever has no
equivalent is a "# not imported:" comment, also listed on stderr.`

// importCmd is `wasmgate import [--merge gateway.yaml] [--replace]
// [--format F] FILE...`.
func importCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wasmgate import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	merge := fs.String("merge", "", "add the servers to this gateway.yaml's upstreams instead of printing them")
	replace := fs.Bool("replace", false, "with --merge: replace an upstream of the same name instead of refusing")
	start := fs.String("start", "", "the imported upstreams' start: eager (the default: started at load) background (a server that downloads its package at start, as npx and uvx do, does not hold up the load) or lazy (started at its first call, stopped when idle)")
	formatName := fs.String("format", string(importer.FormatAuto), "the files' format: auto, claude, vscode, cursor or server.json")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: wasmgate import [--merge gateway.yaml] [--replace] [--start eager|background|lazy] [--format auto|claude|vscode|cursor|server.json] FILE...\n\n%s\n\nFlags:\n", importSummary)
		fs.PrintDefaults()
	}
	// Flags may come before or after the files.
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "wasmgate import: name at least one FILE to import")
		fs.Usage()
		return 2
	}
	format, err := importer.ParseFormat(*formatName)
	if err != nil {
		printCmdErr(stderr, "import", fmt.Errorf("--format: %w", err))
		return 2
	}
	if *start != "" && *start != loader.StartEager && *start != loader.StartBackground && *start != loader.StartLazy {
		printCmdErr(stderr, "import", fmt.Errorf("--start %q: use %s, %s or %s", *start, loader.StartEager, loader.StartBackground, loader.StartLazy))
		return 2
	}
	if *replace && *merge == "" {
		printCmdErr(stderr, "import", errors.New("--replace is for --merge"))
		return 2
	}
	home, _ := os.UserHomeDir()
	var results []*importer.Result
	for _, f := range files {
		data, err := readImportFile(f, stdin)
		if err != nil {
			printCmdErr(stderr, "import", err)
			return 1
		}
		r, err := importer.Parse(displayName(f), data, format, importer.Options{Home: home})
		if err != nil {
			printCmdErr(stderr, "import", err)
			return 1
		}
		results = append(results, r)
	}
	importer.AssignNames(results, nil)
	n := 0
	for _, r := range results {
		n += len(r.Servers)
		for _, s := range r.Servers {
			if *start == loader.StartBackground || *start == loader.StartLazy {
				s.Start = *start
			}
		}
	}
	if *merge == "" {
		if n > 0 {
			if err := importer.Render(stdout, results); err != nil {
				printCmdErr(stderr, "import", err)
				return 1
			}
		}
	} else if n > 0 {
		if err := mergeInto(*merge, results, *replace); err != nil {
			printCmdErr(stderr, "import", err)
			return 1
		}
	}
	printImportSummary(stderr, results, *merge)
	if n == 0 {
		printCmdErr(stderr, "import", errors.New("nothing imported: every server was left out (the lines above say why)"))
		return 1
	}
	return 0
}

func displayName(f string) string {
	if f == "-" {
		return "stdin"
	}
	return f
}

// readImportFile reads one FILE ("-" is stdin), at most importer.MaxInput.
func readImportFile(f string, stdin io.Reader) ([]byte, error) {
	var r io.Reader = stdin
	if f != "-" {
		fh, err := os.Open(f)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f, unwrapPath(err))
		}
		defer fh.Close()
		if st, err := fh.Stat(); err == nil && st.IsDir() {
			return nil, fmt.Errorf("read %s: a folder, not a file", f)
		}
		r = fh
	}
	data, err := io.ReadAll(io.LimitReader(r, importer.MaxInput+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", displayName(f), unwrapPath(err))
	}
	return data, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// mergeInto adds the results to the upstreams of the gateway.yaml at path
// and replaces it atomically (a temporary file in its folder, renamed
// over it, its mode kept). On any error the file is as it was.
func mergeInto(path string, results []*importer.Result, replace bool) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("--merge %s: %w (to start a new file, redirect the output: wasmgate import FILE > gateway.yaml)", path, unwrapPath(err))
	}
	src, err := os.ReadFile(real)
	if err != nil {
		return fmt.Errorf("--merge %s: %w", path, unwrapPath(err))
	}
	st, err := os.Stat(real)
	if err != nil {
		return fmt.Errorf("--merge %s: %w", path, unwrapPath(err))
	}
	out, err := importer.Merge(src, results, replace)
	if err != nil {
		return fmt.Errorf("--merge %s: %w", path, err)
	}
	if err := atomicfile.Write(real, out, st.Mode().Perm()); err != nil {
		return fmt.Errorf("--merge %s: write: %w", path, unwrapPath(err))
	}
	return nil
}

// printImportSummary says on stderr what was imported from each file, what
// was not, and which variables the gateway's environment needs.
func printImportSummary(w io.Writer, results []*importer.Result, merge string) {
	var vars []string
	for _, r := range results {
		var names []string
		for _, s := range r.Servers {
			names = append(names, s.Name)
			for _, e := range s.Env {
				if e.FromEnv && !slices.Contains(vars, e.Name) {
					vars = append(vars, e.Name)
				}
			}
			if s.BearerEnv != "" && !slices.Contains(vars, s.BearerEnv) {
				vars = append(vars, s.BearerEnv)
			}
		}
		into := ""
		if merge != "" {
			into = " into " + merge
		}
		fmt.Fprintf(w, "wasmgate import: %s (%s): %d imported%s", r.File, r.Format, len(r.Servers), into)
		if len(names) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(names, ", "))
		}
		fmt.Fprintln(w)
		for _, s := range r.Servers {
			for _, ni := range s.NotImported {
				fmt.Fprintf(w, "  not imported: %s: %s\n", s.Name, ni)
			}
		}
		for _, sk := range r.Skipped {
			fmt.Fprintf(w, "  not imported: %s\n", sk)
		}
	}
	if len(vars) > 0 {
		fmt.Fprintf(w, "  set in the gateway's environment: %s\n", strings.Join(vars, ", "))
	}
}
