package server

import (
	"bytes"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// messageEnvelope is what the server reads of an incoming JSON-RPC message
// before it dispatches the message by method (wasmgate patch). It is
// decoded once per message: upstream decoded the same body up to five
// times before the method's own request type (in handlePost, in
// detectRequestEra, for HandleMessage's base message, in
// extractRequestProtocolInfo and for the trace context in params._meta).
type messageEnvelope struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  mcp.MCPMethod   `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
	Params  json.RawMessage `json:"params"`

	// id is ID decoded (nil when absent or null).
	id any
	// meta is params._meta, when params is an object that has a valid one.
	meta *mcp.Meta
	// toolCall is the tools/call request, when fastToolCall decoded it
	// with the envelope (fastenvelope.go).
	toolCall *mcp.CallToolRequest
}

// parseEnvelope decodes message's envelope. It fails exactly when
// upstream's first decoding of the message failed: when message is not
// valid JSON, or its method is not a string.
func parseEnvelope(message []byte) (*messageEnvelope, error) {
	env := &messageEnvelope{}
	if err := json.Unmarshal(message, env); err != nil {
		return nil, err
	}
	if len(env.ID) > 0 {
		_ = json.Unmarshal(env.ID, &env.id)
	}
	env.meta = paramsMeta(env.Params)
	return env, nil
}

// jsonrpc returns the jsonrpc member as a string, and false when it is
// present but not a string (or null).
func (e *messageEnvelope) jsonrpc() (string, bool) {
	var v string
	if len(e.JSONRPC) == 0 {
		return "", true
	}
	if string(e.JSONRPC) == `"`+mcp.JSONRPC_VERSION+`"` {
		return mcp.JSONRPC_VERSION, true
	}
	if err := json.Unmarshal(e.JSONRPC, &v); err != nil {
		return "", false
	}
	return v, true
}

// hasResult reports whether the message has a non-null result member.
func (e *messageEnvelope) hasResult() bool {
	return len(e.Result) > 0 && !bytes.Equal(e.Result, []byte("null"))
}

// paramsMeta decodes params._meta, or returns nil when params is not an
// object or has no valid _meta member, as upstream's decoding of
// {"params":{"_meta":...}} did.
func paramsMeta(params json.RawMessage) *mcp.Meta {
	if len(params) == 0 || params[0] != '{' {
		return nil
	}
	// encoding/json matches member names regardless of case, and a name
	// may be written with escapes: a member that decodes as _meta has a
	// '_' or a '\' in params. Most calls have neither, and skip a decoding.
	if bytes.IndexByte(params, '_') < 0 && bytes.IndexByte(params, '\\') < 0 {
		return nil
	}
	var p struct {
		Meta *mcp.Meta `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	return p.Meta
}

// decodeCallToolRequest is json.Unmarshal(message, request) for a
// tools/call message whose envelope is env, without decoding the message
// again: of the message, a CallToolRequest reads only method and params
// (its Header is not JSON, and its own params hide those of the embedded
// Request).
func decodeCallToolRequest(env *messageEnvelope, request *mcp.CallToolRequest) error {
	if env.toolCall != nil {
		*request = *env.toolCall
		return nil
	}
	request.Method = string(env.Method)
	if len(env.Params) == 0 {
		return nil
	}
	return request.Params.UnmarshalJSON(env.Params)
}
