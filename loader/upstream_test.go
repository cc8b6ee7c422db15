package loader

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestUpstreamsConfig: defaults, the command's environment (env, env_from
// and PATH and HOME, nothing else of the gateway's), paths resolved
// against the config's folder, sandbox ports, curation keys.
func TestUpstreamsConfig(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"work", "ro", "out"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(cfg, []byte(`upstreams:
  - name: files
    command: [/bin/sh, -c, cat]
    env: {A: "1", HOME: /override}
    env_from: [KEEP]
    cwd: work
    sandbox: {read: [ro], write: [out], network: [443, 8080]}
    tools: {include: ["*"], exclude: ["delete_*"]}
    overrides:
      search: {name: find, description: Finds}
  - name: remote
    url: https://mcp.example.com/mcp
    auth: {bearer_file: token}
    session: per_client
    start: background
    prefix: rem
    limits: {timeout: 5s, concurrency: 2, max_tools: 50}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(cfg, []string{"PATH=/usr/bin:/bin", "HOME=/home/gw", "KEEP=kept", "SECRET=not-for-children"})
	if err != nil {
		t.Fatal(err)
	}
	f, r := c.Upstreams[0], c.Upstreams[1]
	if want := []string{"A=1", "HOME=/override", "KEEP=kept", "PATH=/usr/bin:/bin"}; !slices.Equal(f.ChildEnv, want) {
		t.Errorf("ChildEnv = %q, want %q", f.ChildEnv, want)
	}
	if f.Cwd != filepath.Join(dir, "work") || f.Sandbox.Read[0] != filepath.Join(dir, "ro") || !slices.Equal(f.Sandbox.Ports, []uint16{443, 8080}) || f.Sandbox.NetworkAll {
		t.Errorf("paths or sandbox: %+v %+v", f.Cwd, *f.Sandbox)
	}
	if f.Session != SessionShared || f.Start != StartEager || time.Duration(f.Limits.Timeout) != DefaultUpstreamTimeout || f.Limits.Concurrency != DefaultUpstreamConcurrency || f.Limits.MaxTools != DefaultUpstreamMaxTools {
		t.Errorf("defaults: %+v", f)
	}
	if f.Tools.Exclude[0] != "delete_*" || f.Overrides["search"].Name != "find" {
		t.Errorf("curation: %+v", f.Curation)
	}
	if r.Auth.BearerFile != filepath.Join(dir, "token") || r.Session != SessionPerClient || r.Start != StartBackground || r.Limits.Concurrency != 2 || r.Limits.MaxTools != 50 || len(r.ChildEnv) != 0 {
		t.Errorf("remote: %+v", r)
	}
	if !slices.Contains(c.WatchFiles(), r.Auth.BearerFile) {
		t.Errorf("the bearer file is not watched: %v", c.WatchFiles())
	}
}
