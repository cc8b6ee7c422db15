package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// The WU framework's published bridge protocol (wu-legacy): the page sends
// {"type":"auth","token":"…"} and gets {"type":"auth_result","success":…,
// "reason"?}; the relay then sends {"id","command","params"} and the page
// answers {"id","result"} or {"id","error"}. The token travels in clear, so
// a site speaking it is served only on a loopback or TLS listener.

// legacyConexion is the command the relay answers itself.
const legacyConexion = "conexion"

// legacyCommands is the WU bridge's catalog (its 17 commands) with the
// parameter schemas of its relay, published as <prefix><command>.
var legacyCommands = []struct{ name, description, schema string }{
	{"status", "Framework status: apps, store root keys, action and event counts (root keys need the readStore permission).",
		`{"type":"object","properties":{},"additionalProperties":false}`},
	{"list_apps", "The page's apps: descriptors and state.",
		`{"type":"object","properties":{},"additionalProperties":false}`},
	{"list_events", "Recent events, redacted (readDiagnostics).",
		`{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":200,"default":20,"description":"How many events (1-200, default 20)"}},"additionalProperties":false}`},
	{"list_actions", "The actions the page registered in its AI subsystem: {actions, count}. Listing grants no permission to execute.",
		`{"type":"object","properties":{},"additionalProperties":false}`},
	{"execute_action", "Execute a registered action: {action, success, result?, reason?} (executeActions and the action's permissions).",
		`{"type":"object","properties":{"action":{"type":"string","minLength":1,"description":"Action name"},"params":{"type":"object","description":"Action parameters"}},"required":["action"],"additionalProperties":false}`},
	{"get_state", "Read the store at path; an empty path reads the root: {path, value} (readStore).",
		`{"type":"object","properties":{"path":{"type":"string","description":"Dotted store path; empty for the root"}},"additionalProperties":false}`},
	{"set_state", "Write value at a nonempty store path: {path, value, updated: true} (writeStore).",
		`{"type":"object","properties":{"path":{"type":"string","minLength":1,"description":"Dotted store path"},"value":{"description":"Any JSON value"}},"required":["path","value"],"additionalProperties":false}`},
	{"emit_event", "Emit an event: {emitted, data} (emitEvents). The wu:, system: and app: namespaces are refused.",
		`{"type":"object","properties":{"event":{"type":"string","minLength":1,"maxLength":200,"not":{"pattern":"^(wu|system|app):"},"description":"Event name (1-200 characters)"},"data":{"description":"Event payload"}},"required":["event"],"additionalProperties":false}`},
	{"navigate", "Emit shell:navigate for route: {navigated: route} (emitEvents; writeStore to update currentPath).",
		`{"type":"object","properties":{"route":{"type":"string","minLength":1,"description":"Route to navigate to"}},"required":["route"],"additionalProperties":false}`},
	{"snapshot", "An app's accessible tree with a timestamp (readDOM).",
		`{"type":"object","properties":{"appName":{"type":"string","description":"App to snapshot; default the page"}},"additionalProperties":false}`},
	{"screenshot", "A DOM capture of the element matching selector, with metadata, or an error (readDOM).",
		`{"type":"object","properties":{"selector":{"type":"string","description":"CSS selector"},"quality":{"type":"number","minimum":0,"maximum":1,"default":0.8,"description":"0-1, default 0.8"}},"additionalProperties":false}`},
	{"click", "Activate the element matching selector or text, or an error (modifyDOM).",
		`{"type":"object","properties":{"selector":{"type":"string","description":"CSS selector"},"text":{"type":"string","description":"Visible text"}},"additionalProperties":false}`},
	{"type", "Type text into the element matching selector (modifyDOM); submit may submit its form.",
		`{"type":"object","properties":{"selector":{"type":"string","description":"CSS selector"},"text":{"type":"string","description":"Text to type"},"clear":{"type":"boolean","default":false},"submit":{"type":"boolean","default":false}},"required":["selector","text"],"additionalProperties":false}`},
	{"console", "Recent console entries, redacted (readDiagnostics).",
		`{"type":"object","properties":{"level":{"type":"string","enum":["all","log","warn","error"],"default":"all"},"limit":{"type":"integer","minimum":1,"maximum":500,"default":50}},"additionalProperties":false}`},
	{"network", "Recent network requests' metadata, filtered (readDiagnostics).",
		`{"type":"object","properties":{"method":{"type":"string","description":"HTTP method"},"status":{"type":"integer","minimum":100,"maximum":599},"limit":{"type":"integer","minimum":1,"maximum":500,"default":50}},"additionalProperties":false}`},
	{"mount_app", "Mount an app, optionally into container (modifyDOM).",
		`{"type":"object","properties":{"appName":{"type":"string","minLength":1},"container":{"type":"string","description":"CSS selector of the container"}},"required":["appName"],"additionalProperties":false}`},
	{"unmount_app", "Unmount an app (modifyDOM).",
		`{"type":"object","properties":{"appName":{"type":"string","minLength":1}},"required":["appName"],"additionalProperties":false}`},
}

// legacyDescriptor is the wu_* catalog under prefix, plus conexion.
func legacyDescriptor(prefix string) abi.Descriptor {
	prefix = config.NamePrefix(prefix)
	d := abi.Descriptor{Tools: []wire.Tool{{
		Name:        prefix + legacyConexion,
		Description: "The relay's connection: {puerto, host, requiere_token, app_conectada}. Needs no connected page.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
	}}}
	for _, c := range legacyCommands {
		d.Tools = append(d.Tools, wire.Tool{Name: prefix + c.name, Description: c.description, InputSchema: json.RawMessage(c.schema)})
	}
	return d
}

type legacyAuthResult struct {
	Type    string `json:"type"`
	Success bool   `json:"success"`
	Reason  string `json:"reason,omitempty"`
}

type legacyCommand struct {
	ID      uint64          `json:"id"`
	Command string          `json:"command"`
	Params  json.RawMessage `json:"params"`
}

// legacyHandshake waits for the auth frame and checks its token.
func (b *bridge) legacyHandshake(conf SiteConfig, token []byte) (string, error) {
	data, outcome, err := b.readFrame()
	if err != nil {
		return outcome, err
	}
	var f struct {
		Type  string  `json:"type"`
		Token *string `json:"token"`
	}
	if err := json.Unmarshal(data, &f); err != nil || f.Type != "auth" {
		b.reject("malformed")
		b.shutdown(closeProtocol, `expected {"type":"auth","token":...}`)
		return "malformed", errors.New("first frame is not an auth frame")
	}
	refuse := func(outcome, reason string) (string, error) {
		_ = b.send(legacyAuthResult{Type: "auth_result", Success: false, Reason: reason})
		b.shutdown(closeAuthFailed, reason)
		return outcome, errors.New(reason)
	}
	switch {
	case token == nil: // insecure: true, no token configured
	case f.Token == nil || *f.Token == "":
		return refuse("no_token", "token required")
	case !tokenEqual(*f.Token, token):
		return refuse("bad_proof", "invalid token")
	}
	if !b.authenticate() {
		return "timeout", errors.New("auth_timeout passed")
	}
	if holder := b.meshClaim(); holder != "" {
		_ = b.send(legacyAuthResult{Type: "auth_result", Success: false, Reason: "another page is connected to this site"})
		b.shutdown(closeBusy, fmt.Sprintf("site %s already has a connected page (on replica %s)", conf.Name, holder))
		return "busy", fmt.Errorf("a page on replica %s serves the site", holder)
	}
	if !b.st.claim(b) {
		_ = b.send(legacyAuthResult{Type: "auth_result", Success: false, Reason: "another page is connected to this site"})
		b.shutdown(closeBusy, fmt.Sprintf("site %s already has a connected page", conf.Name))
		return "busy", errors.New("another page serves the site")
	}
	b.r.meshPublish(b.st)
	if err := b.send(legacyAuthResult{Type: "auth_result", Success: true}); err != nil {
		b.st.release(b)
		return "closed", err
	}
	return "ok", nil
}

// legacyFrame handles one frame from an authenticated WU page; it
// returns why the bridge ends, or "".
func (b *bridge) legacyFrame(data []byte) string {
	var f struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &f); err != nil || !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		b.reject("malformed")
		b.shutdown(closeProtocol, "not a JSON object")
		return "protocol error: a frame is not a JSON object"
	}
	if len(f.ID) == 0 || bytes.Equal(f.ID, []byte("null")) {
		b.reject("unexpected") // a frame that answers nothing: ignored
		return ""
	}
	id, ok := legacyID(f.ID)
	if !ok {
		b.reject("unknown_id")
		return ""
	}
	rep := reply{result: f.Result}
	if len(f.Error) > 0 && !bytes.Equal(f.Error, []byte("null")) {
		rep = reply{err: &PageError{Message: legacyErrorText(f.Error)}}
	}
	b.deliver(id, rep)
	return ""
}

// legacyID parses an id the page echoed: a number, or a string of one.
func legacyID(raw json.RawMessage) (uint64, bool) {
	s := string(raw)
	if uq, err := strconv.Unquote(s); err == nil {
		s = uq
	}
	id, err := strconv.ParseUint(s, 10, 64)
	return id, err == nil && id > 0
}

// legacyErrorText is the message of an error field: the string itself,
// an object's message, or the JSON.
func legacyErrorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &o) == nil && o.Message != "" {
		return o.Message
	}
	return string(raw)
}

// callLegacy runs a WU command: conexion here, the others on the page.
// The result is its JSON as text; an error field, or a result holding
// one (a permission denial), is isError.
func (s *Site) callLegacy(ctx context.Context, command string, args json.RawMessage) (*mcp.CallToolResult, error) {
	if command == legacyConexion {
		return s.conexion(), nil
	}
	b, err := s.page()
	if err != nil {
		return nil, err
	}
	rep, err := b.call(ctx, s, func(id uint64) any {
		return legacyCommand{ID: id, Command: command, Params: args}
	})
	if err != nil {
		return nil, err
	}
	if rep.err != nil {
		return mcp.NewToolResultError(rep.err.Message), nil
	}
	result := rep.result
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, result); err != nil {
		return nil, s.invalid(err)
	}
	res := mcp.NewToolResultText(compact.String())
	var inner struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(result, &inner) == nil && len(inner.Error) > 0 &&
		!bytes.Equal(inner.Error, []byte("null")) && !bytes.Equal(inner.Error, []byte("false")) {
		res.IsError = true
	}
	return res, nil
}

// conexion is wu_conexion's answer: the relay's listener, whether a
// token is required and whether a page is connected.
func (s *Site) conexion() *mcp.CallToolResult {
	l := s.st.r.listenerInfo()
	host, port, _ := net.SplitHostPort(l.Addr)
	n, _ := strconv.Atoi(port)
	_, token := s.st.settings()
	v := struct {
		Puerto        int    `json:"puerto"`
		Host          string `json:"host"`
		RequiereToken bool   `json:"requiere_token"`
		AppConectada  bool   `json:"app_conectada"`
	}{n, strings.Trim(host, "[]"), token != nil, s.Connected()}
	b, _ := json.Marshal(v)
	return mcp.NewToolResultText(string(b))
}
