package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"
)

// The floor of the idle-session measurement: an MCP-shaped HTTP server
// written with net/http alone (no mcp-go, no gateway) that serves exactly
// what openSession sends: POST initialize answered with an Mcp-Session-Id
// and a minimal result, POST notifications/initialized answered 202, GET
// answered with text/event-stream headers, flushed and held until the
// client goes, one map entry per session. With an upstream, a tools/call
// of up_<tool> is forwarded to the upstream in a session of the
// downstream session's own, opened at its first call (initialize,
// notifications/initialized, its Mcp-Session-Id kept), over one client
// whose kept-alive connections every session shares: what a per_client
// upstream session costs at least. Like the gateway's per_client
// sessions (gateway/upstream/dialhttp.go: only the shared connection
// listens continuously), it opens no GET stream to the upstream.
//
// It runs as a process of its own, `scalebench floor-server`, so that its
// resident memory is measured as the gateway's is. /floor/stats answers
// the Go runtime's figures the gateway's /metrics gives (go_goroutines,
// go_memstats_stack_inuse_bytes, go_memstats_heap_inuse_bytes), after a
// collection with ?gc=1.

// floorStatsPath is where the floor server answers its runtime figures.
const floorStatsPath = "/floor/stats"

// floorMain is `scalebench floor-server`: it serves the floor on -listen
// (printing "serving http://ADDR/mcp") until ctx ends.
func floorMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("scalebench floor-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:0", "the loopback host:port to serve on")
	upstream := fs.String("upstream-url", "", "an MCP server (Streamable HTTP) whose tools are called as up_<tool>, in a session of each downstream session's own")
	concurrency := fs.Int("upstream-idle-conns", 1024, "kept-alive connections to the upstream (the gateway's per-upstream limits.concurrency)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("floor server: %w", err)
	}
	f := newFloor(*upstream, *concurrency)
	mux := http.NewServeMux()
	mux.Handle("/mcp", f)
	mux.HandleFunc(floorStatsPath, floorStats)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "serving http://%s/mcp\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("floor server: %w", err)
	case <-ctx.Done():
	}
	// The held GET streams end with their connections.
	_ = srv.Close()
	<-done
	f.hc.CloseIdleConnections()
	return nil
}

// floor is the floor server's MCP handler.
type floor struct {
	upstream string       // the upstream's URL, or ""
	hc       *http.Client // to the upstream

	mu       sync.Mutex
	sessions map[string]*floorSession
}

// floorSession is one session's entry.
type floorSession struct {
	mu       sync.Mutex
	upstream string // its upstream session's id, once opened
}

func newFloor(upstream string, idleConns int) *floor {
	return &floor{
		upstream: upstream,
		hc:       &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: idleConns, DisableCompression: true}},
		sessions: map[string]*floorSession{},
	}
}

// floorRequest is what the floor reads of a JSON-RPC message.
type floorRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
}

// floorInitResult is the result of initialize.
const floorInitResult = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"scalebench-floor","version":"1"}}`

func (f *floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	switch r.Method {
	case http.MethodGet:
		if f.session(id) == nil {
			http.Error(w, "unknown session", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		if err := http.NewResponseController(w).Flush(); err != nil {
			return
		}
		<-r.Context().Done()
	case http.MethodDelete:
		f.mu.Lock()
		delete(f.sessions, id)
		f.mu.Unlock()
	case http.MethodPost:
		f.post(w, r, id)
	default:
		http.Error(w, "GET, POST or DELETE", http.StatusMethodNotAllowed)
	}
}

func (f *floor) session(id string) *floorSession {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[id]
}

func (f *floor) post(w http.ResponseWriter, r *http.Request, id string) {
	var req floorRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		http.Error(w, "malformed JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	if req.Method == "initialize" {
		sid := rand.Text()
		f.mu.Lock()
		f.sessions[sid] = &floorSession{}
		f.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", sid)
		writeResult(w, req.ID, []byte(floorInitResult))
		return
	}
	s := f.session(id)
	if s == nil {
		http.Error(w, "unknown session", http.StatusNotFound)
		return
	}
	switch {
	case req.ID == nil: // a notification
		w.WriteHeader(http.StatusAccepted)
	case req.Method == "tools/call" && f.upstream != "" && strings.HasPrefix(req.Params.Name, "up_"):
		result, err := f.call(r.Context(), s, strings.TrimPrefix(req.Params.Name, "up_"), req.Params.Arguments)
		if err != nil {
			writeError(w, req.ID, -32603, err.Error())
			return
		}
		writeResult(w, req.ID, result)
	default:
		writeError(w, req.ID, -32601, "method not found: "+req.Method)
	}
}

// call makes tools/call name(args) in s's upstream session, opening it
// first if s has none yet, and returns the result as the upstream sent it.
func (f *floor) call(ctx context.Context, s *floorSession, name string, args json.RawMessage) (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.upstream == "" {
		resp, sid, err := f.upstreamPost(ctx, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"scalebench-floor","version":"1"}}}`)
		if err != nil {
			return nil, fmt.Errorf("upstream initialize: %w", err)
		}
		if resp.Error != nil || sid == "" {
			return nil, fmt.Errorf("upstream initialize: error %s, session %q", resp.Error, sid)
		}
		if _, _, err := f.upstreamPost(ctx, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
			return nil, fmt.Errorf("upstream initialized: %w", err)
		}
		s.upstream = sid
	}
	if args == nil {
		args = json.RawMessage("{}")
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	if err != nil {
		return nil, err
	}
	resp, _, err := f.upstreamPost(ctx, s.upstream, string(body))
	if err != nil {
		return nil, fmt.Errorf("upstream tools/call: %w", err)
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("upstream tools/call: %s", resp.Error)
	}
	return resp.Result, nil
}

// upstreamResponse is a JSON-RPC response of the upstream.
type upstreamResponse struct {
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// upstreamPost posts body in the upstream session sid ("" for none) and
// returns the response (none for a notification's 202) and the
// Mcp-Session-Id the upstream answered.
func (f *floor) upstreamPost(ctx context.Context, sid, body string) (upstreamResponse, string, error) {
	var out upstreamResponse
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.upstream, strings.NewReader(body))
	if err != nil {
		return out, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := f.hc.Do(req)
	if err != nil {
		return out, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return out, "", err
	}
	switch {
	case resp.StatusCode == http.StatusAccepted:
		return out, resp.Header.Get("Mcp-Session-Id"), nil
	case resp.StatusCode != http.StatusOK:
		return out, "", fmt.Errorf("%s: %.200s", resp.Status, b)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		if b, err = lastEventData(b); err != nil {
			return out, "", err
		}
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return out, "", fmt.Errorf("decoding the response: %w", err)
	}
	return out, resp.Header.Get("Mcp-Session-Id"), nil
}

// lastEventData is the data of the last event of an SSE body (the
// response; notifications may come before it).
func lastEventData(b []byte) ([]byte, error) {
	var data []byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
			data = append(data[:0], bytes.TrimSpace(v)...)
		}
	}
	if data == nil {
		return nil, errors.New("an event stream without data")
	}
	return data, sc.Err()
}

func writeResult(w http.ResponseWriter, id, result json.RawMessage) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
	}{"2.0", id, result})
}

func writeError(w http.ResponseWriter, id json.RawMessage, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	_ = json.NewEncoder(w).Encode(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, msg}})
}

// floorStats answers the runtime's figures, under the names of the
// gateway's Go collector; ?gc=1 collects first.
func floorStats(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("gc") == "1" {
		runtime.GC()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]float64{
		"go_goroutines":                 float64(runtime.NumGoroutine()),
		"go_memstats_stack_inuse_bytes": float64(m.StackInuse),
		"go_memstats_heap_inuse_bytes":  float64(m.HeapInuse),
	})
}
