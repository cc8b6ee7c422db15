package main

// The official TypeScript SDK (@modelcontextprotocol/sdk, run by Node from
// tests/node/client.mjs) lists and calls tools over Streamable HTTP and
// stdio: interoperability with a client this project did not write.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// nodeResult is the one JSON line client.mjs prints.
type nodeResult struct {
	Tools []string `json:"tools"`
	Add   nodeCall `json:"add"`
	Div   nodeCall `json:"divzero"`
}

type nodeCall struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

func (c nodeCall) text() string {
	var parts []string
	for _, x := range c.Content {
		if x.Type == "text" {
			parts = append(parts, x.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// nodeClient returns the node binary and client.mjs, failing (not
// skipping: CI installs them) when they are not there.
func nodeClient(t *testing.T) (node, script string) {
	t.Helper()
	node = harness.Node(t)
	script = filepath.Join(harness.RepoRoot(), "tests", "node", "client.mjs")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("%s is missing: %v", script, err)
	}
	harness.NodeModule(t, "@modelcontextprotocol/sdk", "package.json")
	return node, script
}

func runNodeClient(t *testing.T, node string, args ...string) nodeResult {
	t.Helper()
	var r nodeResult
	if stderr := runNodeJSON(t, &r, node, args...); strings.Contains(stderr, "client.mjs: warning:") {
		t.Logf("client.mjs warnings:\n%s", stderr)
	}
	return r
}

// runNodeJSON runs node with args (one of tests/node's scripts, which
// print one JSON line), within 60 s, decodes its line into out and
// returns what it wrote to stderr. A failed run, any other output, or a
// data race reported on its stderr (in stdio mode the gateway's stderr
// is node's) fails t.
func runNodeJSON(t *testing.T, out any, node string, args ...string) (stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = harness.CleanEnv()
	var stdout, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &errs
	if err := cmd.Run(); err != nil {
		t.Fatalf("node %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), errs.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("node %s printed %d lines, want 1:\n%s\nstderr:\n%s", strings.Join(args, " "), len(lines), stdout.String(), errs.String())
	}
	if err := json.Unmarshal([]byte(lines[0]), out); err != nil {
		t.Fatalf("node %s printed %q: %v\nstderr:\n%s", strings.Join(args, " "), lines[0], err, errs.String())
	}
	if strings.Contains(errs.String(), "WARNING: DATA RACE") {
		t.Errorf("the race detector found a data race in wasmgate:\n%s", errs.String())
	}
	return errs.String()
}

func checkNodeResult(t *testing.T, r nodeResult) {
	t.Helper()
	for _, want := range []string{"calculate", "say_hello", "set-storage"} {
		if !slices.Contains(r.Tools, want) {
			t.Errorf("tools %v do not include %s", r.Tools, want)
		}
	}
	if !slices.IsSorted(r.Tools) {
		t.Errorf("tools %v are not sorted as client.mjs promises", r.Tools)
	}
	if r.Add.IsError || r.Add.text() != "8" {
		t.Errorf("calculate add 5 3 = %+v, want text 8 without isError", r.Add)
	}
	if !r.Div.IsError || r.Div.text() != "Division by zero" {
		t.Errorf("calculate divide 1 0 = %+v, want isError with %q", r.Div, "Division by zero")
	}
}

func TestTypeScriptSDK(t *testing.T) {
	t.Parallel()
	node, script := nodeClient(t)
	cfg := harness.WriteConfig(t, bins.ExamplesYAML(t, ""))

	t.Run("http", func(t *testing.T) {
		g := bins.Start(t, harness.Options{Config: cfg})
		checkNodeResult(t, runNodeClient(t, node, script, "http", g.MCPURL))
	})
	t.Run("http with token", func(t *testing.T) {
		tcfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
			HTTP:    "    auth:\n      bearer_token_env: E2E_NODE_TOKEN\n",
			Plugins: harness.ExamplePlugins(t),
		}))
		g := bins.Start(t, harness.Options{Config: tcfg, Env: []string{"E2E_NODE_TOKEN=node-secret-123"}})
		checkNodeResult(t, runNodeClient(t, node, script, "http", g.MCPURL, "--token", "node-secret-123"))
	})
	t.Run("stdio", func(t *testing.T) {
		// Node spawns the gateway itself. The config listens on port 0 for
		// HTTP and admin, so the child collides with nothing.
		checkNodeResult(t, runNodeClient(t, node, script, "stdio", bins.Path, "serve", "--stdio", "--config", cfg))
	})
}
