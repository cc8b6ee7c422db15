package relay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmgate/wasmgate/loader/abi"
)

// ProtocolVersion names the wasmgate relay protocol in the hello frame.
const ProtocolVersion = "wasmgate-relay/1"

// Limits on what one register frame may declare.
const (
	maxItems     = 256 // tools, resources, templates or prompts, each
	maxNameLen   = 64
	maxPageIDLen = 64 // a register frame's id, as JSON
)

// Frame types of the wasmgate protocol (docs/relay-protocol.md).
const (
	// gateway -> page
	typeHello      = "hello"
	typeWelcome    = "welcome"
	typeRegistered = "registered"
	typeCall       = "call"
	typeCancel     = "cancel"
	typeError      = "error"
	// page -> gateway
	typeAuth     = "auth"
	typeRegister = "register"
	typeResult   = "result"
)

// Methods of a call frame: the MCP request the call stands for.
const (
	methodTool     = "tools/call"
	methodResource = "resources/read"
	methodPrompt   = "prompts/get"
)

// errFrame is a frame that breaks the protocol; the bridge is closed.
type errFrame struct{ msg string }

func (e *errFrame) Error() string { return e.msg }

func badFrame(format string, args ...any) error { return &errFrame{fmt.Sprintf(format, args...)} }

// inFrame is a frame a page sends, decoded and checked by decodeFrame.
type inFrame struct {
	Type string `json:"type"`

	// auth
	Nonce string `json:"nonce"`
	Proof string `json:"proof"`

	// register: ID is the page's own (echoed in registered); result: ID
	// is the gateway's call id (CallID once checked).
	ID                json.RawMessage `json:"id"`
	Tools             []ToolDef       `json:"tools"`
	Resources         []ResourceDef   `json:"resources"`
	ResourceTemplates []TemplateDef   `json:"resourceTemplates"`
	Prompts           []PromptDef     `json:"prompts"`

	// result
	Result json.RawMessage `json:"result"`
	Error  *PageError      `json:"error"`

	CallID uint64 `json:"-"`
}

// ToolDef is a tool a page registers.
type ToolDef struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

// ResourceDef is a static resource a page registers.
type ResourceDef struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// TemplateDef is a resource template a page registers.
type TemplateDef struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// PromptDef is a prompt a page registers.
type PromptDef struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Arguments   []PromptArg `json:"arguments,omitempty"`
}

// PromptArg is one argument of a PromptDef.
type PromptArg struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PageError is the error of a result frame: the page's handler threw.
type PageError struct {
	Message string `json:"message"`
}

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// decodeFrame decodes and checks one text frame from a page. An error is
// an *errFrame saying what is wrong; the caller closes the bridge.
func decodeFrame(data []byte) (*inFrame, error) {
	var f inFrame
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, badFrame("not a JSON object: %v", err)
	}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("null")) {
		return nil, badFrame("not a JSON object")
	}
	switch f.Type {
	case typeAuth:
		if f.Nonce == "" || f.Proof == "" {
			return nil, badFrame("auth frame without nonce or proof")
		}
	case typeRegister:
		if len(f.ID) > maxPageIDLen {
			return nil, badFrame("register id longer than %d bytes", maxPageIDLen)
		}
		if err := checkRegistration(&f); err != nil {
			return nil, err
		}
	case typeResult:
		id, err := callID(f.ID)
		if err != nil {
			return nil, err
		}
		f.CallID = id
		hasResult := len(f.Result) > 0 && !bytes.Equal(f.Result, []byte("null"))
		switch {
		case hasResult && f.Error != nil:
			return nil, badFrame("result frame %d has both result and error", id)
		case !hasResult && f.Error == nil:
			return nil, badFrame("result frame %d has neither result nor error", id)
		case hasResult && f.Result[0] != '{':
			return nil, badFrame("result frame %d: result is not an object", id)
		}
	case "":
		return nil, badFrame("frame without a type")
	default:
		return nil, badFrame("unknown frame type %q", f.Type)
	}
	return &f, nil
}

// callID parses the id of a result frame: a positive integer.
func callID(raw json.RawMessage) (uint64, error) {
	s := string(raw)
	if s == "" {
		return 0, badFrame("result frame without an id")
	}
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil || id == 0 {
		return 0, badFrame("result frame id %.32s is not a call id (a positive integer)", s)
	}
	return id, nil
}

// checkRegistration checks everything a register frame declares; the
// whole frame is refused on the first problem.
func checkRegistration(f *inFrame) error {
	if len(f.Tools) > maxItems || len(f.Resources) > maxItems || len(f.ResourceTemplates) > maxItems || len(f.Prompts) > maxItems {
		return badFrame("more than %d tools, resources, templates or prompts", maxItems)
	}
	seen := map[string]bool{}
	for i := range f.Tools {
		t := &f.Tools[i]
		if !namePattern.MatchString(t.Name) {
			return badFrame("tools[%d]: name %.80q: use 1-64 letters, digits, '_', '-' or '.'", i, t.Name)
		}
		if seen["tool "+t.Name] {
			return badFrame("tools[%d]: tool %q registered twice", i, t.Name)
		}
		seen["tool "+t.Name] = true
		if len(t.InputSchema) == 0 || bytes.Equal(t.InputSchema, []byte("null")) {
			t.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
		if err := checkSchema(t.InputSchema); err != nil {
			return badFrame("tools[%d] (%s): inputSchema: %v", i, t.Name, err)
		}
	}
	for i, r := range f.Resources {
		if r.Name == "" || r.URI == "" {
			return badFrame("resources[%d]: uri and name are required", i)
		}
		if u, err := url.Parse(r.URI); err != nil || u.Scheme == "" || strings.ContainsAny(r.URI, "{}") {
			return badFrame("resources[%d]: uri %.200q is not an absolute URI", i, r.URI)
		}
		if seen["resource "+r.URI] {
			return badFrame("resources[%d]: resource %q registered twice", i, r.URI)
		}
		seen["resource "+r.URI] = true
	}
	for i, r := range f.ResourceTemplates {
		if r.Name == "" || r.URITemplate == "" {
			return badFrame("resourceTemplates[%d]: uriTemplate and name are required", i)
		}
		t, err := abi.ParseURITemplate(r.URITemplate)
		if err != nil {
			return badFrame("resourceTemplates[%d]: %v", i, err)
		}
		if len(t.Vars) == 0 {
			return badFrame("resourceTemplates[%d]: %q has no {variable}; register it as a resource", i, r.URITemplate)
		}
		if seen["resource "+r.URITemplate] {
			return badFrame("resourceTemplates[%d]: template %q registered twice", i, r.URITemplate)
		}
		seen["resource "+r.URITemplate] = true
	}
	for i, p := range f.Prompts {
		if !namePattern.MatchString(p.Name) {
			return badFrame("prompts[%d]: name %.80q: use 1-64 letters, digits, '_', '-' or '.'", i, p.Name)
		}
		if seen["prompt "+p.Name] {
			return badFrame("prompts[%d]: prompt %q registered twice", i, p.Name)
		}
		seen["prompt "+p.Name] = true
		for j, a := range p.Arguments {
			if a.Name == "" {
				return badFrame("prompts[%d].arguments[%d]: name is required", i, j)
			}
		}
	}
	return nil
}

// noLoader refuses external $refs: a page's schema must be self-contained.
type noLoader struct{}

func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("external $ref %q is not allowed", u)
}

// checkSchema checks that raw is a JSON Schema for an arguments object.
func checkSchema(raw json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return errors.New("not valid JSON")
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return errors.New("not a JSON object")
	}
	if t, ok := m["type"]; ok && t != "object" {
		return fmt.Errorf(`type is %v; tool arguments are an object ("type": "object")`, t)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	if err := c.AddResource("wasmgate:///relay/schema.json", doc); err != nil {
		return err
	}
	_, err = c.Compile("wasmgate:///relay/schema.json")
	return err
}

// Frames the gateway sends.

type helloFrame struct {
	Type     string `json:"type"`
	Protocol string `json:"protocol"`
	Site     string `json:"site"`
	Nonce    string `json:"nonce"`
}

type welcomeFrame struct {
	Type          string `json:"type"`
	Proof         string `json:"proof"`
	MaxFrame      int64  `json:"max_frame"`
	CallTimeoutMS int64  `json:"call_timeout_ms"`
}

type registeredFrame struct {
	Type      string          `json:"type"`
	ID        json.RawMessage `json:"id,omitempty"`
	Tools     []string        `json:"tools"`
	Resources []string        `json:"resources"`
	Prompts   []string        `json:"prompts"`
	Warnings  []string        `json:"warnings,omitempty"`
}

type callFrame struct {
	Type      string            `json:"type"`
	ID        uint64            `json:"id"`
	Method    string            `json:"method"`
	Name      string            `json:"name,omitempty"`
	Arguments any               `json:"arguments,omitempty"`
	URI       string            `json:"uri,omitempty"`
	Template  string            `json:"template,omitempty"`
	Variables map[string]string `json:"variables,omitempty"`
}

// errorFrame refuses a page's frame without closing the connection (a
// registration beyond max_registrations_per_minute).
type errorFrame struct {
	Type    string          `json:"type"`
	ID      json.RawMessage `json:"id,omitempty"`
	Reason  string          `json:"reason"`
	Message string          `json:"message"`
}

type cancelFrame struct {
	Type   string `json:"type"`
	ID     uint64 `json:"id"`
	Reason string `json:"reason"`
}
