package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/wasmgate/wasmgate/gateway"
	"github.com/wasmgate/wasmgate/gateway/trust"
	"github.com/wasmgate/wasmgate/internal/netutil"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/lockfile"
)

// lockCmd is `wasmgate lock [--check]` (docs/trust.md): it asks the
// running gateway over the admin listener (GET or POST /-/lock) to
// compare what its sources publish now with server.lock_file and, unless
// --check, write it and reload. With no gateway answering there, it
// opens the config itself (plugins compiled, upstreams started; relay
// sites have no page then, so they keep what the lock holds for them).
// --check exits 1 when the lock and the sources differ.
func lockCmd(args []string, stdout, stderr io.Writer) int {
	fs, cfgPath := newFlags("lock", "Write server.lock_file (default gateway.lock beside gateway.yaml): what every source publishes now\nand the grants it has, as the operator approved them. With --check, show what differs and exit 1 if anything does.", stderr)
	check := fs.Bool("check", false, "only show what differs from the lock file; exit 1 if anything does")
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
	// Over the admin listener, the difference is shown first (GET), then
	// written naming the state shown (POST ?digest=): the gateway
	// refuses if the sources changed in between.
	res, err := lockOverAdmin(ctx, cfg, *adminURL, false, "")
	if err == nil {
		for _, l := range res.Diff {
			fmt.Fprintf(stdout, "  %s\n", l)
		}
		if !*check {
			res, err = lockOverAdmin(ctx, cfg, *adminURL, true, res.Digest)
		}
	} else if errors.Is(err, errNoGateway) {
		if res, err = lockInProcess(ctx, cfg, !*check, stderr); err == nil {
			for _, l := range res.Diff {
				fmt.Fprintf(stdout, "  %s\n", l)
			}
		}
	}
	if err != nil {
		printCmdErr(stderr, "lock", err)
		return 1
	}
	switch {
	case *check && len(res.Diff) > 0:
		fmt.Fprintf(stdout, "%s: %d differences from what the sources publish; review them, then run `wasmgate lock`\n", res.File, len(res.Diff))
		return 1
	case *check:
		fmt.Fprintf(stdout, "%s: up to date\n", res.File)
	case len(res.Diff) == 0:
		fmt.Fprintf(stdout, "%s: written, no changes\n", res.File)
	default:
		fmt.Fprintf(stdout, "%s: written, %d changes approved\n", res.File, len(res.Diff))
	}
	return 0
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

// lockInProcess opens cfg (nothing withheld, the lock unread) and locks
// what its sources publish.
func lockInProcess(ctx context.Context, cfg *loader.Config, write bool, stderr io.Writer) (gateway.LockResult, error) {
	res := gateway.LockResult{File: cfg.Trust.LockFile}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	g, err := gateway.Open(ctx, cfg, gateway.Options{Logger: logger, Version: version})
	if err != nil {
		return res, configError(err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = g.Close(cctx)
	}()
	old, _ := trust.ReadLock(res.File) // unreadable or garbage: replaced
	l, err := g.LockOf(old)
	if err != nil {
		return res, err
	}
	res.Diff = lockfile.Diff(old, l)
	if !write {
		return res, nil
	}
	data, err := l.Encode()
	if err != nil {
		return res, err
	}
	if err := os.WriteFile(res.File, data, 0o644); err != nil {
		return res, fmt.Errorf("write the lock file: %w", err)
	}
	res.Written = true
	return res, nil
}
