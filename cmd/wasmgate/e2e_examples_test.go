package main

// The three example plugins served over every transport and protocol
// revision, with mcp-go's client; storage shared across sessions and
// transports; many concurrent calls over many sessions.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// The input schemas the example plugins declare (examples/plugins/*/main.go).
// The gateway must publish them as the plugins wrote them.
var exampleSchemas = map[string]string{
	"calculate":   `{"type":"object","properties":{"operation":{"type":"string","enum":["add","subtract","multiply","divide"]},"a":{"type":"number"},"b":{"type":"number"}},"required":["operation","a","b"]}`,
	"set-storage": `{"type":"object","properties":{"key":{"type":"string","description":"String identifier for the stored value"},"value":{"type":"string","description":"String value to store"}},"required":["key","value"]}`,
	"say_hello":   `{"type":"object","properties":{"name":{"type":"string","description":"Who to greet"}},"required":["name"]}`,
}

// exampleServerName is server.name in the examples config: what the
// gateway must announce as serverInfo.name.
const exampleServerName = "e2e-gateway"

// exampleGreeting is the greeter plugin's config value "greeting".
const exampleGreeting = "Ahoy"

func examplesServeConfig(t *testing.T) string {
	return harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server: "  name: " + exampleServerName + "\n",
		Plugins: fmt.Sprintf(`  - name: calculator
    path: %s
  - name: storage
    path: %s
  - name: greeter
    path: %s
    config:
      greeting: %s
`, harness.Wasm(t, "examples/plugins/calculator"), harness.Wasm(t, "examples/plugins/storage"), harness.Wasm(t, "examples/plugins/greeter"), exampleGreeting),
	}))
}

// TestExamples runs every example tool, resource and prompt, with each
// error case, over Streamable HTTP and stdio, each with both protocol
// revisions mcp-go speaks.
func TestExamples(t *testing.T) {
	t.Parallel()
	cfg := examplesServeConfig(t)
	g := bins.Start(t, harness.Options{Config: cfg, Stdio: true})
	g2 := bins.Start(t, harness.Options{Config: cfg, Stdio: true}) // a second stdin for the other revision

	type conn struct {
		name    string
		version string
		connect func(t *testing.T) (*client.Client, *mcp.InitializeResult)
	}
	conns := []conn{
		{"http/" + harness.ProtoSessions, harness.ProtoSessions, func(t *testing.T) (*client.Client, *mcp.InitializeResult) {
			return harness.HTTPClient(t, g.MCPURL, harness.ProtoSessions)
		}},
		{"http/" + harness.ProtoStateless, harness.ProtoStateless, func(t *testing.T) (*client.Client, *mcp.InitializeResult) {
			return harness.HTTPClient(t, g.MCPURL, harness.ProtoStateless)
		}},
		{"stdio/" + harness.ProtoSessions, harness.ProtoSessions, func(t *testing.T) (*client.Client, *mcp.InitializeResult) {
			return g.StdioClientVersion(t, harness.ProtoSessions)
		}},
		{"stdio/" + harness.ProtoStateless, harness.ProtoStateless, func(t *testing.T) (*client.Client, *mcp.InitializeResult) {
			return g2.StdioClientVersion(t, harness.ProtoStateless)
		}},
	}
	for _, cn := range conns {
		t.Run(cn.name, func(t *testing.T) {
			c, init := cn.connect(t)
			ctx := harness.Ctx(t, 60*time.Second)
			checkInitialize(t, init, cn.version)
			t.Run("tools/list", func(t *testing.T) { checkExampleTools(ctx, t, c) })
			t.Run("calculate", func(t *testing.T) { checkCalculator(ctx, t, c) })
			t.Run("storage", func(t *testing.T) { checkStorage(ctx, t, c, cn.name) })
			t.Run("greeter", func(t *testing.T) { checkGreeter(ctx, t, c) })
			t.Run("unknown names", func(t *testing.T) { checkUnknownNames(ctx, t, c) })
		})
	}
}

func checkInitialize(t *testing.T, init *mcp.InitializeResult, version string) {
	t.Helper()
	if init.ProtocolVersion != version {
		t.Errorf("protocolVersion %q, want %q", init.ProtocolVersion, version)
	}
	if init.ServerInfo.Version != testVersion {
		t.Errorf("serverInfo.version %q, want the binary's version %q", init.ServerInfo.Version, testVersion)
	}
	if init.ServerInfo.Name != exampleServerName {
		t.Errorf("serverInfo.name %q, want %q (server.name in gateway.yaml)", init.ServerInfo.Name, exampleServerName)
	}
	caps := init.Capabilities
	if caps.Tools == nil || !caps.Tools.ListChanged {
		t.Errorf("capabilities.tools = %+v, want listChanged", caps.Tools)
	}
	if caps.Resources == nil || !caps.Resources.ListChanged || !caps.Resources.Subscribe {
		t.Errorf("capabilities.resources = %+v, want listChanged and subscribe", caps.Resources)
	}
	if caps.Prompts == nil || !caps.Prompts.ListChanged {
		t.Errorf("capabilities.prompts = %+v, want listChanged", caps.Prompts)
	}
	if caps.Logging == nil || caps.Completions == nil {
		t.Errorf("capabilities logging %+v, completions %+v: want both", caps.Logging, caps.Completions)
	}
}

func checkExampleTools(ctx context.Context, t *testing.T, c *client.Client) {
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		want, ok := exampleSchemas[tool.Name]
		if !ok {
			continue
		}
		if tool.Description == "" {
			t.Errorf("tool %s has no description", tool.Name)
		}
		checkSchema(t, tool, want)
	}
	slices.Sort(names)
	if want := []string{"calculate", "say_hello", "set-storage"}; !slices.Equal(names, want) {
		t.Errorf("tools/list names %v, want %v", names, want)
	}
}

// checkSchema compares a listed tool's inputSchema with the JSON the plugin
// declared: type, every property's definition, and the required set.
func checkSchema(t *testing.T, tool mcp.Tool, declared string) {
	t.Helper()
	var want struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal([]byte(declared), &want); err != nil {
		t.Fatal(err)
	}
	// Round-trip what the client decoded through JSON, as a client would.
	b, err := json.Marshal(tool.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	slices.Sort(want.Required)
	slices.Sort(got.Required)
	if got.Type != want.Type || !reflect.DeepEqual(got.Properties, want.Properties) || !slices.Equal(got.Required, want.Required) {
		t.Errorf("tool %s inputSchema\n got  %s\n want %s", tool.Name, b, declared)
	}
}

// namesField reports whether msg names field as a word of its own (a, 'a',
// "a", a:) rather than as part of another word.
func namesField(msg, field string) bool {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(field) + `($|[^A-Za-z0-9_-])`).MatchString(msg)
}

func checkCalculator(ctx context.Context, t *testing.T, c *client.Client) {
	ok := []struct {
		op   string
		a, b any
		want string // as JavaScript's String(n) writes the result
	}{
		{"add", 5, 3, "8"},
		{"divide", 10, 2, "5"},
		{"add", 0.1, 0.2, "0.30000000000000004"},
		{"subtract", 10, 4, "6"},
		{"subtract", 3, 10, "-7"},
		{"multiply", 2.5, 4, "10"},
		{"multiply", 123456789, 1000, "123456789000"}, // not 1.23456789e+11
		{"divide", 7, 2, "3.5"},
		{"multiply", 1e11, 1e10, "1e+21"},
	}
	for _, tc := range ok {
		text, isErr := harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": tc.op, "a": tc.a, "b": tc.b})
		if isErr || text != tc.want {
			t.Errorf("calculate %s %v %v = %q (isError %v), want %q", tc.op, tc.a, tc.b, text, isErr, tc.want)
		}
	}

	text, isErr := harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": "divide", "a": 10, "b": 0})
	if !isErr || text != "Division by zero" {
		t.Errorf("divide 10 0 = %q (isError %v), want isError with %q", text, isErr, "Division by zero")
	}

	bad := []struct {
		what  string
		args  map[string]any
		field string // the message must name it
	}{
		{"unknown operation", map[string]any{"operation": "modulo", "a": 1, "b": 2}, "operation"},
		{"non-numeric a", map[string]any{"operation": "add", "a": "five", "b": 2}, "a"},
		{"non-numeric b", map[string]any{"operation": "add", "a": 1, "b": true}, "b"},
		{"missing a", map[string]any{"operation": "add", "b": 2}, "a"},
		{"missing b", map[string]any{"operation": "add", "a": 1}, "b"},
		{"missing operation", map[string]any{"a": 1, "b": 2}, "operation"},
	}
	for _, tc := range bad {
		text, isErr := harness.CallTool(ctx, t, c, "calculate", tc.args)
		if !isErr {
			t.Errorf("%s: calculate %v = %q without isError", tc.what, tc.args, text)
			continue
		}
		if !namesField(text, tc.field) {
			t.Errorf("%s: message %q does not name %q", tc.what, text, tc.field)
		}
	}
}

func checkStorage(ctx context.Context, t *testing.T, c *client.Client, conn string) {
	key := fmt.Sprintf("k-%s-%d", strings.NewReplacer("/", "-", ".", "-").Replace(conn), rand.Int64())
	value := "vålue with spaces, ünïcode and \"quotes\" " + strconv.Itoa(rand.Int())
	text, isErr := harness.CallTool(ctx, t, c, "set-storage", map[string]any{"key": key, "value": value})
	if isErr || text != "Stored value at key: "+key {
		t.Errorf("set-storage = %q (isError %v), want %q", text, isErr, "Stored value at key: "+key)
	}
	uri := "storage://" + key
	contents := harness.ReadResource(ctx, t, c, uri)
	if len(contents) != 1 {
		t.Fatalf("resources/read %s: %d contents, want 1", uri, len(contents))
	}
	tc, ok := mcp.AsTextResourceContents(contents[0])
	if !ok {
		t.Fatalf("resources/read %s: %T, want text", uri, contents[0])
	}
	if tc.URI != uri || tc.Text != value {
		t.Errorf("resources/read %s = {uri %q, text %q}, want {uri %q, text %q}", uri, tc.URI, tc.Text, uri, value)
	}

	// Overwrite, then read the new value.
	harness.CallTool(ctx, t, c, "set-storage", map[string]any{"key": key, "value": "second"})
	if got := harness.ReadText(ctx, t, c, uri); got != "second" {
		t.Errorf("after overwrite, %s = %q, want %q", uri, got, "second")
	}
	// An empty value is a value, not a missing key.
	harness.CallTool(ctx, t, c, "set-storage", map[string]any{"key": key, "value": ""})
	if got := harness.ReadText(ctx, t, c, uri); got != "" {
		t.Errorf("after storing \"\", %s = %q, want \"\"", uri, got)
	}

	missing := fmt.Sprintf("storage://never-set-%d", rand.Int64())
	if got := harness.ReadText(ctx, t, c, missing); got != "Key not found" {
		t.Errorf("resources/read %s = %q, want %q", missing, got, "Key not found")
	}

	text, isErr = harness.CallTool(ctx, t, c, "set-storage", map[string]any{"key": key})
	if !isErr || !namesField(text, "value") {
		t.Errorf("set-storage without value = %q (isError %v), want isError naming value", text, isErr)
	}
	text, isErr = harness.CallTool(ctx, t, c, "set-storage", map[string]any{"key": 42, "value": "x"})
	if !isErr || !namesField(text, "key") {
		t.Errorf("set-storage with a numeric key = %q (isError %v), want isError naming key", text, isErr)
	}

	if raws := harness.Templates(ctx, t, c); !slices.Equal(raws, []string{"storage://{key}"}) {
		t.Errorf("resources/templates/list = %v, want [storage://{key}]", raws)
	}
}

func checkGreeter(ctx context.Context, t *testing.T, c *client.Client) {
	text, isErr := harness.CallTool(ctx, t, c, "say_hello", map[string]any{"name": "Ada"})
	if want := exampleGreeting + ", Ada!"; isErr || text != want {
		t.Errorf("say_hello Ada = %q (isError %v), want %q (the greeting comes from the plugin's config)", text, isErr, want)
	}
	text, isErr = harness.CallTool(ctx, t, c, "say_hello", map[string]any{})
	if !isErr || !namesField(text, "name") {
		t.Errorf("say_hello {} = %q (isError %v), want isError naming name", text, isErr)
	}

	res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatalf("resources/list: %v", err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
		if r.URI == "greeter://about" && (r.Name != "about" || r.MIMEType != "text/plain") {
			t.Errorf("resource greeter://about listed as name %q mimeType %q, want about, text/plain", r.Name, r.MIMEType)
		}
	}
	if !slices.Equal(uris, []string{"greeter://about"}) {
		t.Errorf("resources/list = %v, want [greeter://about]", uris)
	}
	about := harness.ReadText(ctx, t, c, "greeter://about")
	if !strings.Contains(about, "greeter") || !strings.Contains(about, exampleGreeting) {
		t.Errorf("greeter://about = %q, want a description mentioning the configured greeting %q", about, exampleGreeting)
	}

	pl, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatalf("prompts/list: %v", err)
	}
	if len(pl.Prompts) != 1 || pl.Prompts[0].Name != "greeting_prompt" {
		t.Fatalf("prompts/list = %+v, want greeting_prompt only", pl.Prompts)
	}
	args := map[string]bool{}
	for _, a := range pl.Prompts[0].Arguments {
		args[a.Name] = a.Required
	}
	if !reflect.DeepEqual(args, map[string]bool{"name": true, "style": false}) {
		t.Errorf("greeting_prompt arguments (name: required) = %v, want name required, style optional", args)
	}

	p, err := harness.GetPrompt(ctx, c, "greeting_prompt", map[string]string{"name": "Grace"})
	if err != nil {
		t.Fatalf("prompts/get greeting_prompt {name}: %v", err)
	}
	got := harness.PromptText(t, p)
	// Without style the plugin writes a "friendly" greeting.
	for _, want := range []string{"Grace", "friendly", exampleGreeting} {
		if !strings.Contains(got, want) {
			t.Errorf("greeting_prompt {name: Grace} = %q, want it to contain %q", got, want)
		}
	}
	p, err = harness.GetPrompt(ctx, c, "greeting_prompt", map[string]string{"name": "Grace", "style": "pirate"})
	if err != nil {
		t.Fatalf("prompts/get greeting_prompt {name, style}: %v", err)
	}
	if got := harness.PromptText(t, p); !strings.Contains(got, "pirate") || !strings.Contains(got, "Grace") || strings.Contains(got, "friendly") {
		t.Errorf("greeting_prompt {name: Grace, style: pirate} = %q, want a pirate greeting for Grace", got)
	}
	_, err = harness.GetPrompt(ctx, c, "greeting_prompt", map[string]string{"style": "pirate"})
	if err == nil {
		t.Errorf("prompts/get greeting_prompt without its required argument: no error")
	} else if !namesField(err.Error(), "name") {
		t.Errorf("prompts/get greeting_prompt without name: error %q does not name the argument", err)
	}
}

func checkUnknownNames(ctx context.Context, t *testing.T, c *client.Client) {
	res, err := harness.CallToolErr(ctx, c, "no_such_tool", map[string]any{})
	if err == nil {
		t.Errorf("tools/call no_such_tool: got a result (%+v), want a JSON-RPC error", res)
	} else if !errors.Is(err, mcp.ErrInvalidParams) {
		t.Errorf("tools/call no_such_tool: error %v, want JSON-RPC invalid params (-32602)", err)
	}
	if _, err := harness.ReadResourceErr(ctx, c, "nothing://here"); err == nil {
		t.Errorf("resources/read nothing://here: no error")
	}
	if _, err := harness.GetPrompt(ctx, c, "no_such_prompt", nil); err == nil {
		t.Errorf("prompts/get no_such_prompt: no error")
	}
}

// TestStorageSharedAcrossSessions: a value stored through one session is
// read back through another session, another protocol revision and stdio,
// whichever pooled instance serves each call.
func TestStorageSharedAcrossSessions(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, bins.ExamplesYAML(t, "")), Stdio: true})
	ctx := harness.Ctx(t, 60*time.Second)
	a := g.SessionClient(t)
	b := g.SessionClient(t)
	if a.GetSessionId() == b.GetSessionId() {
		t.Fatalf("two sessions share the id %s", a.GetSessionId())
	}
	stateless := g.Client(t)
	stdio := g.StdioClient(t)

	key := fmt.Sprintf("shared-%d", rand.Int64())
	value := fmt.Sprintf("from session A %d", rand.Int64())
	if text, isErr := harness.CallTool(ctx, t, a, "set-storage", map[string]any{"key": key, "value": value}); isErr {
		t.Fatalf("set-storage: %s", text)
	}
	readers := map[string]*client.Client{"session B": b, "stateless HTTP": stateless, "stdio": stdio, "session A": a}
	for name, c := range readers {
		if got := harness.ReadText(ctx, t, c, "storage://"+key); got != value {
			t.Errorf("%s reads storage://%s = %q, want %q (set by session A)", name, key, got, value)
		}
	}
	// And the other way: stdio writes, HTTP sessions read.
	value2 := fmt.Sprintf("from stdio %d", rand.Int64())
	harness.CallTool(ctx, t, stdio, "set-storage", map[string]any{"key": key, "value": value2})
	for name, c := range readers {
		if got := harness.ReadText(ctx, t, c, "storage://"+key); got != value2 {
			t.Errorf("%s reads storage://%s = %q, want %q (overwritten over stdio)", name, key, got, value2)
		}
	}
}

// TestConcurrentSessions: 64 goroutines over 16 HTTP sessions, all at once,
// each storing its own key and reading it back and doing arithmetic whose
// exact result the test computes.
func TestConcurrentSessions(t *testing.T) {
	t.Parallel()
	g := bins.Start(t, harness.Options{Config: harness.WriteConfig(t, bins.ExamplesYAML(t, ""))})
	ctx := harness.Ctx(t, 120*time.Second)
	const sessions, workers = 16, 64
	clients := make([]*client.Client, sessions)
	ids := map[string]bool{}
	for i := range clients {
		clients[i] = g.SessionClient(t)
		ids[clients[i].GetSessionId()] = true
	}
	if len(ids) != sessions {
		t.Fatalf("%d distinct session ids for %d sessions", len(ids), sessions)
	}
	before := g.Scrape(t)

	run := fmt.Sprintf("%x", rand.Int64())
	keyOf := func(i int) string { return fmt.Sprintf("conc-%s-%d", run, i) }
	valueOf := func(i int) string { return fmt.Sprintf("value %d of run %s", i, run) }

	start := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clients[i%sessions]
			<-start
			res, err := harness.CallToolErr(ctx, c, "set-storage", map[string]any{"key": keyOf(i), "value": valueOf(i)})
			if err != nil || res.IsError || harness.ResultText(res) != "Stored value at key: "+keyOf(i) {
				fail("worker %d: set-storage: %v %+v", i, err, res)
				return
			}
			rr, err := harness.ReadResourceErr(ctx, c, "storage://"+keyOf(i))
			if err != nil || len(rr.Contents) != 1 {
				fail("worker %d: read: %v %+v", i, err, rr)
				return
			}
			if tc, ok := mcp.AsTextResourceContents(rr.Contents[0]); !ok || tc.Text != valueOf(i) {
				fail("worker %d: read back %+v, want %q", i, rr.Contents[0], valueOf(i))
			}
			a, b := int64(i)*7919+13, int64(i)*31+1
			ops := []struct {
				op   string
				x, y int64
				want int64
			}{
				{"add", a, b, a + b},
				{"subtract", b, a, b - a},
				{"multiply", a, b, a * b},
				{"divide", a * b, b, a},
			}
			for _, o := range ops {
				res, err := harness.CallToolErr(ctx, c, "calculate", map[string]any{"operation": o.op, "a": o.x, "b": o.y})
				if err != nil || res.IsError || harness.ResultText(res) != strconv.FormatInt(o.want, 10) {
					fail("worker %d: calculate %s %d %d: %v %+v, want %d", i, o.op, o.x, o.y, err, res, o.want)
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}

	// Every key, read through one session, holds its own value: no call
	// wrote into another's key.
	for i := range workers {
		if got := harness.ReadText(ctx, t, clients[0], "storage://"+keyOf(i)); got != valueOf(i) {
			t.Errorf("storage://%s = %q, want %q", keyOf(i), got, valueOf(i))
		}
	}

	after := g.Scrape(t)
	if d := after.ToolCalls("calculate", "ok") - before.ToolCalls("calculate", "ok"); d != 4*workers {
		t.Errorf("wasmgate_tool_calls_total{tool=calculate,outcome=ok} grew by %v, want %d", d, 4*workers)
	}
	if d := after.ToolCalls("set-storage", "ok") - before.ToolCalls("set-storage", "ok"); d != workers {
		t.Errorf("wasmgate_tool_calls_total{tool=set-storage,outcome=ok} grew by %v, want %d", d, workers)
	}
	durCount := func(m harness.Metrics) float64 {
		v, _ := m.Value("wasmgate_tool_call_duration_seconds_count", map[string]string{"tool": "calculate"})
		return v
	}
	if d := durCount(after) - durCount(before); d != 4*workers {
		t.Errorf("wasmgate_tool_call_duration_seconds_count{tool=calculate} grew by %v, want %d", d, 4*workers)
	}
	if v, ok := after.Value("wasmgate_tool_calls_in_flight", map[string]string{"source": "calculator"}); !ok || v != 0 {
		t.Errorf("wasmgate_tool_calls_in_flight{source=calculator} = %v (present %v) after every call returned, want 0", v, ok)
	}
}

// TestStdioRaw speaks JSON-RPC over the stdio transport by hand: stdout
// carries nothing but JSON-RPC messages, one per line (logs go to stderr,
// even at debug level), and a malformed line gets a parse error without
// ending the session.
func TestStdioRaw(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Server: "  log: {level: debug}\n", Plugins: harness.ExamplePlugins(t)}))
	g := bins.Start(t, harness.Options{Config: cfg, Stdio: true})
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(g.Stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(g.Stdin, s+"\n"); err != nil {
			t.Fatalf("write stdin: %v", err)
		}
	}
	type message struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Method string `json:"method"`
	}
	// next returns the next response (notifications are skipped), failing
	// on any stdout line that is not a JSON-RPC message.
	next := func() message {
		t.Helper()
		for {
			select {
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("stdout closed")
				}
				var m struct {
					message
					JSONRPC string `json:"jsonrpc"`
				}
				if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" {
					t.Fatalf("stdout line is not a JSON-RPC message: %q", line)
				}
				if m.Method != "" && m.ID == nil {
					continue // a notification
				}
				return m.message
			case <-time.After(30 * time.Second):
				t.Fatalf("no response on stdout within 30s")
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := next(); string(m.ID) != "1" || m.Error != nil {
		t.Fatalf("initialize: %+v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calculate","arguments":{"operation":"multiply","a":6,"b":7}}}`)
	m := next()
	var res struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if string(m.ID) != "2" || json.Unmarshal(m.Result, &res) != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Text != "42" {
		t.Errorf("tools/call calculate multiply 6 7: %s %s", m.ID, m.Result)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{`)
	if m := next(); m.Error == nil || m.Error.Code != mcp.PARSE_ERROR {
		t.Errorf("a malformed line: %+v, want a parse error (%d)", m, mcp.PARSE_ERROR)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"no/such/method"}`)
	if m := next(); string(m.ID) != "4" || m.Error == nil || m.Error.Code != mcp.METHOD_NOT_FOUND {
		t.Errorf("an unknown method: %+v, want method not found (%d)", m, mcp.METHOD_NOT_FOUND)
	}
	send(`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"greeter://about"}}`)
	if m := next(); string(m.ID) != "5" || m.Error != nil || !strings.Contains(string(m.Result), "greeter://about") {
		t.Errorf("resources/read after the errors: %s %s %+v", m.ID, m.Result, m.Error)
	}
	if !strings.Contains(g.Stderr(), "level=DEBUG") && !strings.Contains(g.Stderr(), "level=INFO") {
		t.Errorf("no logs on stderr at all")
	}
}
