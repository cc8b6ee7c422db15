package server

// wasmgate patch (new file, see PATCHES.md): a POST of a plain tools/call
// served without the per-request notification forwarder.
//
// handlePost starts, for every POST, a goroutine that forwards what the
// handler sends its client while it runs (progress, logging, server
// requests, broadcasts queued on the session), with two channels and a
// once-function; under one client that goroutine's start, wake-ups and
// channel operations cost about as much CPU as the JSON of the call. Most
// calls send nothing. ServeToolCall serves such a POST exactly as
// handlePost does, through the same handleMessage, but starts the
// forwarder only when the handler first sends something to its client on
// the request's stream (requestScopedSSE.start); what was queued on the
// session meanwhile is drained ahead of the response, as handlePost's
// drain does.

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// ServeToolCall serves r, a POST whose body is body, when it is a
// tools/call or tools/list request of the 2025-11-25 era on a session this server
// registered, without _meta, a task or an escape in its params, on a server
// without an event store or CORS handling, over a writer that can stream.
// It reports false, having written nothing, for anything else: the caller
// then serves r with ServeHTTP.
func (s *StreamableHTTPServer) ServeToolCall(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if r.Method != http.MethodPost || s.eventStore != nil || s.corsConfig.enabled() ||
		(s.protectedResourceMetadataHandler != nil && r.URL.Path == s.protectedResourceMetadataPath) {
		return false
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		return false
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return false
		}
	}
	env, ok := fastToolCall(body)
	if !ok {
		var err error
		if env, err = parseEnvelope(body); err != nil {
			return false
		}
	}
	if (env.Method != mcp.MethodToolsCall && env.Method != mcp.MethodToolsList) || env.id == nil || env.meta != nil ||
		env.Result != nil || env.Error != nil || !plainToolParams(env.Params) {
		return false
	}
	era := requestEraOf(r.Header, env.meta)
	if era.modern || (era.headerVersion != "" && !mcp.IsValidProtocolVersion(era.headerVersion)) {
		return false
	}
	sessionID := r.Header.Get(HeaderKeySessionID)
	if sessionID == "" {
		return false
	}
	var session *streamableHttpSession
	if v, ok := s.server.sessions.Load(sessionID); ok {
		session, _ = v.(*streamableHttpSession)
	}
	// A session that has been sent a notification (upgradeToSSE) is served
	// here too: respond answers it with an event stream, as handlePost
	// does.
	if session == nil {
		return false
	}
	if !s.disableLocalhostProtection && rejectDNSRebinding(w, r) {
		return true
	}
	var ids SessionIdManager = s.sessionIdManager
	if ids == nil {
		ids = s.sessionIdManagerResolver.ResolveSessionIdManager(r)
	}
	isTerminated, err := ids.Validate(sessionID)
	if err != nil {
		writeHTTPError(newHTTPResponseWriterAdapter(w), "Invalid session ID", http.StatusNotFound)
		return true
	}
	if isTerminated {
		writeHTTPError(newHTTPResponseWriterAdapter(w), "Session terminated", http.StatusNotFound)
		return true
	}
	s.touchSession(sessionID)

	ctx := s.server.WithContext(r.Context(), session)
	ctx = WithSupportedProtocolVersions(ctx, s.supportedProtocolVersions())
	if s.contextFunc != nil {
		ctx = s.contextFunc(ctx, r)
	}
	ctx = context.WithValue(ctx, requestHeader, r.Header)

	f := &lazyForwarder{s: s, w: w, flusher: flusher, ctx: ctx, session: session, sessionID: sessionID, done: make(chan struct{})}
	scoped := &requestScopedSSE{session: session, done: f.done}
	scoped.start = func() { f.once.Do(func() { f.begin(scoped) }) }
	scoped.register = func() {
		scoped.start()
		f.registerOnce.Do(f.register)
	}
	ctx = context.WithValue(ctx, requestScopedSSEKey{}, scoped)

	response := s.server.handleMessage(ctx, body, env)
	defer f.unregister()
	f.finish(response)
	return true
}

// plainToolParams reports whether params, a tools/call's, can hold neither
// a task nor anything encoding/json could read as one: no backslash (an
// escaped member name) and no "task" in any case (encoding/json matches
// names regardless of case).
func plainToolParams(params []byte) bool {
	if bytes.IndexByte(params, '\\') >= 0 {
		return false
	}
	for i := 0; i+4 <= len(params); i++ {
		if c := params[i]; c == 't' || c == 'T' {
			if bytes.EqualFold(params[i:i+4], []byte("task")) {
				return false
			}
		}
	}
	return true
}

// lazyForwarder is handlePost's notification forwarder, started when the
// handler first sends its client something (requestScopedSSE.start).
type lazyForwarder struct {
	s         *StreamableHTTPServer
	w         http.ResponseWriter
	flusher   http.Flusher
	ctx       context.Context
	session   *streamableHttpSession
	sessionID string
	done      chan struct{}

	once         sync.Once
	registerOnce sync.Once
	started      bool // set in begin, read after done closes
	exited       chan struct{}
	notes        chan mcp.JSONRPCNotification
	requests     chan mcp.JSONRPCRequest

	mu         sync.Mutex
	upgraded   bool
	responding atomic.Bool
	owns       atomic.Bool
}

// begin gives scoped its channels and starts the forwarder (once).
func (f *lazyForwarder) begin(scoped *requestScopedSSE) {
	f.started = true
	f.requests = make(chan mcp.JSONRPCRequest, 8)
	f.notes = make(chan mcp.JSONRPCNotification, 64)
	f.exited = make(chan struct{})
	scoped.requests, scoped.notifications = f.requests, f.notes
	go f.run()
}

// register makes responses to request-scoped server requests routable, as
// handlePost's register does.
func (f *lazyForwarder) register() {
	if _, loaded := f.s.activeSessions.LoadOrStore(f.sessionID, f.session); !loaded {
		f.owns.Store(true)
	}
}

func (f *lazyForwarder) unregister() {
	if f.owns.Load() {
		f.s.activeSessions.CompareAndDelete(f.sessionID, f.session)
	}
}

// sse switches the response to an event stream; f.mu is held.
func (f *lazyForwarder) sse() {
	if f.upgraded {
		return
	}
	h := f.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Connection", "keep-alive")
	h.Set("Cache-Control", "no-cache")
	f.w.WriteHeader(http.StatusOK)
	f.upgraded = true
}

// forward is handlePost's forward without an event store.
func (f *lazyForwarder) forward(nt mcp.JSONRPCNotification, putBack func(mcp.JSONRPCNotification)) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ctx.Err() != nil {
		// The client is gone: nobody reads this response (wasmgate patch).
		putBack(nt)
		return false
	}
	stop := false
	select {
	case <-f.done:
		stop = true
		if !f.responding.Load() {
			putBack(nt)
			return false
		}
	default:
	}
	defer f.flusher.Flush()
	f.sse()
	if err := writeSSEEvent(f.w, nt); err != nil {
		f.s.logger.Error("Failed to write SSE event", "err", err)
	}
	return !stop
}

// putBackScoped puts a notification taken off f.notes back, or drops it
// when f.notes is full.
func (f *lazyForwarder) putBackScoped(nt mcp.JSONRPCNotification) {
	select {
	case f.notes <- nt:
	default:
	}
}

func (f *lazyForwarder) run() {
	defer close(f.exited)
	defer func() {
		if r := recover(); r != nil {
			f.s.logger.Error("panic in notification forwarder", "panic", r)
		}
	}()
	for {
		select {
		case nt := <-f.notes:
			if !f.forward(nt, f.putBackScoped) {
				return
			}
		case <-f.session.queuedNotifications.wait():
			if nt, ok := f.session.queuedNotifications.take(); ok && !f.forward(nt, f.session.queuedNotifications.putBack) {
				return
			}
		case nt := <-f.session.queuedNotifications.legacyChan():
			if !f.forward(nt, f.session.queuedNotifications.putBack) {
				return
			}
		case req := <-f.requests:
			func() {
				f.mu.Lock()
				defer f.mu.Unlock()
				select {
				case <-f.done:
					return
				default:
				}
				defer f.flusher.Flush()
				f.sse()
				if err := writeSSEEvent(f.w, req); err != nil {
					f.s.logger.Error("Failed to write SSE event", "err", err)
				}
			}()
		case <-f.done:
			return
		case <-f.ctx.Done():
			return
		}
	}
}

// finish writes the response as handlePost does: what is queued for the
// session first, in order, then the response, as an event stream if
// anything went before it, else as JSON.
func (f *lazyForwarder) finish(response mcp.JSONRPCMessage) {
	// The handler has returned: nothing starts the forwarder any more
	// (once.Do returns after begin when one did).
	f.once.Do(func() {})
	f.responding.Store(true)
	close(f.done)
	if f.started {
		<-f.exited
	}
	f.mu.Lock()
	// wasmgate patch: when the client is gone (it cancelled the call),
	// what the session has queued stays queued for its next stream;
	// upstream wrote it on this response, which nobody reads.
	gone := f.ctx.Err() != nil
	for {
		var nt mcp.JSONRPCNotification
		select {
		case nt = <-f.notes: // nil unless started
		default:
			var ok bool
			if !gone {
				nt, ok = f.session.queuedNotifications.take()
			}
			if !ok {
				f.mu.Unlock()
				f.respond(response)
				return
			}
		}
		f.sse()
		if err := writeSSEEvent(f.w, nt); err != nil {
			f.s.logger.Error("Failed to write SSE event during drain", "err", err)
		}
		f.flusher.Flush()
	}
}

func (f *lazyForwarder) respond(response mcp.JSONRPCMessage) {
	if response == nil {
		if !f.upgraded {
			f.w.WriteHeader(http.StatusAccepted)
		}
		return
	}
	if f.ctx.Err() != nil {
		return
	}
	if f.session.upgradeToSSE.Load() || f.upgraded {
		f.mu.Lock()
		f.sse()
		f.mu.Unlock()
		if err := writeSSEEvent(f.w, response); err != nil {
			f.s.logger.Error("Failed to write final SSE response event", "err", err)
		}
		f.flusher.Flush()
		return
	}
	f.w.Header().Set("Content-Type", "application/json")
	f.w.WriteHeader(http.StatusOK)
	if err := encodeResponse(f.w, response); err != nil {
		f.s.logger.Error("Failed to write response", "err", err)
	}
}

// encodeResponse writes response as handlePost does
// (json.NewEncoder(w).Encode(response)); the common result, text content
// only, is written without reflection, to the same bytes
// (TestFastCallMatchesMCPGo, FuzzFastCall in wasmgate's gateway package).
func encodeResponse(w http.ResponseWriter, response mcp.JSONRPCMessage) error {
	if head, raw, ok := listResultParts(response); ok {
		// in three writes: the tools are not copied again
		for _, b := range [][]byte{head, raw, []byte("}}\n")} {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	}
	if b, ok := appendTextResult(make([]byte, 0, 256), response); ok {
		_, err := w.Write(b)
		return err
	}
	return json.NewEncoder(w).Encode(response)
}

// appendTextResult appends the JSON of a response whose result is a
// CallToolResult of text content without annotations or _meta, and
// nothing else but isError, and a newline.
func appendTextResult(b []byte, response mcp.JSONRPCMessage) ([]byte, bool) {
	r, ok := response.(mcp.JSONRPCResponse)
	if !ok || r.JSONRPC != mcp.JSONRPC_VERSION {
		return nil, false
	}
	var res *mcp.CallToolResult
	switch x := r.Result.(type) {
	case *mcp.CallToolResult:
		res = x
	case mcp.CallToolResult:
		res = &x
	default:
		return nil, false
	}
	if res == nil || res.Meta != nil || res.ResultType != "" || res.StructuredContent != nil ||
		len(res.RawStructuredContent) > 0 || len(res.InputRequests) > 0 || res.RequestState != "" {
		return nil, false
	}
	id, err := r.ID.MarshalJSON()
	if err != nil {
		return nil, false
	}
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":{"content":[`...)
	for i, c := range res.Content {
		t, ok := c.(mcp.TextContent)
		if !ok {
			p, isPtr := c.(*mcp.TextContent)
			if !isPtr || p == nil {
				return nil, false
			}
			t = *p
		}
		if t.Annotations != nil || t.Meta != nil {
			return nil, false
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = appendJSONString(b, t.Type)
		b = append(b, `,"text":`...)
		b = appendJSONString(b, t.Text)
		b = append(b, '}')
	}
	b = append(b, ']')
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, "}}\n"...), true
}

// listResultParts is the JSON of a response whose result is a
// ListToolsResult with RawTools, in parts: head, then RawTools, then
// "}}\n" (the result's end, the response's, a newline). head is the
// response up to the tools, with the rest of the result encoded as
// encoding/json does.
func listResultParts(response mcp.JSONRPCMessage) (head, raw []byte, ok bool) {
	r, ok := response.(mcp.JSONRPCResponse)
	if !ok || r.JSONRPC != mcp.JSONRPC_VERSION {
		return nil, nil, false
	}
	var res mcp.ListToolsResult
	switch x := r.Result.(type) {
	case *mcp.ListToolsResult:
		if x == nil {
			return nil, nil, false
		}
		res = *x
	case mcp.ListToolsResult:
		res = x
	default:
		return nil, nil, false
	}
	if len(res.RawTools) == 0 {
		return nil, nil, false
	}
	raw = res.RawTools
	res.Tools, res.RawTools = []mcp.Tool{}, nil
	// Tools is the result's last member.
	rest, err := json.Marshal(res)
	const empty = `[]}`
	if err != nil || !bytes.HasSuffix(rest, []byte(`"tools":`+empty)) {
		return nil, nil, false
	}
	id, err := r.ID.MarshalJSON()
	if err != nil {
		return nil, nil, false
	}
	head = make([]byte, 0, len(rest)+len(id)+32)
	head = append(head, `{"jsonrpc":"2.0","id":`...)
	head = append(head, id...)
	head = append(head, `,"result":`...)
	head = append(head, rest[:len(rest)-len(empty)]...)
	return head, raw, true
}

// appendJSONString appends s as encoding/json writes it (HTML-escaped).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
