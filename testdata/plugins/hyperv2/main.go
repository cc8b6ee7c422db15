//go:build wasip1

// Command hyperv2 is a test fixture in hyper-mcp's v2 ABI, written with
// the raw go-pdk, with every export of the ABI. Each takes the params of
// its MCP method as "request" and a "context" {"id","_meta"}.
//
//	tools      v2_context {}             -> the context object it got, as text
//	           v2_echo {message}         -> text
//	           v2_structured {}          -> structuredContent and a text item
//	           v2_counter {}             -> a count kept in a global, +1 per call
//	prompts    greet {name (required)} -> a user text and an assistant image
//	resources  hyper://readme (text), hyper://logo (blob)
//	templates  hyper://notes/{id}; hyper://files/{+path} (not served: only
//	           {name} expressions are)
//	complete   greet's name from Ada, Alan, Grace; notes' id from 1, 2, 3
//	grow       v2_grow {kind} adds v2_grown_N (a tool answered as unknown),
//	           prompt grown_N or resource hyper://grown/N, and says so
package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/extism/go-pdk"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
)

func main() {}

const pngBlob = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGPQq734HwAE1QJ8vER1UAAAAABJRU5ErkJggg=="

var count int

// grown counts the items grow added, by kind.
var grown = map[string]int{}

type input struct {
	Request json.RawMessage `json:"request"`
	Context json.RawMessage `json:"context"`
}

func read() (input, bool) {
	var in input
	if err := json.Unmarshal(pdk.Input(), &in); err != nil {
		pdk.SetError(fmt.Errorf("input: %w", err))
		return in, false
	}
	if len(in.Context) == 0 {
		pdk.SetErrorString("input: no context")
		return in, false
	}
	return in, true
}

func output(v any) int32 {
	b, err := json.Marshal(v)
	if err != nil {
		pdk.SetError(err)
		return 1
	}
	pdk.Output(b)
	return 0
}

func text(s string) map[string]any {
	return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
}

//go:wasmexport list_tools
func listTools() int32 {
	if _, ok := read(); !ok {
		return 1
	}
	pdk.OutputString(`{"tools":[` +
		`{"name":"v2_context","description":"Returns its context","inputSchema":{"type":"object"}},` +
		`{"name":"v2_echo","title":"Echo","description":"Echoes","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}},"outputSchema":{"type":"object","properties":{"message":{"type":"string"}}}},` +
		`{"name":"v2_structured","description":"Structured output","inputSchema":{"type":"object"}},` +
		`{"name":"v2_counter","description":"Counts its calls in a global","inputSchema":{"type":"object"}},` +
		`{"name":"v2_progress","description":"Reports progress","inputSchema":{"type":"object","properties":{"steps":{"type":"integer"}}}},` +
		`{"name":"v2_log","description":"Logs to the client","inputSchema":{"type":"object","properties":{"level":{"type":"string"},"message":{"type":"string"}}}},` +
		`{"name":"v2_sample","description":"Asks the client's model","inputSchema":{"type":"object","properties":{"prompt":{"type":"string"}}}},` +
		`{"name":"v2_elicit","description":"Asks the user for a name","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}},` +
		`{"name":"v2_roots","description":"Lists the client's roots","inputSchema":{"type":"object"}},` +
		`{"name":"v2_touch","description":"Says a note changed","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}},` +
		`{"name":"v2_grow","description":"Adds a tool, prompt or resource","inputSchema":{"type":"object","properties":{"kind":{"type":"string","enum":["tools","prompts","resources"]}}}}` +
		grownTools() + `]}`)
	return 0
}

// grownTools lists the tools grow added, each with a leading comma.
func grownTools() string {
	var b strings.Builder
	for i := 1; i <= grown["tools"]; i++ {
		fmt.Fprintf(&b, `,{"name":"v2_grown_%d","description":"Added by grow","inputSchema":{"type":"object"}}`, i)
	}
	return b.String()
}

// fail is a tool result with isError set.
func fail(err error) int32 {
	return output(map[string]any{"content": []any{map[string]any{"type": "text", "text": err.Error()}}, "isError": true})
}

//go:wasmexport call_tool
func callTool() int32 {
	in, ok := read()
	if !ok {
		return 1
	}
	var req struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	if err := json.Unmarshal(in.Request, &req); err != nil {
		pdk.SetError(err)
		return 1
	}
	args := map[string]string{}
	for k, v := range req.Arguments {
		args[k] = fmt.Sprint(v)
	}
	switch req.Name {
	case "v2_context":
		return output(text(string(in.Context)))
	case "v2_echo":
		return output(text(args["message"]))
	case "v2_structured":
		r := text("42")
		r["structuredContent"] = map[string]any{"answer": 42}
		return output(r)
	case "v2_counter":
		count++
		return output(text(strconv.Itoa(count)))
	case "v2_progress":
		n, _ := strconv.Atoi(args["steps"])
		total := float64(n)
		for i := 1; i <= n; i++ {
			if err := wasmgate.NotifyProgress(wasmgate.Progress{Progress: float64(i), Total: &total, Message: fmt.Sprintf("step %d", i)}); err != nil {
				return fail(err)
			}
		}
		return output(text("done"))
	case "v2_log":
		if err := wasmgate.LogToClient(args["level"], args["message"]); err != nil {
			return fail(err)
		}
		return output(text("logged"))
	case "v2_sample":
		res, err := wasmgate.CreateMessage(wasmgate.CreateMessageRequest{
			Messages:  []wasmgate.SamplingMessage{{Role: "user", Content: wasmgate.TextContent{Type: "text", Text: args["prompt"]}}},
			MaxTokens: 100,
		})
		if err != nil {
			return fail(err)
		}
		return output(text(res.Model + ": " + res.Text()))
	case "v2_elicit":
		res, err := wasmgate.Elicit(wasmgate.ElicitRequest{Message: args["message"],
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
		if err != nil {
			return fail(err)
		}
		name, _ := res.Content["name"].(string)
		return output(text(res.Action + " " + name))
	case "v2_roots":
		roots, err := wasmgate.ListRoots()
		if err != nil {
			return fail(err)
		}
		var uris []string
		for _, r := range roots {
			uris = append(uris, r.URI)
		}
		return output(text(strings.Join(uris, " ")))
	case "v2_touch":
		if err := wasmgate.NotifyResourceUpdated("hyper://notes/" + args["id"]); err != nil {
			return fail(err)
		}
		return output(text("touched"))
	case "v2_grow":
		kind := args["kind"]
		grown[kind]++
		switch kind {
		case "tools":
			wasmgate.NotifyToolListChanged()
		case "prompts":
			wasmgate.NotifyPromptListChanged()
		case "resources":
			wasmgate.NotifyResourceListChanged()
		}
		return output(text(fmt.Sprintf("%s: %d", kind, grown[kind])))
	}
	return output(map[string]any{"content": []any{map[string]any{"type": "text", "text": "unknown tool " + req.Name}}, "isError": true})
}

//go:wasmexport list_prompts
func listPrompts() int32 {
	if _, ok := read(); !ok {
		return 1
	}
	var extra strings.Builder
	for i := 1; i <= grown["prompts"]; i++ {
		fmt.Fprintf(&extra, `,{"name":"grown_%d","description":"Added by grow"}`, i)
	}
	pdk.OutputString(`{"prompts":[{"name":"greet","title":"Greeting","description":"Greets someone","arguments":[{"name":"name","description":"Who","required":true}]}` + extra.String() + `]}`)
	return 0
}

//go:wasmexport get_prompt
func getPrompt() int32 {
	in, ok := read()
	if !ok {
		return 1
	}
	var req struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := json.Unmarshal(in.Request, &req); err != nil {
		pdk.SetError(err)
		return 1
	}
	if n, ok := strings.CutPrefix(req.Name, "grown_"); ok {
		return output(map[string]any{"description": "A grown prompt", "messages": []any{
			map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "grown prompt " + n}},
		}})
	}
	if req.Name != "greet" {
		pdk.SetErrorString("unknown prompt " + req.Name)
		return 1
	}
	return output(map[string]any{"description": "A greeting", "messages": []any{
		map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Hello " + req.Arguments["name"]}},
		map[string]any{"role": "assistant", "content": map[string]any{"type": "image", "data": pngBlob, "mimeType": "image/png"}},
	}})
}

//go:wasmexport list_resources
func listResources() int32 {
	if _, ok := read(); !ok {
		return 1
	}
	var extra strings.Builder
	for i := 1; i <= grown["resources"]; i++ {
		fmt.Fprintf(&extra, `,{"uri":"hyper://grown/%d","name":"grown_%d"}`, i, i)
	}
	pdk.OutputString(`{"resources":[{"uri":"hyper://readme","name":"readme","mimeType":"text/plain","size":11},{"uri":"hyper://logo","name":"logo","mimeType":"image/png"}` + extra.String() + `]}`)
	return 0
}

//go:wasmexport list_resource_templates
func listResourceTemplates() int32 {
	if _, ok := read(); !ok {
		return 1
	}
	pdk.OutputString(`{"resourceTemplates":[{"uriTemplate":"hyper://notes/{id}","name":"note","mimeType":"text/plain"},{"uriTemplate":"hyper://files/{+path}","name":"file"}]}`)
	return 0
}

//go:wasmexport read_resource
func readResource() int32 {
	in, ok := read()
	if !ok {
		return 1
	}
	var req struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(in.Request, &req); err != nil {
		pdk.SetError(err)
		return 1
	}
	switch {
	case req.URI == "hyper://readme":
		return output(map[string]any{"contents": []any{map[string]any{"uri": req.URI, "mimeType": "text/plain", "text": "hyper readme"}}})
	case req.URI == "hyper://logo":
		return output(map[string]any{"contents": []any{map[string]any{"uri": req.URI, "mimeType": "image/png", "blob": pngBlob}}})
	case strings.HasPrefix(req.URI, "hyper://grown/"):
		return output(map[string]any{"contents": []any{map[string]any{"uri": req.URI, "mimeType": "text/plain", "text": "grown " + strings.TrimPrefix(req.URI, "hyper://grown/")}}})
	case strings.HasPrefix(req.URI, "hyper://notes/"):
		id := strings.TrimPrefix(req.URI, "hyper://notes/")
		return output(map[string]any{"contents": []any{map[string]any{"uri": req.URI, "mimeType": "text/plain", "text": "note " + id}}})
	}
	pdk.SetErrorString("no resource " + req.URI)
	return 1
}

//go:wasmexport complete
func complete() int32 {
	in, ok := read()
	if !ok {
		return 1
	}
	var req struct {
		Ref struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
	}
	if err := json.Unmarshal(in.Request, &req); err != nil {
		pdk.SetError(err)
		return 1
	}
	var all []string
	switch {
	case req.Ref.Type == "prompt" && req.Ref.Name == "greet" && req.Argument.Name == "name":
		all = []string{"Ada", "Alan", "Grace"}
	case req.Ref.Type == "resource" && req.Ref.URI == "hyper://notes/{id}" && req.Argument.Name == "id":
		all = []string{"1", "2", "3"}
	}
	values := []string{}
	for _, v := range all {
		if strings.HasPrefix(v, req.Argument.Value) {
			values = append(values, v)
		}
	}
	return output(map[string]any{"completion": map[string]any{"values": values, "total": len(values), "hasMore": false}})
}

//go:wasmexport on_roots_list_changed
func onRootsListChanged() int32 { return 0 }
