package hypermcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// V2 is hyper-mcp's v2 ABI. Each export takes the params of an MCP
// method as "request" (absent for the lists) and a "context" object
// {"id": the client's JSON-RPC id, "_meta": the request's _meta}:
//
//	list_tools               {"context":C}                 -> {"tools":[...]}
//	list_prompts             {"context":C}                 -> {"prompts":[...]}
//	list_resources           {"context":C}                 -> {"resources":[...]}
//	list_resource_templates  {"context":C}                 -> {"resourceTemplates":[...]}
//	call_tool                {"request":{name,arguments},"context":C} -> CallToolResult
//	get_prompt               {"request":{name,arguments},"context":C} -> {"messages":[...]}
//	read_resource            {"request":{uri},"context":C}  -> {"contents":[...]}
//	complete                 {"request":{ref,argument,context?},"context":C} -> {"completion":{...}}
//
// Every export is optional; a list export that is missing lists nothing.
type V2 struct{}

var (
	_ abi.ABI       = V2{}
	_ abi.Completer = V2{}
)

// v2Exports are the exports that make a module a v2 plugin.
var v2Exports = []string{"list_tools", "call_tool", "list_prompts", "get_prompt", "list_resources",
	"list_resource_templates", "read_resource", "complete"}

// Name returns "hyper-mcp v2".
func (V2) Name() string { return "hyper-mcp v2" }

// Detect accepts a module exporting any v2 export.
func (V2) Detect(m abi.Exports) bool {
	for _, e := range v2Exports {
		if m.Has(e) {
			return true
		}
	}
	return false
}

// Signature says what Detect looks for.
func (V2) Signature() string {
	return "exports list_tools, call_tool, list_prompts, get_prompt, list_resources, list_resource_templates, read_resource or complete"
}

// v2Context is the "context" member of every input.
type v2Context struct {
	ID   json.RawMessage `json:"id"`
	Meta json.RawMessage `json:"_meta"`
}

func contextOf(ctx context.Context) v2Context {
	r := abi.RequestOf(ctx)
	return v2Context{ID: r.ID, Meta: r.Meta}
}

type listInput struct {
	Context v2Context `json:"context"`
}

// Describe calls the list exports the module has.
func (V2) Describe(ctx context.Context, inst abi.Instance) (abi.Descriptor, error) {
	var d abi.Descriptor
	in := listInput{Context: contextOf(ctx)}
	list := func(export string, v any) (bool, error) {
		if !inst.Has(export) {
			return false, nil
		}
		return true, describeCall(ctx, inst, export, in, v)
	}
	// without warns when a list names items the export that serves them
	// is missing for.
	without := func(kind string, n int, export string) {
		if n > 0 && !inst.Has(export) {
			d.Warnings = append(d.Warnings, fmt.Sprintf("the plugin lists %d %s but has no %s export: using them fails", n, kind, export))
		}
	}

	var tools struct {
		Tools []wire.Tool `json:"tools"`
	}
	if ok, err := list("list_tools", &tools); err != nil {
		return d, err
	} else if ok {
		if err := checkTools("list_tools", tools.Tools); err != nil {
			return d, err
		}
		d.Tools = tools.Tools
		without("tools", len(d.Tools), "call_tool")
	}

	var prompts struct {
		Prompts []wire.Prompt `json:"prompts"`
	}
	if _, err := list("list_prompts", &prompts); err != nil {
		return d, err
	}
	seen := map[string]bool{}
	for _, p := range prompts.Prompts {
		if p.Name == "" {
			return d, fmt.Errorf("list_prompts: a prompt has an empty name")
		}
		if seen[p.Name] {
			return d, fmt.Errorf("list_prompts: prompt %q is listed twice", p.Name)
		}
		seen[p.Name] = true
	}
	d.Prompts = prompts.Prompts
	without("prompts", len(d.Prompts), "get_prompt")

	var resources struct {
		Resources []wire.Resource `json:"resources"`
	}
	if _, err := list("list_resources", &resources); err != nil {
		return d, err
	}
	uris := map[string]bool{}
	for _, r := range resources.Resources {
		if r.URI == "" {
			return d, fmt.Errorf("list_resources: resource %q has an empty uri", r.Name)
		}
		if uris[r.URI] {
			return d, fmt.Errorf("list_resources: resource %q is listed twice", r.URI)
		}
		uris[r.URI] = true
		d.Resources = append(d.Resources, abi.Resource{Resource: r})
	}
	var templates struct {
		ResourceTemplates []struct {
			URITemplate string `json:"uriTemplate"`
			wire.Resource
		} `json:"resourceTemplates"`
	}
	if _, err := list("list_resource_templates", &templates); err != nil {
		return d, err
	}
	for _, t := range templates.ResourceTemplates {
		if t.URITemplate == "" {
			return d, fmt.Errorf("list_resource_templates: template %q has an empty uriTemplate", t.Name)
		}
		if uris[t.URITemplate] {
			return d, fmt.Errorf("list_resource_templates: %q is listed twice", t.URITemplate)
		}
		uris[t.URITemplate] = true
		tpl, err := abi.ParseURITemplate(t.URITemplate)
		if err != nil {
			// hyper-mcp passes any RFC 6570 template on; wasmgate
			// matches simple {name} expressions only.
			d.Warnings = append(d.Warnings, fmt.Sprintf("resource template %q is left out: %v", t.URITemplate, err))
			continue
		}
		r := t.Resource
		r.URI = t.URITemplate
		d.Resources = append(d.Resources, abi.Resource{Resource: r, Template: tpl})
	}
	without("resources", len(d.Resources), "read_resource")
	return d, nil
}

// missing is the error of a call whose export the plugin lacks.
func missing(export string) error {
	return &abi.CallError{Export: export, Kind: abi.KindError, Msg: fmt.Sprintf("the plugin has no %s export", export)}
}

type nameRequest struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments,omitempty"`
}

// CallTool calls call_tool.
func (V2) CallTool(ctx context.Context, inst abi.Instance, tool string, args json.RawMessage) (abi.ToolResult, error) {
	if !inst.Has("call_tool") {
		return abi.ToolResult{}, missing("call_tool")
	}
	req := nameRequest{Name: tool}
	if len(args) > 0 {
		req.Arguments = args
	}
	b, err := json.Marshal(struct {
		Request nameRequest `json:"request"`
		Context v2Context   `json:"context"`
	}{req, contextOf(ctx)})
	if err != nil {
		return abi.ToolResult{}, err
	}
	out, err := inst.Call(ctx, "call_tool", b)
	if err != nil {
		return abi.ToolResult{}, err
	}
	return toolResult("call_tool", out)
}

// ReadResource calls read_resource with the concrete URI.
func (V2) ReadResource(ctx context.Context, inst abi.Instance, r abi.Resource, uri string, _ map[string]string) ([]wire.ResourceContent, error) {
	if !inst.Has("read_resource") {
		return nil, missing("read_resource")
	}
	var out struct {
		Contents *[]wire.ResourceContent `json:"contents"`
	}
	in := struct {
		Request struct {
			URI string `json:"uri"`
		} `json:"request"`
		Context v2Context `json:"context"`
	}{Context: contextOf(ctx)}
	in.Request.URI = uri
	if err := call(ctx, inst, "read_resource", in, &out); err != nil {
		return nil, err
	}
	if out.Contents == nil {
		return nil, &abi.CallError{Export: "read_resource", Kind: abi.KindError, Msg: `export read_resource returned no "contents" array`}
	}
	contents := *out.Contents
	for i := range contents {
		if contents[i].URI == "" {
			contents[i].URI = uri
		}
	}
	return contents, nil
}

// GetPrompt calls get_prompt.
func (V2) GetPrompt(ctx context.Context, inst abi.Instance, prompt string, args map[string]string) ([]abi.PromptMessage, error) {
	if !inst.Has("get_prompt") {
		return nil, missing("get_prompt")
	}
	req := nameRequest{Name: prompt}
	if args != nil {
		req.Arguments = args
	}
	var out struct {
		Messages *[]abi.PromptMessage `json:"messages"`
	}
	in := struct {
		Request nameRequest `json:"request"`
		Context v2Context   `json:"context"`
	}{req, contextOf(ctx)}
	if err := call(ctx, inst, "get_prompt", in, &out); err != nil {
		return nil, err
	}
	if out.Messages == nil {
		return nil, &abi.CallError{Export: "get_prompt", Kind: abi.KindError, Msg: `export get_prompt returned no "messages" array`}
	}
	return *out.Messages, nil
}

// Complete calls complete; a plugin without it completes nothing.
func (V2) Complete(ctx context.Context, inst abi.Instance, req abi.CompleteRequest) (abi.Completion, error) {
	if !inst.Has("complete") {
		return abi.Completion{Values: []string{}}, nil
	}
	type ref struct {
		Type string `json:"type"`
		Name string `json:"name,omitempty"`
		URI  string `json:"uri,omitempty"`
	}
	type argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	type reqContext struct {
		Arguments map[string]string `json:"arguments,omitempty"`
	}
	var in struct {
		Request struct {
			Ref      ref         `json:"ref"`
			Argument argument    `json:"argument"`
			Context  *reqContext `json:"context,omitempty"`
		} `json:"request"`
		Context v2Context `json:"context"`
	}
	in.Context = contextOf(ctx)
	if req.Prompt != "" {
		in.Request.Ref = ref{Type: "prompt", Name: req.Prompt}
	} else {
		in.Request.Ref = ref{Type: "resource", URI: req.URI}
	}
	in.Request.Argument = argument{Name: req.Argument, Value: req.Value}
	if req.Arguments != nil {
		in.Request.Context = &reqContext{Arguments: req.Arguments}
	}
	var out struct {
		Completion *abi.Completion `json:"completion"`
	}
	if err := call(ctx, inst, "complete", in, &out); err != nil {
		return abi.Completion{}, err
	}
	if out.Completion == nil {
		return abi.Completion{}, &abi.CallError{Export: "complete", Kind: abi.KindError, Msg: `export complete returned no "completion" object`}
	}
	c := *out.Completion
	if c.Values == nil {
		c.Values = []string{}
	}
	return c, nil
}
