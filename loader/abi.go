package loader

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Descriptor is what a plugin provides, as its information exports say.
type Descriptor struct {
	Tools     []Tool
	Resources []Resource // static resources and templates (Template != nil)
	Prompts   []Prompt
}

// Tool is one tool a plugin provides.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Resource is a static resource or, when its URI holds {var} segments, a
// resource template.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
	Text        string `json:"text,omitempty"`
	Blob        string `json:"blob,omitempty"`

	// Template matches concrete URIs of a template; nil for a static
	// resource.
	Template *URITemplate `json:"-"`
}

// ResourceContent is what reading a resource returns.
type ResourceContent struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// Prompt is one prompt a plugin provides.
type Prompt struct {
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Arguments   []PromptArgument `json:"arguments"`
}

// PromptArgument is one argument of a Prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Required    bool   `json:"required,omitempty"`
}

// PromptMessage is one message a prompt export returns.
type PromptMessage struct {
	Role    string `json:"role"`
	Content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// ABI adapts one plugin calling convention. SeaFlea is the only one today;
// mcp.run servlets and hyper-mcp plugins would each be another.
type ABI interface {
	Describe(ctx context.Context, inst *Instance) (Descriptor, error)
	CallTool(ctx context.Context, inst *Instance, tool string, args json.RawMessage) ([]byte, error)
	ReadResource(ctx context.Context, inst *Instance, r Resource, uri string, vars map[string]string) (ResourceContent, error)
	GetPrompt(ctx context.Context, inst *Instance, prompt string, args map[string]string) ([]PromptMessage, error)
}

// SeaFlea is sea-flea's ABI: optional tools_information,
// resources_information and prompts_information exports, and one export
// per tool, resource and prompt named after it.
type SeaFlea struct{}

const maxInfoBytes = 4 << 20

// Describe calls the information exports the module has.
func (SeaFlea) Describe(ctx context.Context, inst *Instance) (Descriptor, error) {
	var d Descriptor
	read := func(export string, v any) error {
		if !inst.Has(export) {
			return nil
		}
		out, err := inst.Call(ctx, export, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", export, err)
		}
		if len(out) > maxInfoBytes {
			return fmt.Errorf("%s: output of %d bytes exceeds %d", export, len(out), maxInfoBytes)
		}
		if err := json.Unmarshal(out, v); err != nil {
			return fmt.Errorf("%s: invalid JSON: %w", export, err)
		}
		return nil
	}
	if err := read("tools_information", &d.Tools); err != nil {
		return d, err
	}
	if err := read("resources_information", &d.Resources); err != nil {
		return d, err
	}
	if err := read("prompts_information", &d.Prompts); err != nil {
		return d, err
	}
	seen := map[string]string{}
	export := func(kind, name string) error {
		if name == "" {
			return fmt.Errorf("a %s has an empty name", kind)
		}
		if prev, ok := seen[name]; ok {
			return fmt.Errorf("%s %q has the same name as a %s", kind, name, prev)
		}
		seen[name] = kind
		if !inst.Has(name) {
			return fmt.Errorf("%s %q has no export of that name", kind, name)
		}
		return nil
	}
	for i, t := range d.Tools {
		if err := export("tool", t.Name); err != nil {
			return d, fmt.Errorf("tools_information: %w", err)
		}
		if len(t.InputSchema) == 0 || string(t.InputSchema) == "null" {
			d.Tools[i].InputSchema = json.RawMessage(`{"type":"object"}`)
		}
	}
	for i, r := range d.Resources {
		if err := export("resource", r.Name); err != nil {
			return d, fmt.Errorf("resources_information: %w", err)
		}
		if r.URI == "" {
			return d, fmt.Errorf("resources_information: resource %q has an empty uri", r.Name)
		}
		if strings.Contains(r.URI, "{") {
			t, err := ParseURITemplate(r.URI)
			if err != nil {
				return d, fmt.Errorf("resources_information: resource %q: %w", r.Name, err)
			}
			d.Resources[i].Template = t
		}
	}
	for _, p := range d.Prompts {
		if err := export("prompt", p.Name); err != nil {
			return d, fmt.Errorf("prompts_information: %w", err)
		}
	}
	return d, nil
}

// CallTool calls the tool's export with the arguments object as input.
func (SeaFlea) CallTool(ctx context.Context, inst *Instance, tool string, args json.RawMessage) ([]byte, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return inst.Call(ctx, tool, args)
}

// ReadResource calls the resource's export: with empty input for a static
// resource, with {"uri","arguments"} for a template.
func (SeaFlea) ReadResource(ctx context.Context, inst *Instance, r Resource, uri string, vars map[string]string) (ResourceContent, error) {
	var input []byte
	if r.Template != nil {
		b, err := json.Marshal(struct {
			URI       string            `json:"uri"`
			Arguments map[string]string `json:"arguments"`
		}{uri, vars})
		if err != nil {
			return ResourceContent{}, err
		}
		input = b
	}
	out, err := inst.Call(ctx, r.Name, input)
	if err != nil {
		return ResourceContent{}, err
	}
	var c ResourceContent
	if err := json.Unmarshal(out, &c); err != nil {
		return ResourceContent{}, &CallError{Export: r.Name, Kind: "error", Msg: fmt.Sprintf("resource %q: export %s returned invalid JSON: %v", r.Name, r.Name, err)}
	}
	if c.URI == "" {
		c.URI = uri
	}
	if c.MimeType == "" {
		c.MimeType = r.MimeType
	}
	return c, nil
}

// GetPrompt calls the prompt's export with the arguments as a JSON object.
func (SeaFlea) GetPrompt(ctx context.Context, inst *Instance, prompt string, args map[string]string) ([]PromptMessage, error) {
	if args == nil {
		args = map[string]string{}
	}
	in, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	out, err := inst.Call(ctx, prompt, in)
	if err != nil {
		return nil, err
	}
	var msgs []PromptMessage
	if err := json.Unmarshal(out, &msgs); err != nil {
		return nil, &CallError{Export: prompt, Kind: "error", Msg: fmt.Sprintf("prompt %q: export returned invalid JSON: %v", prompt, err)}
	}
	return msgs, nil
}

// URITemplate is an RFC 6570 level-1 template such as storage://{key}.
type URITemplate struct {
	Raw  string
	Vars []string
	re   *regexp.Regexp
}

var templateVar = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// ParseURITemplate parses a template with simple {var} expressions.
func ParseURITemplate(raw string) (*URITemplate, error) {
	if !utf8.ValidString(raw) {
		return nil, fmt.Errorf("uri template %q is not valid UTF-8", raw)
	}
	var b strings.Builder
	b.WriteString("^")
	var vars []string
	last := 0
	for _, m := range templateVar.FindAllStringSubmatchIndex(raw, -1) {
		lit := raw[last:m[0]]
		if strings.ContainsAny(lit, "{}") {
			return nil, fmt.Errorf("uri template %q: only {name} expressions are supported", raw)
		}
		b.WriteString(regexp.QuoteMeta(lit))
		b.WriteString(`([^/?#]+)`)
		vars = append(vars, raw[m[2]:m[3]])
		last = m[1]
	}
	tail := raw[last:]
	if strings.ContainsAny(tail, "{}") {
		return nil, fmt.Errorf("uri template %q: only {name} expressions are supported", raw)
	}
	b.WriteString(regexp.QuoteMeta(tail))
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("uri template %q: %w", raw, err)
	}
	return &URITemplate{Raw: raw, Vars: vars, re: re}, nil
}

// Match returns the variables of uri, or false when it does not match.
func (t *URITemplate) Match(uri string) (map[string]string, bool) {
	m := t.re.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vars := make(map[string]string, len(t.Vars))
	for i, v := range t.Vars {
		vars[v] = m[i+1]
	}
	return vars, true
}
