package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"

	// maxResponseBytes bounds how much of one response body is read.
	maxResponseBytes = 8 << 20
	// maxReasonsPerClient bounds the failure reasons a client keeps.
	maxReasonsPerClient = 5
)

// newTransport returns an HTTP/1.1 keep-alive transport sized for clients
// concurrent sessions, whose dialer only connects to loopback addresses.
func newTransport(clients int) *http.Transport {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		DialContext:         loopbackDialer(dialer),
		MaxIdleConns:        clients + 8,
		MaxIdleConnsPerHost: clients + 8,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 5 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
}

// loopbackDialer resolves the target and dials only its loopback addresses,
// so that a name such as localhost can never lead to another machine.
func loopbackDialer(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", addr, err)
		}
		if err := checkLoopbackHost(host); err != nil {
			return nil, fmt.Errorf("dial %s: %w", addr, err)
		}
		ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, fmt.Errorf("dial %s: resolving: %w", addr, err)
		}
		var lastErr error = fmt.Errorf("dial %s: no loopback address for %s", addr, host)
		for _, ip := range ips {
			if !ip.Unmap().IsLoopback() {
				continue
			}
			conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
			if err != nil {
				lastErr = err
				continue
			}
			if !isLoopbackAddr(conn.RemoteAddr()) {
				conn.Close()
				lastErr = fmt.Errorf("dial %s: peer %s is not a loopback address", addr, conn.RemoteAddr())
				continue
			}
			return conn, nil
		}
		return nil, lastErr
	}
}

// rpcResponse is the part of a JSON-RPC message the driver looks at.
type rpcResponse struct {
	ID     int64       `json:"id"`
	Method string      `json:"method"` // set on notifications and server requests
	Result *toolResult `json:"result"`
	Error  *rpcError   `json:"error"`
}

type toolResult struct {
	Content []toolContent `json:"content"`
	IsError bool          `json:"isError"`
}

type toolContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// firstText returns the text of the first content item of type "text".
func (r *toolResult) firstText() (string, bool) {
	for _, c := range r.Content {
		if c.Type == "text" {
			return c.Text, true
		}
	}
	return "", false
}

// session is one MCP client session. It is used by one goroutine at a time;
// its buffers are reused from call to call.
type session struct {
	rt        http.RoundTripper
	cfg       *config
	id        string // Mcp-Session-Id, empty if the server is stateless
	version   string // negotiated protocol version
	tmpl      *http.Request
	prefix    []byte // request body up to the id
	suffix    []byte // request body after the id
	nextID    int64
	reqBuf    []byte
	reader    *bytes.Reader
	body      io.ReadCloser // io.NopCloser(reader)
	respBuf   []byte
	sseBuf    []byte
	msg       rpcResponse
	hasExpect bool
	expect    string
}

// openSession performs the initialize handshake and prepares the tools/call
// request template; bind must be called before the first call.
func openSession(ctx context.Context, rt http.RoundTripper, cfg *config) (*session, error) {
	s := &session{
		rt:        rt,
		cfg:       cfg,
		nextID:    1,
		hasExpect: cfg.hasExpect,
		expect:    cfg.expect,
	}

	initBody, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      0,
		"method":  "initialize",
		"params": map[string]any{
			"protocolVersion": cfg.protocolVersion,
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]any{"name": "mcpbench", "version": "0.1.0"},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("encoding initialize: %w", err)
	}
	resp, body, err := s.post(ctx, initBody)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("initialize: HTTP %d: %s", resp.StatusCode, snippet(body))
	}
	var init struct {
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
		Error *rpcError `json:"error"`
	}
	payload, err := jsonRPCPayload(resp.Header.Get("Content-Type"), body)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := json.Unmarshal(payload, &init); err != nil {
		return nil, fmt.Errorf("initialize: decoding response: %w", err)
	}
	if init.Error != nil {
		return nil, fmt.Errorf("initialize: JSON-RPC error %d: %s", init.Error.Code, init.Error.Message)
	}
	if init.Result == nil || init.Result.ProtocolVersion == "" {
		return nil, fmt.Errorf("initialize: response has no protocolVersion: %s", snippet(payload))
	}
	s.id = resp.Header.Get(headerSessionID)
	s.version = init.Result.ProtocolVersion

	resp, body, err = s.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		_ = s.close(ctx)
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		_ = s.close(ctx)
		return nil, fmt.Errorf("notifications/initialized: HTTP %d: %s", resp.StatusCode, snippet(body))
	}

	tool, err := json.Marshal(cfg.tool)
	if err != nil {
		return nil, fmt.Errorf("encoding tool name: %w", err)
	}
	s.prefix = []byte(`{"jsonrpc":"2.0","id":`)
	s.suffix = fmt.Appendf(nil, `,"method":"tools/call","params":{"name":%s,"arguments":%s}}`, tool, cfg.args)

	s.tmpl, err = http.NewRequestWithContext(context.Background(), http.MethodPost, cfg.url.String(), nil)
	if err != nil {
		_ = s.close(ctx)
		return nil, fmt.Errorf("building tools/call request: %w", err)
	}
	s.tmpl.Header = s.headers()
	s.newBuffers()
	return s, nil
}

// bind makes every following call run under ctx.
func (s *session) bind(ctx context.Context) {
	s.tmpl = s.tmpl.WithContext(ctx)
}

// headers returns the headers of a request within the session.
func (s *session) headers() http.Header {
	h := make(http.Header, 6)
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if s.cfg.token != "" {
		h.Set("Authorization", "Bearer "+s.cfg.token)
	}
	if s.id != "" {
		h.Set(headerSessionID, s.id)
	}
	if s.version != "" {
		h.Set(headerProtocolVersion, s.version)
	}
	return h
}

// post sends one JSON-RPC message outside the hot loop and returns the
// response with its body read and closed.
func (s *session) post(ctx context.Context, msg []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.url.String(), bytes.NewReader(msg))
	if err != nil {
		return nil, nil, fmt.Errorf("building request: %w", err)
	}
	req.Header = s.headers()
	return s.do(req)
}

func (s *session) do(req *http.Request) (*http.Response, []byte, error) {
	resp, err := s.rt.RoundTrip(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := readBody(nil, resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("reading response: %w", err)
	}
	return resp, body, nil
}

// close terminates the session with DELETE. A 405 means the server does not
// let clients end sessions, which the spec allows.
func (s *session) close(ctx context.Context) error {
	if s.id == "" {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.cfg.url.String(), nil)
	if err != nil {
		return fmt.Errorf("building DELETE: %w", err)
	}
	req.Header = s.headers()
	req.Header.Del("Content-Type")
	resp, body, err := s.do(req)
	if err != nil {
		return fmt.Errorf("DELETE session: %w", err)
	}
	if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusMethodNotAllowed {
		return fmt.Errorf("DELETE session: HTTP %d: %s", resp.StatusCode, snippet(body))
	}
	return nil
}

// call performs one tools/call and checks the result. It is the hot path:
// the request body is spliced into a reused buffer and only the fields the
// check needs are decoded.
func (s *session) call() error {
	id := s.nextID
	s.nextID++
	s.reqBuf = append(s.reqBuf[:0], s.prefix...)
	s.reqBuf = strconv.AppendInt(s.reqBuf, id, 10)
	s.reqBuf = append(s.reqBuf, s.suffix...)
	s.reader.Reset(s.reqBuf)

	req := s.tmpl.WithContext(s.tmpl.Context()) // shallow copy of the template
	req.Body = s.body
	req.ContentLength = int64(len(s.reqBuf))

	resp, err := s.rt.RoundTrip(req)
	if err != nil {
		s.abandonBuffers()
		return fmt.Errorf("tools/call id %d: %w", id, err)
	}
	s.respBuf, err = readBody(s.respBuf[:0], resp.Body)
	resp.Body.Close()
	if err != nil {
		s.abandonBuffers()
		return fmt.Errorf("tools/call id %d: reading response: %w", id, err)
	}
	if resp.StatusCode != http.StatusOK {
		s.abandonBuffers()
		return fmt.Errorf("tools/call id %d: HTTP %d: %s", id, resp.StatusCode, snippet(s.respBuf))
	}
	if err := s.checkResponse(resp.Header.Get("Content-Type"), id); err != nil {
		return fmt.Errorf("tools/call id %d: %w", id, err)
	}
	return nil
}

// abandonBuffers drops the request buffers after a failed exchange. Once a
// response body has been read to EOF the transport has finished writing the
// request, so the buffers are reused; after a failure the write may still be
// in flight, so fresh ones are used from then on.
func (s *session) abandonBuffers() {
	s.reqBuf = nil
	s.newBuffers()
}

// newBuffers sets up the request body. It is an io.NopCloser around a
// *bytes.Reader because net/http recognises that pair as an in-memory body
// and sends headers and body in one write instead of flushing the headers
// first.
func (s *session) newBuffers() {
	s.reader = bytes.NewReader(nil)
	s.body = io.NopCloser(s.reader)
}

// checkResponse finds the JSON-RPC response in s.respBuf (plain JSON or an
// SSE stream) and checks it against the call with the given id.
func (s *session) checkResponse(contentType string, id int64) error {
	if !isEventStream(contentType) {
		if !isJSON(contentType) {
			return fmt.Errorf("unexpected Content-Type %q", contentType)
		}
		s.msg = rpcResponse{ID: -1}
		if err := json.Unmarshal(s.respBuf, &s.msg); err != nil {
			return fmt.Errorf("decoding response: %w", err)
		}
		return s.checkResult(id)
	}
	rest := s.respBuf
	for {
		var data []byte
		var ok bool
		data, rest, s.sseBuf, ok = nextSSEEvent(rest, s.sseBuf)
		if !ok {
			return errors.New("event stream ended without a JSON-RPC response")
		}
		if len(data) == 0 {
			continue // e.g. a priming event that only carries an event id
		}
		s.msg = rpcResponse{ID: -1}
		if err := json.Unmarshal(data, &s.msg); err != nil {
			return fmt.Errorf("decoding SSE data: %w", err)
		}
		if s.msg.Method != "" {
			continue // a notification or server request sent before the response
		}
		return s.checkResult(id)
	}
}

func (s *session) checkResult(id int64) error {
	m := &s.msg
	if m.Error != nil {
		return fmt.Errorf("JSON-RPC error %d: %s", m.Error.Code, m.Error.Message)
	}
	if m.ID != id {
		return fmt.Errorf("response id %d does not match request id %d", m.ID, id)
	}
	if m.Result == nil {
		return errors.New("response has neither result nor error")
	}
	text, hasText := m.Result.firstText()
	if m.Result.IsError {
		return fmt.Errorf("tool returned isError=true: %q", text)
	}
	if s.hasExpect {
		if !hasText {
			return fmt.Errorf("expected text %q, got no text content", s.expect)
		}
		if text != s.expect {
			return fmt.Errorf("expected text %q, got %q", s.expect, text)
		}
	}
	return nil
}

// jsonRPCPayload returns the first JSON-RPC response in a body that is either
// application/json or text/event-stream. It is used outside the hot path.
func jsonRPCPayload(contentType string, body []byte) ([]byte, error) {
	if isJSON(contentType) {
		return body, nil
	}
	if !isEventStream(contentType) {
		return nil, fmt.Errorf("unexpected Content-Type %q", contentType)
	}
	for rest := body; ; {
		var data []byte
		var ok bool
		data, rest, _, ok = nextSSEEvent(rest, nil)
		if !ok {
			return nil, errors.New("event stream ended without a JSON-RPC response")
		}
		var probe struct {
			Method string `json:"method"`
		}
		if len(data) == 0 || json.Unmarshal(data, &probe) != nil || probe.Method != "" {
			continue
		}
		return data, nil
	}
}

func isEventStream(contentType string) bool {
	return hasPrefixFold(contentType, "text/event-stream")
}

func isJSON(contentType string) bool {
	return hasPrefixFold(contentType, "application/json")
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// readBody appends all of r to dst, reusing dst's capacity, and fails if the
// body exceeds maxResponseBytes.
func readBody(dst []byte, r io.Reader) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			if len(dst) >= maxResponseBytes {
				return dst, fmt.Errorf("response larger than %d bytes", maxResponseBytes)
			}
			dst = append(dst, 0)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):cap(dst)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
}

// snippet returns a short, printable prefix of a body for error messages.
func snippet(b []byte) string {
	const limit = 200
	s := strings.TrimSpace(string(b))
	if len(s) > limit {
		s = s[:limit] + "..."
	}
	return s
}
