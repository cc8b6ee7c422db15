package main

// Issue 45, item 5: `wasmgate import` on the configs people already have
// (Claude Desktop, VS Code, Cursor, the registry's server.json examples):
// each imported into a gateway.yaml that `wasmgate validate` accepts, and
// real npm servers imported from a Claude Desktop and a VS Code config
// served by the built binary to a real client.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/config/importer"
	"github.com/wasmgate/wasmgate/internal/harness"
)

func runImport(t *testing.T, args ...string) harness.Result {
	t.Helper()
	return bins.Run(t, harness.RunOptions{Plain: true}, append([]string{"import"}, args...)...)
}

// importedEnv is a value for each variable the import's summary says the
// gateway's environment needs.
func importedEnv(stderr string) []string {
	var env []string
	for _, line := range strings.Split(stderr, "\n") {
		if _, vars, ok := strings.Cut(line, "set in the gateway's environment: "); ok {
			for _, v := range strings.Split(vars, ", ") {
				env = append(env, v+"=value-of-"+v)
			}
		}
	}
	return env
}

// importedUpstreams are the names of the upstreams of a gateway.yaml.
func importedUpstreams(t *testing.T, cfg string) []string {
	t.Helper()
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	taken, err := importer.TakenNames(data)
	if err != nil {
		t.Fatalf("%s: %v", cfg, err)
	}
	var names []string
	for name, where := range taken {
		if strings.HasPrefix(where, "upstreams[") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// TestImportValidates imports every config of config/importer/testdata
// into its own gateway.yaml (beside the calculator plugin, comments and
// all) with --start background, then runs `wasmgate validate` on it with
// the variables the import said to set. The programs npx, node and docker
// are the machine's; uvx, dnx and python, when not installed here, are
// stand-ins (true) so that the config's program lookup passes: validate
// checks the config, and a background upstream never holds up the load.
// The two server.json examples with nothing to import exit 1 and leave the
// file as it was.
func TestImportValidates(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(harness.RepoRoot(), "config", "importer", "testdata", "*", "*.json"))
	if err != nil || len(files) < 15 {
		t.Fatalf("testdata: %v, %d files", err, len(files))
	}
	standins := t.TempDir()
	truth, err := exec.LookPath("true")
	if err != nil {
		t.Fatal(err)
	}
	for _, prog := range []string{"uvx", "dnx", "python"} {
		if _, err := exec.LookPath(prog); err != nil {
			if err := os.Symlink(truth, filepath.Join(standins, prog)); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := "PATH=" + standins + string(os.PathListSeparator) + os.Getenv("PATH")
	calc := harness.Wasm(t, "examples/plugins/calculator")
	for _, f := range files {
		name := filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			cfg := harness.WriteConfig(t, "# the operator's own comment\n"+bins.YAML(harness.Parts{
				Plugins: "  - name: calculator # kept\n    path: " + calc + "\n",
			}))
			before, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := runImport(t, "--merge", cfg, "--start", "background", f)
			if base := filepath.Base(f); base == "embedded.json" || base == "mcpb.json" {
				after, _ := os.ReadFile(cfg)
				if r.Code != 1 || !strings.Contains(r.Stderr, "nothing imported") || !strings.Contains(r.Stderr, "not imported:") || !bytes.Equal(before, after) {
					t.Fatalf("import of a server.json with nothing to import: exit %d, file changed %v:\n%s", r.Code, !bytes.Equal(before, after), r.Stderr)
				}
				return
			}
			if r.Code != 0 {
				t.Fatalf("import exited %d:\n%s", r.Code, r.Stderr)
			}
			merged, _ := os.ReadFile(cfg)
			for _, keep := range []string{"# the operator's own comment", "# kept", "# imported by wasmgate import from"} {
				if !bytes.Contains(merged, []byte(keep)) {
					t.Errorf("the merged file lacks %q:\n%s", keep, merged)
				}
			}
			ups := importedUpstreams(t, cfg)
			if len(ups) == 0 {
				t.Fatalf("no upstream in the merged file:\n%s", merged)
			}
			v := runValidate(t, cfg, append(importedEnv(r.Stderr), path), nil)
			if v.Code != 0 {
				t.Fatalf("validate exited %d on the imported config:\n%s\n%s\nthe config:\n%s", v.Code, v.Stdout, v.Stderr, merged)
			}
			for _, u := range ups {
				if !strings.Contains(v.Stdout, `upstream "`+u+`"`) {
					t.Errorf("validate does not report upstream %q:\n%s", u, v.Stdout)
				}
			}
		})
	}
}

// TestImportServesNPMServers imports a Claude Desktop config (the
// filesystem server, as the MCP quickstart writes it: npx -y and a
// folder), a VS Code mcp.json (server-everything, with a token asked for
// by a password input) and a registry server.json (the filesystem server
// again, pinned) in one run, merges them into a gateway.yaml and
// serves it: npx finds both packages in tests/node (the gateway runs
// there), and a client lists and calls their tools. The token reaches the
// server from the gateway's environment (env_from), never through the
// file.
func TestImportServesNPMServers(t *testing.T) {
	t.Parallel()
	shared := t.TempDir()
	if err := os.WriteFile(filepath.Join(shared, "hello.txt"), []byte("hello from an imported config"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude_desktop_config.json")
	mustJSON(t, claude, map[string]any{"mcpServers": map[string]any{
		"filesystem": map[string]any{"command": "npx", "args": []string{"-y", "@modelcontextprotocol/server-filesystem", shared}},
	}})
	vscode := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(vscode, []byte(`{
  // the token is asked for once and kept by VS Code
  "inputs": [{"type": "promptString", "id": "everything-token", "description": "Token", "password": true}],
  "servers": {
    "everything": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-everything"],
      "env": {"EVERYTHING_TOKEN": "${input:everything-token}"},
    },
  },
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The registry's filesystem example (generic-server-json.md), at the
	// version tests/node installs, its folder argument defaulting to the
	// shared folder. Its name is taken by the Claude Desktop server, so it
	// is imported as filesystem-2.
	var pkg struct{ Dependencies map[string]string }
	data, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "tests", "node", "package.json"))
	if err != nil || json.Unmarshal(data, &pkg) != nil || pkg.Dependencies["@modelcontextprotocol/server-filesystem"] == "" {
		t.Fatalf("tests/node/package.json: %v", err)
	}
	serverJSON := filepath.Join(dir, "server.json")
	mustJSON(t, serverJSON, map[string]any{
		"$schema": "https://static.modelcontextprotocol.io/schemas/2025-10-17/server.schema.json",
		"name":    "io.github.modelcontextprotocol/filesystem",
		"version": pkg.Dependencies["@modelcontextprotocol/server-filesystem"],
		"packages": []any{map[string]any{
			"registryType": "npm",
			"identifier":   "@modelcontextprotocol/server-filesystem",
			"version":      pkg.Dependencies["@modelcontextprotocol/server-filesystem"],
			"transport":    map[string]any{"type": "stdio"},
			"packageArguments": []any{map[string]any{
				"type": "positional", "valueHint": "target_dir", "description": "Path to access",
				"default": shared, "isRequired": true, "isRepeated": true,
			}},
			"environmentVariables": []any{map[string]any{"name": "LOG_LEVEL", "description": "Logging level (debug, info, warn, error)", "default": "info"}},
		}},
	})
	cfg := harness.WriteConfig(t, upstreamYAML(t, ""))
	r := runImport(t, "--merge", cfg, claude, vscode, serverJSON)
	if r.Code != 0 {
		t.Fatalf("import exited %d:\n%s", r.Code, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "set in the gateway's environment: EVERYTHING_TOKEN") {
		t.Errorf("the summary does not name the variable to set:\n%s", r.Stderr)
	}
	merged, _ := os.ReadFile(cfg)
	if !bytes.Contains(merged, []byte("- EVERYTHING_TOKEN")) || !bytes.Contains(merged, []byte("# suggested sandbox")) {
		t.Errorf("the merged file lacks env_from EVERYTHING_TOKEN or the sandbox suggestion:\n%s", merged)
	}
	const token = "imported-token-4711"
	g := bins.Start(t, harness.Options{Config: cfg, Dir: filepath.Join(harness.RepoRoot(), "tests", "node"), Env: []string{"EVERYTHING_TOKEN=" + token}})
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t)
	tools := toolNames(ctx, t, c)
	for _, want := range []string{"calculate", "filesystem_read_text_file", "everything_echo", "everything_get-env", "filesystem-2_read_text_file"} {
		if !slices.Contains(tools, want) {
			t.Errorf("tools/list lacks %s: %v", want, tools)
		}
	}
	if text, isErr := harness.CallTool(ctx, t, c, "filesystem_read_text_file", map[string]any{"path": filepath.Join(shared, "hello.txt")}); isErr || text != "hello from an imported config" {
		t.Errorf("filesystem_read_text_file = %q (isError %v)", text, isErr)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "filesystem-2_read_text_file", map[string]any{"path": filepath.Join(shared, "hello.txt")}); isErr || text != "hello from an imported config" {
		t.Errorf("filesystem-2_read_text_file (from the server.json) = %q (isError %v)", text, isErr)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "everything_echo", map[string]any{"message": "through the gateway"}); isErr || !strings.Contains(text, "through the gateway") {
		t.Errorf("everything_echo = %q (isError %v)", text, isErr)
	}
	if text, isErr := harness.CallTool(ctx, t, c, "everything_get-env", nil); isErr || !strings.Contains(text, token) {
		t.Errorf("everything_get-env does not show EVERYTHING_TOKEN from the gateway's environment: %.500q (isError %v)", text, isErr)
	}
	if bytes.Contains(merged, []byte(token)) {
		t.Errorf("the token is in gateway.yaml")
	}
}

func mustJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestImportRefusals: bad input is a clear error (exit 1 or 2, naming the
// file and what is wrong) and --merge leaves the gateway.yaml as it was,
// with no temporary file beside it.
func TestImportRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude_desktop_config.json")
	mustJSON(t, claude, map[string]any{"mcpServers": map[string]any{
		"github": map[string]any{"command": "npx", "args": []string{"-y", "@modelcontextprotocol/server-github"}, "env": map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_16C7e42F292c6912E7710c838347Ae178B4a"}},
	}})
	bad := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(bad, []byte("{\"servers\": {\n  \"a\": {\"command\": \"x\"\n  \"b\": 1}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	gw := filepath.Join(dir, "gateway.yaml")
	const mine = "# mine\nupstreams:\n  - name: github # the team's\n    url: https://gh.example.com/mcp\n"
	if err := os.WriteFile(gw, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{bad}, 1, bad + ": not JSON: line 3"},
		{[]string{"--merge", gw, bad}, 1, "not JSON"},
		{[]string{"--merge", gw, claude}, 1, `--merge ` + gw + `: upstreams[0] already names "github": rename it there, or pass --replace`},
		{[]string{"--format", "yaml", claude}, 2, `unknown format "yaml"`},
		{[]string{"--merge", filepath.Join(dir, "missing.yaml"), claude}, 1, "to start a new file, redirect the output"},
		{nil, 2, "name at least one FILE"},
	} {
		r := runImport(t, tc.args...)
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.want) {
			t.Errorf("import %q: exit %d, stderr:\n%s\nwant exit %d and %q", tc.args, r.Code, r.Stderr, tc.code, tc.want)
		}
		if strings.Contains(r.Stdout+r.Stderr, "ghp_16C7e42F") {
			t.Errorf("import %q printed the token", tc.args)
		}
		if data, _ := os.ReadFile(gw); string(data) != mine {
			t.Fatalf("import %q changed gateway.yaml:\n%s", tc.args, data)
		}
	}
	// --replace replaces the upstream, keeps the file's mode and leaves no
	// temporary file.
	r := runImport(t, "--merge", gw, "--replace", claude)
	if r.Code != 0 {
		t.Fatalf("import --replace: exit %d:\n%s", r.Code, r.Stderr)
	}
	data, _ := os.ReadFile(gw)
	if !strings.HasPrefix(string(data), "# mine\n") || strings.Contains(string(data), "gh.example.com") || !strings.Contains(string(data), "- GITHUB_PERSONAL_ACCESS_TOKEN") || strings.Contains(string(data), "ghp_") {
		t.Errorf("after --replace:\n%s", data)
	}
	if st, err := os.Stat(gw); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("gateway.yaml mode after the merge: %v, %v; want 0600", st.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("files beside gateway.yaml after the merge: %v", entries)
	}
}
