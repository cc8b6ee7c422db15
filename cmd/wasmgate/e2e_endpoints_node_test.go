package main

// Issue 40 (endpoints) with the official TypeScript SDK
// (tests/node/endpoint.mjs): two endpoints of one gateway, each seen
// over Streamable HTTP and one over stdio, list exactly their selection,
// call their own tools, and answer a tool of the other endpoint exactly as
// a tool that does not exist.

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// endpointView is the JSON line endpoint.mjs prints.
type endpointView struct {
	Server struct {
		Name, Version, Title string
	} `json:"server"`
	Instructions string                     `json:"instructions"`
	Capabilities map[string]json.RawMessage `json:"capabilities"`
	Tools        []string                   `json:"tools"`
	Resources    []string                   `json:"resources"`
	Templates    []string                   `json:"templates"`
	Prompts      []string                   `json:"prompts"`
	Calls        []endpointCall             `json:"calls"`
}

type endpointCall struct {
	Name   string    `json:"name"`
	Result *nodeCall `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// runEndpointClient runs tests/node/endpoint.mjs with args and decodes
// its line.
func runEndpointClient(t *testing.T, args ...string) endpointView {
	t.Helper()
	node, client := nodeClient(t)
	var v endpointView
	stderr := runNodeJSON(t, &v, node, append([]string{filepath.Join(filepath.Dir(client), "endpoint.mjs")}, args...)...)
	if strings.Contains(stderr, "endpoint.mjs: warning:") {
		t.Errorf("the TypeScript SDK reported transport warnings:\n%s", stderr)
	}
	return v
}

// twoEndpointsYAML serves the example plugins as endpointsSection's two
// endpoints; transports is YAML under transports: (2 spaces) after http,
// sections more at the top level.
func twoEndpointsYAML(t *testing.T, transports, sections string) string {
	return bins.YAML(harness.Parts{Plugins: harness.ExamplePlugins(t), HTTP: transports, Sections: endpointsSection + sections})
}

// endpointBase is the scheme and host of g's MCP listener.
func endpointBase(t *testing.T, mcpURL string) string {
	t.Helper()
	u, err := url.Parse(mcpURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Scheme + "://" + u.Host
}

const (
	callAdd     = `calculate={"operation":"add","a":5,"b":3}`
	callHello   = `say_hello={"name":"Ada"}`
	callMissing = `no_such_tool={}`
	callStore   = `set-storage={"key":"k","value":"v"}`
)

// checkUnknownLike checks that call answered as the call to a tool that
// does not exist (missing) did, with its own name in the message.
func checkUnknownLike(t *testing.T, where string, call, missing endpointCall) {
	t.Helper()
	if call.Error == nil {
		t.Errorf("%s: %s answered %+v, want the JSON-RPC error of an unknown tool", where, call.Name, call.Result)
		return
	}
	if missing.Error == nil {
		t.Errorf("%s: %s answered %+v, want a JSON-RPC error", where, missing.Name, missing.Result)
		return
	}
	if call.Error.Code != missing.Error.Code {
		t.Errorf("%s: %s failed with code %d, an unknown tool with %d", where, call.Name, call.Error.Code, missing.Error.Code)
	}
	if want := strings.ReplaceAll(missing.Error.Message, missing.Name, call.Name); call.Error.Message != want {
		t.Errorf("%s: %s failed with %q, want %q (as an unknown tool)", where, call.Name, call.Error.Message, want)
	}
	if !strings.Contains(call.Error.Message, "not found") {
		t.Errorf("%s: %s failed with %q, want it to say the tool was not found", where, call.Name, call.Error.Message)
	}
}

func checkMath(t *testing.T, where string, v endpointView) {
	t.Helper()
	if v.Server.Title != "Math tools" || v.Instructions != "Arithmetic only." {
		t.Errorf("%s: serverInfo title %q, instructions %q; want the math endpoint's", where, v.Server.Title, v.Instructions)
	}
	if !slices.Equal(v.Tools, []string{"calculate"}) {
		t.Errorf("%s: tools %q, want exactly [calculate]", where, v.Tools)
	}
	if len(v.Resources) != 0 || len(v.Templates) != 0 || len(v.Prompts) != 0 {
		t.Errorf("%s: resources %q, templates %q, prompts %q; want none (the calculator has none)", where, v.Resources, v.Templates, v.Prompts)
	}
	if len(v.Calls) != 4 {
		t.Fatalf("%s: %d calls answered, want 4: %+v", where, len(v.Calls), v.Calls)
	}
	if c := v.Calls[0]; c.Result == nil || c.Result.IsError || c.Result.text() != "8" {
		t.Errorf("%s: calculate add 5 3 = %+v, want 8", where, c)
	}
	checkUnknownLike(t, where, v.Calls[1], v.Calls[3]) // say_hello: people's
	checkUnknownLike(t, where, v.Calls[2], v.Calls[3]) // set-storage: no endpoint's
}

func checkPeople(t *testing.T, where string, v endpointView) {
	t.Helper()
	if v.Server.Title != "People tools" || v.Instructions != "Greetings and notes." {
		t.Errorf("%s: serverInfo title %q, instructions %q; want the people endpoint's", where, v.Server.Title, v.Instructions)
	}
	if !slices.Equal(v.Tools, []string{"say_hello"}) {
		t.Errorf("%s: tools %q, want exactly [say_hello] (set-storage is excluded)", where, v.Tools)
	}
	if !slices.Equal(v.Resources, []string{"greeter://about"}) || !slices.Equal(v.Templates, []string{"storage://{key}"}) {
		t.Errorf("%s: resources %q, templates %q; want [greeter://about] and [storage://{key}]", where, v.Resources, v.Templates)
	}
	if !slices.Equal(v.Prompts, []string{"greeting_prompt"}) {
		t.Errorf("%s: prompts %q, want [greeting_prompt]", where, v.Prompts)
	}
	if len(v.Calls) != 4 {
		t.Fatalf("%s: %d calls answered, want 4: %+v", where, len(v.Calls), v.Calls)
	}
	if c := v.Calls[0]; c.Result == nil || c.Result.IsError || !strings.Contains(c.Result.text(), "Ada") {
		t.Errorf("%s: say_hello Ada = %+v, want a greeting of Ada", where, c)
	}
	checkUnknownLike(t, where, v.Calls[1], v.Calls[3]) // calculate: math's
	checkUnknownLike(t, where, v.Calls[2], v.Calls[3]) // set-storage: excluded here
}

func TestEndpointsTypeScriptSDK(t *testing.T) {
	t.Parallel()
	cfg := harness.WriteConfig(t, twoEndpointsYAML(t, "  stdio: {endpoint: people}\n", ""))
	g := bins.Start(t, harness.Options{Config: cfg})
	base := endpointBase(t, g.MCPURL)

	math := runEndpointClient(t, "http", base+"/mcp/math", callAdd, callHello, callStore, callMissing)
	checkMath(t, "/mcp/math", math)
	people := runEndpointClient(t, "http", base+"/mcp/people", callHello, callAdd, callStore, callMissing)
	checkPeople(t, "/mcp/people", people)
	if math.Server.Name != people.Server.Name || math.Server.Name == "" {
		t.Errorf("serverInfo names %q and %q, want server.name on both", math.Server.Name, people.Server.Name)
	}

	// transports.stdio.endpoint: people, spoken to by the SDK over stdio.
	stdio := runEndpointClient(t, append([]string{"stdio", bins.Path, "serve", "--stdio", "--config", cfg, "--"},
		callHello, callAdd, callStore, callMissing)...)
	checkPeople(t, "stdio", stdio)

	// Both calls that succeeded went through the one gateway: its metrics
	// count one calculate and one say_hello (stdio's ran in the child).
	m := g.Scrape(t)
	if n := m.ToolCalls("calculate", "ok"); n != 1 {
		t.Errorf("calculate calls that succeeded: %v, want 1 (on math only)", n)
	}
	if n := m.ToolCalls("say_hello", "ok"); n != 1 {
		t.Errorf("say_hello calls that succeeded: %v, want 1 (on people only)", n)
	}
}
