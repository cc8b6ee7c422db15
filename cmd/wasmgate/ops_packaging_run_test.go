package main

// The installed unit's ExecStart, run as the unit runs it: as the
// wasmgate user the package created, with systemd's $CACHE_DIRECTORY; a
// tool called through it. (A container has no systemd to `systemctl
// start` it; this is what that start would run.)

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func testRunUnit(t *testing.T, unit string) {
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("no setpriv (util-linux) on this machine")
	}
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	var execStart []string
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "ExecStart="); ok {
			execStart = strings.Fields(v)
		}
	}
	if len(execStart) != 4 || execStart[1] != "serve" || execStart[2] != "--config" {
		t.Fatalf("ExecStart = %q, want BIN serve --config PATH", execStart)
	}
	// What CacheDirectory=wasmgate gives the service.
	cache := "/var/cache/wasmgate"
	if err := os.MkdirAll(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(cache) })
	if out, err := exec.Command("chown", "wasmgate:wasmgate", cache).CombinedOutput(); err != nil {
		t.Fatalf("chown %s: %v\n%s", cache, err, out)
	}
	wrapper := filepath.Join(t.TempDir(), "as-wasmgate")
	harness.WriteFile(t, wrapper, []byte("#!/bin/sh\nexec setpriv --reuid=wasmgate --regid=wasmgate --init-groups --reset-env -- /usr/bin/env "+
		"CACHE_DIRECTORY="+cache+" STATE_DIRECTORY=/var/lib/wasmgate "+
		// a drop-in's Environment=: ephemeral ports, beside other gateways
		"WASMGATE_TRANSPORTS__HTTP__LISTEN=127.0.0.1:0 WASMGATE_ADMIN__LISTEN=127.0.0.1:0 "+
		execStart[0]+" \"$@\"\n"))
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	// The ready file goes where the unit's StateDirectory= is: the
	// wasmgate user cannot write into the test's own folders.
	g := bins.Start(t, harness.Options{Binary: wrapper, Config: execStart[3], ReadyDir: "/var/lib/wasmgate"})
	if out, err := exec.Command("ps", "-o", "user=", "-p", strconv.Itoa(g.Cmd.Process.Pid)).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "wasmgate" {
		t.Errorf("the gateway runs as %q (%v), want wasmgate", out, err)
	}
	c := g.Client(t)
	ctx := harness.Ctx(t, 30*time.Second)
	if got, isErr := harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": "add", "a": 2, "b": 40}); isErr || got != "42" {
		t.Errorf("calculate through the installed gateway = %q (isError %v), want 42", got, isErr)
	}
	if err := g.Stop(t); err != nil {
		t.Errorf("stop: %v", err)
	}
	// The compiled modules went to the cache directory the unit names.
	if entries, _ := os.ReadDir(cache); len(entries) == 0 {
		t.Errorf("%s is empty: the gateway did not use $CACHE_DIRECTORY", cache)
	}
}
