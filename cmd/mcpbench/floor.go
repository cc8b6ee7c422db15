package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/wasmgate/wasmgate/cmd/mcpbench/native"
)

// serveFloor serves, on addr, the floor of make bench: net/http and
// encoding/json answering what a session of mcpbench sends (initialize,
// notifications/initialized, tools/call of calculate) with no MCP library:
// the envelope decoded into a struct, the session id looked up in a map,
// the arguments decoded, the result encoded. What any Go MCP server over
// Streamable HTTP spends at least, on top of which mcp-go and wasmgate are
// measured. Everything else is refused with a JSON-RPC error.
func serveFloor(ctx context.Context, addr string, stdout io.Writer) error {
	f := &floor{}
	return native.Serve(ctx, addr, "/mcp", f, stdout)
}

type floor struct {
	sessions floorSessions
}

// floorSessions are the sessions a floor opened. Safe for concurrent use.
type floorSessions struct {
	mu  sync.RWMutex
	ids map[string]bool
}

// open opens a session and names it in w's Mcp-Session-Id.
func (s *floorSessions) open(w http.ResponseWriter) {
	id := rand.Text()
	s.mu.Lock()
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	s.ids[id] = true
	s.mu.Unlock()
	w.Header().Set("Mcp-Session-Id", id)
}

// has reports whether r names a session s opened; if not, it answers 404.
func (s *floorSessions) has(w http.ResponseWriter, r *http.Request) bool {
	s.mu.RLock()
	ok := s.ids[r.Header.Get("Mcp-Session-Id")]
	s.mu.RUnlock()
	if !ok {
		http.Error(w, "unknown session", http.StatusNotFound)
	}
	return ok
}

type floorRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name            string `json:"name"`
		ProtocolVersion string `json:"protocolVersion"`
		Arguments       struct {
			Operation string  `json:"operation"`
			A         float64 `json:"a"`
			B         float64 `json:"b"`
		} `json:"arguments"`
	} `json:"params"`
}

type floorContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type floorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *floorError     `json:"error,omitempty"`
}

type floorError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (f *floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	var req floorRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, "malformed JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	resp := floorResponse{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "initialize":
		f.sessions.open(w)
		resp.Result = map[string]any{
			"protocolVersion": req.Params.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "mcpbench-floor", "version": "1"},
		}
	case "notifications/initialized":
		w.WriteHeader(http.StatusAccepted)
		return
	case "tools/call":
		if !f.sessions.has(w, r) {
			return
		}
		if req.Params.Name != "calculate" {
			resp.Error = &floorError{Code: -32602, Message: "unknown tool " + strconv.Quote(req.Params.Name)}
			break
		}
		a := req.Params.Arguments
		text, isErr := native.Calculate(a.Operation, a.A, a.B)
		resp.Result = struct {
			Content []floorContent `json:"content"`
			IsError bool           `json:"isError,omitempty"`
		}{[]floorContent{{Type: "text", Text: text}}, isErr}
	default:
		resp.Error = &floorError{Code: -32601, Message: "method not found: " + req.Method}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}
