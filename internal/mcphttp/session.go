// Package mcphttp speaks the MCP Streamable HTTP transport by hand: the
// initialize handshake, requests and notifications within a session, the
// responses as JSON or as an event stream, and DELETE at the end. It is the
// one raw client shared by cmd/mcpbench, which needs to control every byte
// of its hot loop, and by the tests, which need to send what mcp-go's
// client never would (foreign origins, oversized or malformed bodies,
// forged session ids).
package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

const (
	// HeaderSessionID carries the session id the server issued.
	HeaderSessionID = "Mcp-Session-Id"
	// HeaderProtocolVersion carries the negotiated protocol revision.
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	// DefaultProtocolVersion is the newest revision with the initialize
	// handshake and Mcp-Session-Id sessions.
	DefaultProtocolVersion = "2025-11-25"
	// MaxResponseBytes bounds how much of one response body is read.
	MaxResponseBytes = 8 << 20
)

// Options configure a Session.
type Options struct {
	// Transport sends the requests; nil means http.DefaultTransport.
	Transport http.RoundTripper
	// Header is added to every request, e.g. Authorization or Origin.
	Header http.Header
	// ProtocolVersion is asked for in initialize; "" means
	// DefaultProtocolVersion.
	ProtocolVersion string
	// ClientName and ClientVersion are the clientInfo of initialize;
	// "" means "mcphttp" and "0".
	ClientName, ClientVersion string
}

// Session is one client session with a Streamable HTTP endpoint. Its
// methods may be used by one goroutine at a time.
type Session struct {
	// URL is the MCP endpoint.
	URL string
	// ID is the Mcp-Session-Id the server issued, "" if it is stateless.
	ID string
	// Version is the negotiated protocol revision, sent as
	// Mcp-Protocol-Version once known.
	Version string

	rt     http.RoundTripper
	header http.Header
	nextID int64
}

// Open performs the initialize handshake with the endpoint at url and sends
// notifications/initialized: the session is then ready for requests.
func Open(ctx context.Context, url string, opts Options) (*Session, error) {
	s, err := Initialize(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	if err := s.Notify(ctx, "notifications/initialized", nil); err != nil {
		_ = s.Close(ctx)
		return nil, err
	}
	return s, nil
}

// Initialize sends only the initialize request, and returns the session
// with its id and negotiated version; the caller sends
// notifications/initialized (Open does both). The server must answer 200.
func Initialize(ctx context.Context, url string, opts Options) (*Session, error) {
	s := Attach(url, "", opts)
	s.Version = "" // not negotiated yet: initialize goes without the header
	version := opts.ProtocolVersion
	if version == "" {
		version = DefaultProtocolVersion
	}
	name, cv := opts.ClientName, opts.ClientVersion
	if name == "" {
		name = "mcphttp"
	}
	if cv == "" {
		cv = "0"
	}
	params := map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": name, "version": cv},
	}
	resp, result, err := s.call(ctx, "initialize", params)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(result, &init); err != nil {
		return nil, fmt.Errorf("initialize: decoding result: %w", err)
	}
	if init.ProtocolVersion == "" {
		return nil, fmt.Errorf("initialize: response has no protocolVersion: %s", Snippet(result))
	}
	s.ID = resp.Header.Get(HeaderSessionID)
	s.Version = init.ProtocolVersion
	return s, nil
}

// Attach returns a Session for an id obtained elsewhere, or made up (to
// check that the server refuses it), without sending anything. Its Version
// is opts.ProtocolVersion, or DefaultProtocolVersion.
func Attach(url, id string, opts Options) *Session {
	s := &Session{URL: url, ID: id, Version: opts.ProtocolVersion, rt: opts.Transport, header: opts.Header}
	if s.rt == nil {
		s.rt = http.DefaultTransport
	}
	if s.Version == "" {
		s.Version = DefaultProtocolVersion
	}
	return s
}

// Header returns the headers of a request of the given method within the
// session: Content-Type (POST), Accept, Options.Header, the session id and
// the protocol version.
func (s *Session) Header(method string) http.Header {
	h := make(http.Header, 6+len(s.header))
	switch method {
	case http.MethodPost:
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
	case http.MethodGet:
		h.Set("Accept", "text/event-stream")
	default:
		h.Set("Accept", "application/json, text/event-stream")
	}
	for k, v := range s.header {
		h[k] = append([]string(nil), v...)
	}
	if s.ID != "" {
		h.Set(HeaderSessionID, s.ID)
	}
	if s.Version != "" {
		h.Set(HeaderProtocolVersion, s.Version)
	}
	return h
}

// Request builds a request to the endpoint within the session. With a GET
// it opens the session's event stream; the caller sends it (with Do, or
// with its own client to read the stream as it comes).
func (s *Session) Request(ctx context.Context, method string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.URL, body)
	if err != nil {
		return nil, fmt.Errorf("building %s %s: %w", method, s.URL, err)
	}
	req.Header = s.Header(method)
	return req, nil
}

// Do sends req and returns the response with its body read (up to
// MaxResponseBytes) and closed.
func (s *Session) Do(req *http.Request) (*http.Response, []byte, error) {
	resp, err := s.rt.RoundTrip(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := ReadBody(nil, resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("reading response: %w", err)
	}
	return resp, body, nil
}

// Post sends msg, any bytes (a JSON-RPC message, a batch, or garbage), and
// returns the response with its body read and closed. The status is the
// caller's to check.
func (s *Session) Post(ctx context.Context, msg []byte) (*http.Response, []byte, error) {
	req, err := s.Request(ctx, http.MethodPost, bytes.NewReader(msg))
	if err != nil {
		return nil, nil, err
	}
	return s.Do(req)
}

// NextID returns a request id never used before in the session.
func (s *Session) NextID() int64 {
	id := s.nextID
	s.nextID++
	return id
}

// Call sends the JSON-RPC request method with params (nil for none) and
// returns its result. A status other than 200 is a *StatusError, a
// JSON-RPC error an *RPCError. Notifications and server requests the
// server sends on the response stream before the response are skipped.
func (s *Session) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	_, result, err := s.call(ctx, method, params)
	return result, err
}

func (s *Session) call(ctx context.Context, method string, params any) (*http.Response, json.RawMessage, error) {
	id := s.NextID()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding %s: %w", method, err)
	}
	resp, respBody, err := s.Post(ctx, body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, nil, &StatusError{Status: resp.StatusCode, Body: Snippet(respBody)}
	}
	payload, err := Response(resp.Header.Get("Content-Type"), respBody)
	if err != nil {
		return nil, nil, err
	}
	var m struct {
		ID     *int64          `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if err := json.Unmarshal(payload, &m); err != nil {
		return nil, nil, fmt.Errorf("decoding response: %w", err)
	}
	if m.Error != nil {
		return nil, nil, m.Error
	}
	if m.ID == nil || *m.ID != id {
		return nil, nil, fmt.Errorf("response id does not match request id %d: %s", id, Snippet(payload))
	}
	if m.Result == nil {
		return nil, nil, errors.New("response has neither result nor error")
	}
	return resp, m.Result, nil
}

// Notify sends the notification method with params (nil for none); the
// server must accept it with a 2xx status (the specification says 202).
func (s *Session) Notify(ctx context.Context, method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", method, err)
	}
	resp, respBody, err := s.Post(ctx, body)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %w", method, &StatusError{Status: resp.StatusCode, Body: Snippet(respBody)})
	}
	return nil
}

// Close ends the session with DELETE. A 405 means the server does not let
// clients end sessions, which the specification allows. Without a session
// id there is nothing to end.
func (s *Session) Close(ctx context.Context) error {
	if s.ID == "" {
		return nil
	}
	req, err := s.Request(ctx, http.MethodDelete, nil)
	if err != nil {
		return err
	}
	resp, body, err := s.Do(req)
	if err != nil {
		return fmt.Errorf("DELETE session: %w", err)
	}
	if resp.StatusCode/100 != 2 && resp.StatusCode != http.StatusMethodNotAllowed {
		return fmt.Errorf("DELETE session: %w", &StatusError{Status: resp.StatusCode, Body: Snippet(body)})
	}
	return nil
}

// StatusError is an HTTP status other than the one expected.
type StatusError struct {
	Status int
	Body   string // the start of the body
}

func (e *StatusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Body) }

// RPCError is a JSON-RPC error response.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// IsEventStream reports whether a Content-Type is text/event-stream.
func IsEventStream(contentType string) bool {
	return hasPrefixFold(contentType, "text/event-stream")
}

// IsJSON reports whether a Content-Type is application/json.
func IsJSON(contentType string) bool {
	return hasPrefixFold(contentType, "application/json")
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// ReadBody appends all of r to dst, reusing dst's capacity, and fails if
// the body exceeds MaxResponseBytes.
func ReadBody(dst []byte, r io.Reader) ([]byte, error) {
	for {
		if len(dst) == cap(dst) {
			if len(dst) >= MaxResponseBytes {
				return dst, fmt.Errorf("response larger than %d bytes", MaxResponseBytes)
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

// Snippet returns a short, printable prefix of a body for error messages.
func Snippet(b []byte) string {
	const limit = 200
	s := strings.TrimSpace(string(b))
	if len(s) > limit {
		s = s[:limit] + "..."
	}
	return s
}
