package main

// Stdio that just works: `serve --stdio` serves stdio alone unless the
// config explicitly enables HTTP or admin, so a second copy (another IDE,
// or a gateway already serving HTTP on the default ports) still answers;
// a listener that cannot bind next to stdio is a warning. The README's
// client snippets run as written.

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// defaultConfig is the shipped configs/gateway.yaml.
func defaultConfigPath() string { return filepath.Join(harness.RepoRoot(), "configs", "gateway.yaml") }

// cacheEnv points a gateway serving the default config at the shared
// compilation cache (an override, so the file stays as shipped).
func cacheEnv() []string { return []string{"WASMGATE_SERVER__CACHE_DIR=" + bins.CacheDir} }

func free(addrs ...string) bool {
	for _, a := range addrs {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			return false
		}
		ln.Close()
	}
	return true
}

func TestTwoGatewaysDefaultConfig(t *testing.T) {
	t.Parallel()
	ctx := harness.Ctx(t, 2*time.Minute)
	if free("127.0.0.1:8080", "127.0.0.1:9090") {
		h := bins.Start(t, harness.Options{Config: defaultConfigPath(), Env: cacheEnv()})
		if h.MCPURL != "http://127.0.0.1:8080/mcp" || h.AdminURL != "http://127.0.0.1:9090" {
			t.Fatalf("the HTTP gateway serves %q and %q, want the default ports", h.MCPURL, h.AdminURL)
		}
		harness.CalcTool(ctx, t, h.Client(t), "calculate", 1, 2)
	} else {
		t.Log("127.0.0.1:8080 or :9090 is taken already: the stdio gateway must serve beside whatever holds it")
	}
	if free("127.0.0.1:8080") && free("127.0.0.1:9090") {
		t.Fatal("the default ports are free although a gateway serves them")
	}

	s := bins.Start(t, harness.Options{Config: defaultConfigPath(), Env: cacheEnv(), Stdio: true})
	if s.MCPURL != "" || s.AdminURL != "" {
		t.Errorf("serve --stdio with the default config opened listeners: %q %q", s.MCPURL, s.AdminURL)
	}
	c := s.StdioClient(t)
	harness.WaitTools(ctx, t, c, 10*time.Second, "calculate", "say_hello", "set-storage")
	harness.CalcTool(ctx, t, c, "calculate", 20, 22)
	if strings.Contains(s.Stderr(), "level=WARN") || strings.Contains(s.Stderr(), "level=ERROR") {
		t.Errorf("serve --stdio with the default config warned:\n%s", s.Stderr())
	}
}

// TestStdioListenerBusyIsAWarning: explicitly enabled listeners whose
// ports are taken do not stop stdio.
func TestStdioListenerBusyIsAWarning(t *testing.T) {
	t.Parallel()
	hold := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		return ln.Addr().String()
	}
	httpAddr, adminAddr := hold(), hold()
	cfg := harness.WriteConfig(t, "server: {cache_dir: "+harness.Q(bins.CacheDir)+"}\n"+
		"transports: {http: {enabled: true, listen: "+httpAddr+"}}\n"+
		"admin: {enabled: true, listen: "+adminAddr+"}\n"+
		"plugins:\n"+harness.ExamplePlugins(t))
	g := bins.Start(t, harness.Options{Config: cfg, Stdio: true})
	for _, want := range []string{"serving stdio without the MCP HTTP listener", "serving stdio without the admin listener", "address already in use"} {
		if !strings.Contains(g.Stderr(), want) {
			t.Errorf("no %q in the log:\n%s", want, g.Stderr())
		}
	}
	ctx := harness.Ctx(t, time.Minute)
	harness.CalcTool(ctx, t, g.StdioClient(t), "calculate", 1, 1)

	// Without stdio the same config fails to start, naming the key.
	r := bins.Run(t, harness.RunOptions{}, "serve", "--config", cfg)
	if r.Code == 0 || !strings.Contains(r.Stderr, "address already in use") {
		t.Errorf("serve without --stdio on a taken port: exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestStdioEnvEnablesListeners: the environment override counts as
// explicit.
func TestStdioEnvEnablesListeners(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, "server: {cache_dir: "+harness.Q(bins.CacheDir)+"}\n"+
		"transports: {http: {listen: 127.0.0.1:0}}\nadmin: {listen: 127.0.0.1:0}\n"+
		"plugins:\n"+harness.ExamplePlugins(t))
	g := bins.Start(t, harness.Options{Config: cfg, Stdio: true, Env: []string{"WASMGATE_TRANSPORTS__HTTP__ENABLED=true"}})
	if g.MCPURL == "" || g.AdminURL != "" {
		t.Errorf("with WASMGATE_TRANSPORTS__HTTP__ENABLED=true: HTTP %q (want one), admin %q (want none)", g.MCPURL, g.AdminURL)
	}
}

// readmeSection returns the first fenced code block after the heading
// that starts with heading in README.md.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(harness.RepoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, "\n"+heading)
	if i < 0 {
		t.Fatalf("README.md has no heading %q", heading)
	}
	m := regexp.MustCompile("(?s)```[a-z]*\n(.*?)```").FindStringSubmatch(s[i:])
	if m == nil {
		t.Fatalf("README.md: no code block after %q", heading)
	}
	return m[1]
}

// TestREADMEClientSnippets runs the command line each README snippet
// gives a client, with the installed paths it names replaced by the
// binary under test and the repository's default config, and talks to it
// as that client would: an MCP client over the process's stdio.
func TestREADMEClientSnippets(t *testing.T) {
	t.Parallel()
	const (
		installedBin    = "/usr/local/bin/wasmgate"
		installedConfig = "/etc/wasmgate/gateway.yaml"
	)
	type server struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	snippets := map[string]func(t *testing.T) server{
		"Claude Desktop": func(t *testing.T) server {
			var c struct {
				MCPServers map[string]server `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(readmeSection(t, "#### Claude Desktop")), &c); err != nil {
				t.Fatal(err)
			}
			return c.MCPServers["wasmgate"]
		},
		"Cursor": func(t *testing.T) server {
			var c struct {
				MCPServers map[string]server `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(readmeSection(t, "#### Cursor")), &c); err != nil {
				t.Fatal(err)
			}
			return c.MCPServers["wasmgate"]
		},
		"VS Code": func(t *testing.T) server {
			var c struct {
				Servers map[string]server `json:"servers"`
			}
			if err := json.Unmarshal([]byte(readmeSection(t, "#### VS Code")), &c); err != nil {
				t.Fatal(err)
			}
			s := c.Servers["wasmgate"]
			if s.Type != "stdio" {
				t.Errorf("VS Code server type %q, want stdio", s.Type)
			}
			return s
		},
		"MCP Inspector": func(t *testing.T) server {
			block := readmeSection(t, "#### MCP Inspector")
			var line string
			for _, l := range strings.Split(block, "\n") {
				if strings.HasPrefix(l, "npx ") {
					line = l
					break
				}
			}
			f := strings.Fields(line)
			// The Inspector parses options of its own (--config among them)
			// up to "--"; what follows is the server's command line.
			if len(f) < 5 || f[1] != "@modelcontextprotocol/inspector" || f[2] != "--" {
				t.Fatalf("MCP Inspector snippet %q: want npx @modelcontextprotocol/inspector -- COMMAND ARGS...", line)
			}
			return server{Command: f[3], Args: f[4:]}
		},
	}
	for name, get := range snippets {
		t.Run(name, func(t *testing.T) {
			s := get(t)
			if s.Command != installedBin {
				t.Fatalf("command %q, want %s", s.Command, installedBin)
			}
			args := append([]string(nil), s.Args...)
			for i, a := range args {
				if a == installedConfig {
					args[i] = defaultConfigPath()
				}
			}
			if strings.Join(args, " ") != "serve --stdio --config "+defaultConfigPath() {
				t.Fatalf("args %q", s.Args)
			}
			env := append(harness.CleanEnv(), cacheEnv()...)
			for k, v := range s.Env {
				env = append(env, k+"="+v)
			}
			tr := transport.NewStdio(bins.Path, env, args...)
			c := client.NewClient(tr)
			harness.Init(t, c, harness.ProtoSessions)
			ctx := harness.Ctx(t, time.Minute)
			harness.CalcTool(ctx, t, c, "calculate", 3, 4)
		})
	}
}
