package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/wasmgate/wasmgate/gateway"
	"github.com/wasmgate/wasmgate/gateway/trust"
	"github.com/wasmgate/wasmgate/internal/netutil"
	"github.com/wasmgate/wasmgate/internal/plural"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/lockfile"
)

// lockCmd is `wasmgate lock [--check] [--yes]` (docs/trust.md): it asks
// the running gateway over the admin listener (GET /-/lock) to compare
// what its sources publish now with server.lock_file, prints what
// differs and the digest of the lock it would write, and, unless
// --check, asks on the terminal before it writes (POST /-/lock naming
// that digest: the gateway writes it and reloads). --yes writes without
// asking; with stdin not a terminal and no --yes it writes nothing. With
// no gateway answering there, it opens the config itself (plugins
// compiled, upstreams started; relay sites have no page then, so they
// keep what the lock holds for them). --check exits 1 when the lock and
// the sources differ.
func lockCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, cfgPath := newFlags("lock", "Write server.lock_file (default gateway.lock beside gateway.yaml): what every source publishes now\nand the grants it has, as the operator approved them. It prints what differs from the lock file,\nthen asks before it writes; --yes writes without asking. With --check, show what differs and exit 1\nif anything does.", stderr)
	check := fs.Bool("check", false, "only show what differs from the lock file; exit 1 if anything does")
	yes := fs.Bool("yes", false, "write without asking (scripts; stdin not a terminal)")
	adminURL := fs.String("admin", "", "the running gateway's admin listener, e.g. http://127.0.0.1:9090 (default: from admin.listen)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, err := loader.LoadUnlocked(*cfgPath, os.Environ())
	if err != nil {
		printCmdErr(stderr, "lock", configError(err))
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// What differs is shown first; the write names the state shown
	// (over the admin listener POST ?digest=: the gateway refuses if the
	// sources changed in between).
	var write func() (gateway.LockResult, error)
	res, err := lockOverAdmin(ctx, cfg, *adminURL, false, "")
	if err == nil {
		shown := res.Digest
		write = func() (gateway.LockResult, error) { return lockOverAdmin(ctx, cfg, *adminURL, true, shown) }
	} else if errors.Is(err, errNoGateway) {
		var data []byte
		if res, data, err = lockInProcess(ctx, cfg, stderr); err == nil {
			shown := res
			write = func() (gateway.LockResult, error) {
				if err := os.WriteFile(shown.File, data, 0o644); err != nil {
					return shown, fmt.Errorf("write the lock file: %w", err)
				}
				shown.Written = true
				return shown, nil
			}
		}
	}
	if err != nil {
		printCmdErr(stderr, "lock", err)
		return 1
	}
	for _, l := range res.Diff {
		fmt.Fprintf(stdout, "  %s\n", l)
	}
	switch {
	case *check && len(res.Diff) > 0:
		fmt.Fprintf(stdout, "%s: %d differences from what the sources publish; review them, then run `wasmgate lock`\n", res.File, len(res.Diff))
		return 1
	case *check:
		fmt.Fprintf(stdout, "%s: up to date\n", res.File)
		return 0
	case len(res.Diff) == 0 && fileExists(res.File):
		fmt.Fprintf(stdout, "%s: up to date, nothing to approve\n", res.File)
		return 0
	}
	fmt.Fprintf(stdout, "%s: %s to approve (sha256 %s)\n", res.File, plural.N(len(res.Diff), "change"), res.Digest)
	if !*yes {
		ok, err := confirm(stdin, stdout, fmt.Sprintf("write %s? [y/N] ", filepath.Base(res.File)))
		if err != nil {
			printCmdErr(stderr, "lock", fmt.Errorf("%s not written: %w", res.File, err))
			return 1
		}
		if !ok {
			fmt.Fprintf(stdout, "%s: not written\n", res.File)
			return 1
		}
	}
	approved := len(res.Diff)
	if res, err = write(); err != nil {
		printCmdErr(stderr, "lock", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: written, %s approved\n", res.File, plural.N(approved, "change"))
	return 0
}

// errNotTerminal: `wasmgate lock` has nobody to ask.
var errNotTerminal = errors.New("stdin is not a terminal to ask on; pass --yes to write without asking (--check only compares)")

// confirm asks question on out and reads the answer from in, a
// terminal: true for y or yes. Anything else, or the end of the input,
// is no.
func confirm(in io.Reader, out io.Writer, question string) (bool, error) {
	f, ok := in.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return false, errNotTerminal
	}
	fmt.Fprint(out, question)
	answer, err := bufio.NewReader(in).ReadString('\n')
	if errors.Is(err, io.EOF) {
		fmt.Fprintln(out) // Ctrl-D: end the question's line
	} else if err != nil {
		return false, fmt.Errorf("read the answer: %w", err)
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// errNoGateway: nothing listens on admin.listen.
var errNoGateway = errors.New("no gateway on the admin listener")

// lockOverAdmin asks the gateway on cfg's admin listener; a write names
// the digest of the state shown ("": whatever is published then).
func lockOverAdmin(ctx context.Context, cfg *loader.Config, base string, write bool, digest string) (gateway.LockResult, error) {
	var res gateway.LockResult
	if base == "" {
		if !cfg.Admin.On() {
			return res, errNoGateway
		}
		host, port, err := net.SplitHostPort(cfg.Admin.Listen)
		if err != nil || port == "0" {
			return res, errNoGateway
		}
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "127.0.0.1"
		}
		base = "http://" + net.JoinHostPort(host, port)
	}
	method := http.MethodGet
	if write {
		method = http.MethodPost
	}
	url := strings.TrimSuffix(base, "/") + "/-/lock"
	if digest != "" {
		url += "?digest=" + digest
	}
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return res, err
	}
	if write {
		// POST /-/lock changes state: the admin listener wants the
		// header its outbound clients never send (or the token below).
		req.Header.Set(netutil.AdminHeader, "1")
	}
	if cfg.Admin.Auth.Set() {
		tok, err := cfg.Admin.Auth.Ref("admin.auth").Read(cfg.File, nil)
		if err != nil {
			return res, err
		}
		req.Header.Set("Authorization", "Bearer "+tok.Value())
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return res, errNoGateway
		}
		return res, fmt.Errorf("ask the gateway at %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, lockfile.MaxSize))
	if err != nil {
		return res, fmt.Errorf("read the answer of %s: %w", url, err)
	}
	if resp.StatusCode == http.StatusNotFound {
		return res, fmt.Errorf("the gateway at %s does not know /-/lock (an older wasmgate?): %s", url, strings.TrimSpace(string(body)))
	}
	if resp.StatusCode == http.StatusConflict { // the sources changed after they were shown
		return res, errors.New(strings.TrimSpace(string(body)))
	}
	if resp.StatusCode != http.StatusOK {
		return res, fmt.Errorf("the gateway at %s: %s", url, strings.TrimSpace(string(body)))
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return res, fmt.Errorf("the gateway at %s answered: %w", url, err)
	}
	return res, nil
}

// lockInProcess opens cfg (nothing withheld, the lock unread) and
// returns what differs between the lock file and what its sources
// publish, and the lock file to write; it writes nothing.
func lockInProcess(ctx context.Context, cfg *loader.Config, stderr io.Writer) (gateway.LockResult, []byte, error) {
	res := gateway.LockResult{File: cfg.Trust.LockFile}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	g, err := gateway.Open(ctx, cfg, gateway.Options{Logger: logger, Version: version})
	if err != nil {
		return res, nil, configError(err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = g.Close(cctx)
	}()
	old, _ := trust.ReadLock(res.File) // unreadable or garbage: replaced
	l, err := g.LockOf(old)
	if err != nil {
		return res, nil, err
	}
	res.Diff = lockfile.Diff(old, l)
	data, err := l.Encode()
	if err != nil {
		return res, nil, fmt.Errorf("encode the lock file: %w", err)
	}
	res.Digest = lockfile.Digest(data)
	return res, data, nil
}
