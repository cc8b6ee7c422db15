package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/loader"
)

// TestConfig: the gateway.yaml of the start phase loads, with every
// upstream eager, prefixed and given the fixture's delay.
func TestConfig(t *testing.T) {
	dir := t.TempDir()
	o := options{fixture: "/bin/true", upstreams: 3, tools: 2, delay: 1500 * time.Millisecond}
	file := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(file, []byte(config(o, dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loader.Load(file, nil)
	if err != nil {
		t.Fatalf("the benchmark's config does not load: %v\n%s", err, config(o, dir))
	}
	if len(cfg.Upstreams) != 3 {
		t.Fatalf("%d upstreams, want 3", len(cfg.Upstreams))
	}
	for i, u := range cfg.Upstreams {
		if u.Start != loader.StartEager || u.Prefix != u.Name || !strings.Contains(strings.Join(u.ChildEnv, " "), "SLOWSTART_DELAY=1.5s") {
			t.Errorf("upstream %d: start %s, prefix %q (name %q), env %v", i, u.Start, u.Prefix, u.Name, u.ChildEnv)
		}
	}
}

// TestProc reads this process's resident memory and CPU time.
func TestProc(t *testing.T) {
	rss, err := rssKiB(os.Getpid())
	if err != nil || rss <= 0 {
		t.Fatalf("rssKiB = %d, %v", rss, err)
	}
	end := time.Now().Add(50 * time.Millisecond)
	for time.Now().Before(end) { // some CPU to count
	}
	ticks, err := cpuTicks(os.Getpid())
	if err != nil || ticks <= 0 {
		t.Fatalf("cpuTicks = %d, %v", ticks, err)
	}
}
