//go:build wasip1

package pdk

import (
	"encoding/json"
	"errors"
	"fmt"

	extism "github.com/extism/go-pdk"
)

// The MCP host functions: what a plugin asks of the client whose request
// it is serving. They are hyper-mcp's (same names and JSON), so a plugin
// using them runs on wasmgate with any of its ABIs, and on hyper-mcp.
// Each acts on the client request the running export serves; called
// while the gateway loads the plugin or lists what it provides, the
// notifications do nothing and the requests fail.

//go:wasmimport extism:host/user notify_tool_list_changed
func hostNotifyToolListChanged()

//go:wasmimport extism:host/user notify_prompt_list_changed
func hostNotifyPromptListChanged()

//go:wasmimport extism:host/user notify_resource_list_changed
func hostNotifyResourceListChanged()

//go:wasmimport extism:host/user notify_resource_updated
func hostNotifyResourceUpdated(params uint64)

//go:wasmimport extism:host/user notify_progress
func hostNotifyProgress(params uint64)

//go:wasmimport extism:host/user notify_logging_message
func hostNotifyLoggingMessage(params uint64)

//go:wasmimport extism:host/user create_message
func hostCreateMessage(params uint64) uint64

//go:wasmimport extism:host/user create_elicitation
func hostCreateElicitation(params uint64) uint64

//go:wasmimport extism:host/user list_roots
func hostListRoots() uint64

// NotifyToolListChanged tells the gateway the plugin's tools changed:
// when the running call ends, the gateway lists them again (through the
// same instance) and sends notifications/tools/list_changed to every
// session. A plugin whose list lives in its globals wants instances:
// single, so that every call sees the same list.
func NotifyToolListChanged() { hostNotifyToolListChanged() }

// NotifyPromptListChanged is NotifyToolListChanged for prompts.
func NotifyPromptListChanged() { hostNotifyPromptListChanged() }

// NotifyResourceListChanged is NotifyToolListChanged for resources and
// resource templates.
func NotifyResourceListChanged() { hostNotifyResourceListChanged() }

// NotifyResourceUpdated sends notifications/resources/updated for the
// plugin's resource uri (as the plugin names it; the gateway applies the
// plugin's prefix) to the sessions subscribed to it.
func NotifyResourceUpdated(uri string) error {
	return notify(hostNotifyResourceUpdated, map[string]string{"uri": uri})
}

// Progress is a progress notification.
type Progress struct {
	Progress float64  `json:"progress"`
	Total    *float64 `json:"total,omitempty"`
	Message  string   `json:"message,omitempty"`
}

// NotifyProgress sends notifications/progress for the running request,
// with the progress token the client sent; if it sent none, nothing is
// sent.
func NotifyProgress(p Progress) error { return notify(hostNotifyProgress, p) }

// LogToClient sends notifications/message with level ("debug", "info",
// "notice", "warning", "error", "critical", "alert", "emergency") and
// data (any JSON value) to the client, if its logging level
// (logging/setLevel; "error" until it sets one) lets it through.
func LogToClient(level string, data any) error {
	return notify(hostNotifyLoggingMessage, map[string]any{"level": level, "data": data})
}

// SamplingMessage is one message of a sampling request or its answer.
// Content is an MCP content block: TextContent, or an image or audio
// block as JSON.
type SamplingMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

// CreateMessageRequest is an MCP sampling/createMessage request.
type CreateMessageRequest struct {
	Messages         []SamplingMessage `json:"messages"`
	MaxTokens        int               `json:"maxTokens"`
	SystemPrompt     string            `json:"systemPrompt,omitempty"`
	Temperature      *float64          `json:"temperature,omitempty"`
	StopSequences    []string          `json:"stopSequences,omitempty"`
	IncludeContext   string            `json:"includeContext,omitempty"`
	ModelPreferences any               `json:"modelPreferences,omitempty"`
	Metadata         any               `json:"metadata,omitempty"`
}

// CreateMessageResult is the client's answer to a sampling request.
type CreateMessageResult struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"` // an MCP content block
	Model      string          `json:"model"`
	StopReason string          `json:"stopReason,omitempty"`
}

// Text is the text of a text answer ("" for other content).
func (r CreateMessageResult) Text() string {
	var c TextContent
	_ = json.Unmarshal(r.Content, &c)
	return c.Text
}

// CreateMessage asks the client to sample a message from its model
// (sampling/createMessage) and returns its answer. It fails, without
// waiting, when the client did not declare the sampling capability, and
// when the call's time (limits.timeout) runs out first.
func CreateMessage(req CreateMessageRequest) (CreateMessageResult, error) {
	var res CreateMessageResult
	err := request(hostCreateMessage, req, &res)
	return res, err
}

// ElicitRequest is an MCP elicitation/create request (form mode):
// RequestedSchema is a JSON Schema object of flat properties.
type ElicitRequest struct {
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema"`
}

// ElicitResult is the client's answer: Action is "accept" (with
// Content), "decline" or "cancel".
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Elicit asks the user, through the client, for the input req describes
// (elicitation/create). It fails, without waiting, when the client did
// not declare the elicitation capability, and when the call's time runs
// out first. (hyper-mcp plugins read such a failure as a decline.)
func Elicit(req ElicitRequest) (ElicitResult, error) {
	var res ElicitResult
	err := request(hostCreateElicitation, req, &res)
	return res, err
}

// Root is one of the client's roots.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// ListRoots asks the client for its roots (roots/list). It fails when the
// client did not declare the roots capability.
func ListRoots() ([]Root, error) {
	off := hostListRoots()
	var res struct {
		Roots []Root `json:"roots"`
	}
	if err := decodeReply(off, &res); err != nil {
		return nil, err
	}
	return res.Roots, nil
}

// notify passes v as JSON to a notify_* host function.
func notify(fn func(uint64), v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	m, err := allocate(b)
	if err != nil {
		return err
	}
	defer m.Free()
	fn(m.Offset())
	return nil
}

// request passes v as JSON to a request host function and decodes its
// reply into out.
func request(fn func(uint64) uint64, v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	m, err := allocate(b)
	if err != nil {
		return err
	}
	defer m.Free()
	return decodeReply(fn(m.Offset()), out)
}

// decodeReply reads the reply block at off, which the guest owns: the
// answer, or an object whose "error" says why there is none.
func decodeReply(off uint64, out any) error {
	if off == 0 {
		return errors.New("wasmgate: the host returned no reply")
	}
	m := extism.FindMemory(off)
	b := m.ReadBytes()
	m.Free()
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		return errors.New(e.Error)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("wasmgate: the host's reply: %w", err)
	}
	return nil
}
