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
	"time"

	"github.com/wasmgate/wasmgate/internal/mcphttp"
)

// maxReasonsPerClient bounds the failure reasons a client keeps.
const maxReasonsPerClient = 5

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
	ID     int64             `json:"id"`
	Method string            `json:"method"` // set on notifications and server requests
	Result *toolResult       `json:"result"`
	Error  *mcphttp.RPCError `json:"error"`
}

type toolResult struct {
	Content []toolContent `json:"content"`
	IsError bool          `json:"isError"`
}

type toolContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
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

// session is one MCP client session (mcphttp opens and closes it) with
// the driver's hot loop. It is used by one goroutine at a time; its buffers
// are reused from call to call.
type session struct {
	*mcphttp.Session
	rt        http.RoundTripper
	tmpl      *http.Request
	prefix    []byte // request body up to the id
	suffix    []byte // request body after the id
	reqBuf    []byte
	reader    *bytes.Reader
	body      io.ReadCloser // io.NopCloser(reader)
	respBuf   []byte
	sseBuf    []byte
	msg       rpcResponse
	hasExpect bool
	expect    string
}

// openSession performs the initialize handshake of client i and prepares
// the tools/call request template; bind must be called before the first
// call.
func openSession(ctx context.Context, rt http.RoundTripper, cfg *config, i int) (*session, error) {
	opts := mcphttp.Options{
		Transport:       rt,
		ProtocolVersion: cfg.protocolVersion,
		ClientName:      "mcpbench",
		ClientVersion:   "0.1.0",
	}
	if len(cfg.tokens) > 0 {
		opts.Header = http.Header{"Authorization": {"Bearer " + cfg.tokens[i%len(cfg.tokens)]}}
	}
	ms, err := mcphttp.Open(ctx, cfg.url.String(), opts)
	if err != nil {
		return nil, err
	}
	s := &session{
		Session:   ms,
		rt:        rt,
		hasExpect: cfg.hasExpect,
		expect:    cfg.expect,
	}

	tool, err := json.Marshal(cfg.tool)
	if err != nil {
		_ = s.Close(ctx)
		return nil, fmt.Errorf("encoding tool name: %w", err)
	}
	s.prefix = []byte(`{"jsonrpc":"2.0","id":`)
	s.suffix = fmt.Appendf(nil, `,"method":"tools/call","params":{"name":%s,"arguments":%s}}`, tool, cfg.args)

	s.tmpl, err = s.Request(context.Background(), http.MethodPost, nil)
	if err != nil {
		_ = s.Close(ctx)
		return nil, fmt.Errorf("building tools/call request: %w", err)
	}
	s.newBuffers()
	return s, nil
}

// bind makes every following call run under ctx.
func (s *session) bind(ctx context.Context) {
	s.tmpl = s.tmpl.WithContext(ctx)
}

// call performs one tools/call and checks the result. It is the hot path:
// the request body is spliced into a reused buffer and only the fields the
// check needs are decoded.
func (s *session) call() error {
	id := s.NextID()
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
	s.respBuf, err = mcphttp.ReadBody(s.respBuf[:0], resp.Body)
	resp.Body.Close()
	if err != nil {
		s.abandonBuffers()
		return fmt.Errorf("tools/call id %d: reading response: %w", id, err)
	}
	if resp.StatusCode != http.StatusOK {
		s.abandonBuffers()
		return fmt.Errorf("tools/call id %d: HTTP %d: %s", id, resp.StatusCode, mcphttp.Snippet(s.respBuf))
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
	if !mcphttp.IsEventStream(contentType) {
		if !mcphttp.IsJSON(contentType) {
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
		data, rest, s.sseBuf, ok = mcphttp.NextEvent(rest, s.sseBuf)
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
