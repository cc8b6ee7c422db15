// Package interceptortest is an interceptor server for tests: it speaks
// the server's side of the MCP interceptors draft (SEP-2624:
// interceptors/list and interceptor/invoke) over Streamable HTTP POST,
// with the initialize handshake and Mcp-Session-Id sessions, and offers
// interceptors a test sets up and can change while it runs: deny a tool,
// lower-case an argument, replace a word in results, hang, crash, answer
// garbage.
//
// It implements the protocol from the draft, not from package
// gateway/intercept/remote (which it does not import), so that the
// client is checked against the written protocol.
package interceptortest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Interceptor is one interceptor the server offers.
type Interceptor struct {
	Name string
	// Type is "validation" or "mutation".
	Type string
	// Events are the events it hooks ("*" for all).
	Events []string
	// Phases are "request", "response" or both: one hook each.
	Phases []string
	// Mode is "" (active, left out of the list) or "audit".
	Mode string
	// FailOpen is advertised when set.
	FailOpen bool
	// Priority is the priorityHint, advertised when not nil.
	Priority *int64
	// Handle answers an invocation with the result's own fields
	// ({"valid": ...} or {"modified": ..., "payload": ...}); the server
	// adds interceptor, type, phase and durationMs. An error is answered
	// as the draft's -32603 "interceptor execution failed".
	Handle func(ctx context.Context, inv Invocation) (map[string]any, error)
	// RawResponse, when set, is the whole HTTP body of every answer to
	// an invocation of this interceptor, sent as application/json.
	RawResponse string
}

// Invocation is an interceptor/invoke the server received.
type Invocation struct {
	Name      string          `json:"name"`
	Event     string          `json:"event"`
	Phase     string          `json:"phase"`
	Payload   json.RawMessage `json:"payload"`
	TimeoutMs int64           `json:"timeoutMs"`
	Context   json.RawMessage `json:"context"`
	Config    json.RawMessage `json:"config"`
	// Header is the HTTP request's header.
	Header http.Header `json:"-"`
}

// Server is an interceptor server on 127.0.0.1.
type Server struct {
	// URL is its MCP endpoint.
	URL string

	srv  *httptest.Server
	life context.Context
	end  context.CancelFunc
	once sync.Once

	mu          sync.Mutex
	ics         []Interceptor
	pageSize    int
	sessions    map[string]bool
	invocations []Invocation
	lists       int
}

// Start serves ics until the end of the test.
func Start(tb testing.TB, ics ...Interceptor) *Server {
	tb.Helper()
	s := &Server{sessions: map[string]bool{}, ics: ics}
	s.life, s.end = context.WithCancel(context.Background())
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/mcp"
	tb.Cleanup(s.Close)
	return s
}

// Close stops the server; invocations that hang end.
func (s *Server) Close() {
	s.once.Do(func() {
		s.end()
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Set replaces the interceptors the server offers.
func (s *Server) Set(ics ...Interceptor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ics = ics
}

// SetPageSize makes interceptors/list answer n interceptors a page (all
// when 0).
func (s *Server) SetPageSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageSize = n
}

// Invocations are the invocations received so far, in order.
func (s *Server) Invocations() []Invocation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.invocations)
}

// Lists is how many interceptors/list requests the server answered.
func (s *Server) Lists() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lists
}

// EndSessions forgets every session, as a restarted server would: the
// next request of a session gets 404.
func (s *Server) EndSessions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.sessions)
}

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		s.mu.Lock()
		delete(s.sessions, r.Header.Get("Mcp-Session-Id"))
		s.mu.Unlock()
		return
	default:
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var req request
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<20)).Decode(&req); err != nil || req.JSONRPC != "2.0" || req.Method == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"jsonrpc": "2.0", "id": nil, "error": rpcError{Code: -32700, Message: "parse error"}})
		return
	}
	if len(req.ID) == 0 || string(req.ID) == "null" { // a notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if req.Method == "initialize" {
		s.initialize(w, req)
		return
	}
	s.mu.Lock()
	known := s.sessions[r.Header.Get("Mcp-Session-Id")]
	s.mu.Unlock()
	if !known {
		http.Error(w, "unknown session", http.StatusNotFound)
		return
	}
	var (
		result any
		rerr   *rpcError
	)
	switch req.Method {
	case "ping":
		result = map[string]any{}
	case "interceptors/list":
		result, rerr = s.list(req.Params)
	case "interceptor/invoke":
		var raw string
		result, raw, rerr = s.invoke(r, req.Params)
		if raw != "" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(raw))
			return
		}
	default:
		rerr = &rpcError{Code: -32601, Message: "method not found: " + req.Method}
	}
	if rerr != nil {
		writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": rerr})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
}

func (s *Server) initialize(w http.ResponseWriter, req request) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(req.Params, &p)
	if p.ProtocolVersion == "" {
		p.ProtocolVersion = "2025-06-18"
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	sid := hex.EncodeToString(id)
	s.mu.Lock()
	s.sessions[sid] = true
	s.mu.Unlock()
	w.Header().Set("Mcp-Session-Id", sid)
	writeJSON(w, http.StatusOK, map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": map[string]any{
		"protocolVersion": p.ProtocolVersion,
		"capabilities": map[string]any{"extensions": map[string]any{
			"io.modelcontextprotocol/interceptors": map[string]any{},
		}},
		"serverInfo": map[string]any{"name": "interceptortest", "version": "1"},
	}})
}

// descriptor is ic as interceptors/list shows it: defaults left out.
func descriptor(ic Interceptor) map[string]any {
	hooks := []map[string]any{}
	for _, ph := range ic.Phases {
		hooks = append(hooks, map[string]any{"events": ic.Events, "phase": ph})
	}
	d := map[string]any{"name": ic.Name, "type": ic.Type, "hooks": hooks}
	if ic.Mode != "" {
		d["mode"] = ic.Mode
	}
	if ic.FailOpen {
		d["failOpen"] = true
	}
	if ic.Priority != nil {
		d["priorityHint"] = *ic.Priority
	}
	return d
}

func (ic Interceptor) hooks(event, phase string) bool {
	return slices.Contains(ic.Phases, phase) && (slices.Contains(ic.Events, event) || slices.Contains(ic.Events, "*"))
}

func (s *Server) list(raw json.RawMessage) (any, *rpcError) {
	var p struct {
		Event  string `json:"event"`
		Cursor string `json:"cursor"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, &rpcError{Code: -32602, Message: "malformed params"}
		}
	}
	if p.Event == "*" {
		return nil, &rpcError{Code: -32602, Message: "event must be a concrete event name"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists++
	var all []map[string]any
	for _, ic := range s.ics {
		if p.Event == "" || slices.Contains(ic.Events, p.Event) || slices.Contains(ic.Events, "*") {
			all = append(all, descriptor(ic))
		}
	}
	start := 0
	if p.Cursor != "" {
		if _, err := fmt.Sscanf(p.Cursor, "page-%d", &start); err != nil || start < 0 || start > len(all) {
			return nil, &rpcError{Code: -32602, Message: "bad cursor"}
		}
	}
	end := len(all)
	if s.pageSize > 0 && start+s.pageSize < end {
		end = start + s.pageSize
	}
	res := map[string]any{"interceptors": append([]map[string]any{}, all[start:end]...)}
	if end < len(all) {
		res["nextCursor"] = fmt.Sprintf("page-%d", end)
	}
	return res, nil
}

func (s *Server) invoke(r *http.Request, raw json.RawMessage) (any, string, *rpcError) {
	var inv Invocation
	if err := json.Unmarshal(raw, &inv); err != nil || inv.Name == "" || inv.Event == "" {
		return nil, "", &rpcError{Code: -32602, Message: "malformed params"}
	}
	if inv.Phase != "request" && inv.Phase != "response" {
		return nil, "", &rpcError{Code: -32602, Message: "malformed params: phase"}
	}
	inv.Header = r.Header.Clone()
	s.mu.Lock()
	i := slices.IndexFunc(s.ics, func(ic Interceptor) bool { return ic.Name == inv.Name })
	var ic Interceptor
	if i >= 0 {
		ic = s.ics[i]
		s.invocations = append(s.invocations, inv)
	}
	s.mu.Unlock()
	if i < 0 {
		return nil, "", &rpcError{Code: -32602, Message: fmt.Sprintf("interceptor %q not found", inv.Name), Data: map[string]any{"name": inv.Name}}
	}
	if !ic.hooks(inv.Event, inv.Phase) {
		return nil, "", &rpcError{Code: -32602, Message: "Hook not advertised by interceptor", Data: map[string]any{
			"name": inv.Name, "event": inv.Event, "phase": inv.Phase, "advertisedHooks": descriptor(ic)["hooks"]}}
	}
	if ic.RawResponse != "" {
		return nil, ic.RawResponse, nil
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.life, cancel) // the server's Close ends hung handlers
	defer stop()
	start := time.Now()
	fields, err := ic.Handle(ctx, inv)
	if err != nil {
		return nil, "", &rpcError{Code: -32603, Message: "Interceptor execution failed", Data: map[string]any{"interceptor": inv.Name, "reason": err.Error()}}
	}
	res := map[string]any{"interceptor": inv.Name, "type": ic.Type, "phase": inv.Phase, "durationMs": time.Since(start).Milliseconds()}
	for k, v := range fields {
		res[k] = v
	}
	return res, "", nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// toolCall is a tools/call request payload.
type toolCall struct {
	Method string `json:"method"`
	Params struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"params"`
}

// DenyTool is a validator of tools/call requests that denies calls of
// tool with message.
func DenyTool(name, tool, message string) Interceptor {
	return Interceptor{Name: name, Type: "validation", Events: []string{"tools/call"}, Phases: []string{"request"},
		Handle: func(_ context.Context, inv Invocation) (map[string]any, error) {
			var c toolCall
			if err := json.Unmarshal(inv.Payload, &c); err != nil {
				return nil, fmt.Errorf("payload is not a tools/call request: %w", err)
			}
			if c.Params.Name != tool {
				return map[string]any{"valid": true}, nil
			}
			return map[string]any{"valid": false, "severity": "error", "messages": []map[string]any{
				{"path": "params.name", "message": message, "severity": "error"}}}, nil
		}}
}

// LowerArgument is a mutator of tools/call requests that lower-cases the
// string argument field.
func LowerArgument(name, field string) Interceptor {
	return Interceptor{Name: name, Type: "mutation", Events: []string{"tools/call"}, Phases: []string{"request"},
		Handle: func(_ context.Context, inv Invocation) (map[string]any, error) {
			var c map[string]any
			if err := json.Unmarshal(inv.Payload, &c); err != nil {
				return nil, err
			}
			params, _ := c["params"].(map[string]any)
			args, _ := params["arguments"].(map[string]any)
			v, ok := args[field].(string)
			if !ok || strings.ToLower(v) == v {
				return map[string]any{"modified": false, "payload": inv.Payload}, nil
			}
			args[field] = strings.ToLower(v)
			return map[string]any{"modified": true, "payload": c}, nil
		}}
}

// ReplaceWord is a mutator of the results of tools/call, resources/read
// and prompts/get that replaces old with new in every string.
func ReplaceWord(name, old, new string) Interceptor {
	return Interceptor{Name: name, Type: "mutation", Events: []string{"tools/call", "resources/read", "prompts/get"}, Phases: []string{"response"},
		Handle: func(_ context.Context, inv Invocation) (map[string]any, error) {
			var v any
			if err := json.Unmarshal(inv.Payload, &v); err != nil {
				return nil, err
			}
			changed := false
			v = walkStrings(v, func(s string) string {
				r := strings.ReplaceAll(s, old, new)
				changed = changed || r != s
				return r
			})
			if !changed {
				return map[string]any{"modified": false, "payload": inv.Payload}, nil
			}
			return map[string]any{"modified": true, "payload": v}, nil
		}}
}

func walkStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = walkStrings(x[i], f)
		}
	case map[string]any:
		for k := range x {
			x[k] = walkStrings(x[k], f)
		}
	}
	return v
}

// Hang is a validator of tools/call in both phases that never answers
// (it ignores timeoutMs) until the request or the server ends.
func Hang(name string) Interceptor {
	return Interceptor{Name: name, Type: "validation", Events: []string{"tools/call"}, Phases: []string{"request", "response"},
		Handle: func(ctx context.Context, _ Invocation) (map[string]any, error) {
			<-ctx.Done()
			return nil, errors.New("ended while hanging")
		}}
}

// Crash is a validator of tools/call requests whose every invocation
// fails (a -32603 error).
func Crash(name string) Interceptor {
	return Interceptor{Name: name, Type: "validation", Events: []string{"tools/call"}, Phases: []string{"request"},
		Handle: func(context.Context, Invocation) (map[string]any, error) {
			return nil, errors.New("crashed")
		}}
}

// Allow is a validator of every event in both phases that passes
// everything.
func Allow(name string) Interceptor {
	return Interceptor{Name: name, Type: "validation", Events: []string{"*"}, Phases: []string{"request", "response"},
		Handle: func(context.Context, Invocation) (map[string]any, error) {
			return map[string]any{"valid": true}, nil
		}}
}

// Garbage is a validator of tools/call requests that answers body, as
// is, to every invocation.
func Garbage(name, body string) Interceptor {
	return Interceptor{Name: name, Type: "validation", Events: []string{"tools/call"}, Phases: []string{"request"}, RawResponse: body}
}
