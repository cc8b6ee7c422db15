// Package remote is the gateway as a client of an external interceptor
// server (an interceptors entry with url:), a server speaking the MCP
// interceptors draft: SEP-2624, "An Interceptor Primitive for Validating
// and Mutating Context Operations" (the draft of the experimental
// interceptors extension, which SEP-1763 became), with the
// interceptors/list and interceptor/invoke methods over Streamable HTTP.
//
// A Client discovers the server's interceptors with interceptors/list
// when it connects, and keeps the list for ListTTL, until the server
// sends notifications/interceptors/list_changed, or until an invocation
// says an interceptor is gone. For each call it runs the draft's
// execution plan over the interceptors whose hooks match the call's
// method and phase: in the request phase the gateway is about to send
// the call on to its source (the draft's sending direction: the
// mutators in order, then the validators), in the response phase it has
// just received the result (receiving: the validators, then the
// mutators). Mutators run one after the other, ordered by priorityHint
// then name; validators run concurrently and all of them run. Each
// interceptor's mode (active or audit) and failOpen are the server's:
// an audit interceptor never blocks and its mutations are not applied,
// and a failed invocation of an interceptor with failOpen is logged and
// skipped. What blocks comes back as a deny (a validator's verdict) or
// an error (a failure), which the gateway routes by the interceptor's
// failure: setting.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/gateway/intercept"
)

// DefaultListTTL is how long a Client trusts a server's interceptor list
// when Options.ListTTL is zero.
const DefaultListTTL = 30 * time.Second

// maxListPages bounds the pages of one interceptors/list.
const maxListPages = 100

// Options configure a Client.
type Options struct {
	// Name is the interceptor's name in the gateway's config; errors
	// and logs name it.
	Name string
	// URL is the server's Streamable HTTP endpoint.
	URL string
	// Timeout bounds one Intercept: connecting again if need be,
	// listing, and every invocation of the plan (each invocation is
	// told the time left as timeoutMs). None when zero.
	Timeout time.Duration
	// Headers are sent with every request (e.g. Authorization). Their
	// values never appear in an error or a log.
	Headers map[string]string
	// Config, a JSON object, is sent with every invocation as its
	// config (the interceptor's config: section); none when empty.
	Config json.RawMessage
	// HTTPClient sends the requests; a plain client when nil.
	HTTPClient *http.Client
	// Logger gets what does not block a call: warnings and infos of
	// validators, audit results, failures let through by failOpen.
	Logger *slog.Logger
	// ListTTL is how long a list is used before it is fetched again
	// (DefaultListTTL when zero).
	ListTTL time.Duration
}

// Client is a connection to one interceptor server. It is an
// intercept.Interceptor, safe for concurrent use.
type Client struct {
	o     Options
	where string // names the server in errors: `interceptor server "x" (http://host/path)`
	log   *slog.Logger
	ids   atomic.Int64

	lock   chan struct{} // held to connect or list; a channel, so waiting can end with a context
	mu     sync.Mutex    // guards cur and closed
	cur    *conn
	closed bool
	bg     sync.WaitGroup // closing of dropped connections
}

// conn is one MCP session with the server and the list it gave.
type conn struct {
	tr      *transport.StreamableHTTP
	cli     *client.Client
	listing atomic.Pointer[listing]
	stale   atomic.Bool // the server said its list changed
}

// listing is the server's list and when it was fetched.
type listing struct {
	list []*entry
	at   time.Time
}

// fresh tells whether cn's list may still be used.
func (cn *conn) fresh(ttl time.Duration) bool {
	l := cn.listing.Load()
	return l != nil && !cn.stale.Load() && time.Since(l.at) < ttl
}

// entry is one usable interceptor of the server.
type entry struct {
	Descriptor
	audit bool
	hooks []Hook // with "both" split
}

var _ intercept.Interceptor = (*Client)(nil)

// New connects to the server, initializes an MCP session and lists its
// interceptors.
func New(ctx context.Context, o Options) (*Client, error) {
	if o.Name == "" {
		return nil, errors.New("interceptor server: no name")
	}
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("interceptor server %q: url is not an http(s) URL", o.Name)
	}
	if o.ListTTL <= 0 {
		o.ListTTL = DefaultListTTL
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	c := &Client{
		o:     o,
		where: fmt.Sprintf("interceptor server %q (%s://%s%s)", o.Name, u.Scheme, u.Host, u.EscapedPath()),
		log:   o.Logger,
		lock:  make(chan struct{}, 1),
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	c.log = c.log.With("interceptor", o.Name)
	cn, err := c.dial(ctx)
	if err != nil {
		return nil, c.scrub(err)
	}
	c.cur = cn
	return c, nil
}

// scrub hides the values of the configured headers in err's message (a
// server may echo a request in an error body).
func (c *Client) scrub(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, v := range c.o.Headers {
		if len(v) >= 4 && strings.Contains(msg, v) {
			msg = strings.ReplaceAll(msg, v, "[redacted]")
		}
	}
	if msg == err.Error() {
		return err
	}
	return &scrubbed{msg: msg, err: err}
}

// scrubbed is an error whose message hides header values.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// Close ends the session with the server. Intercept fails afterwards.
func (c *Client) Close() error {
	c.mu.Lock()
	cn := c.cur
	c.cur, c.closed = nil, true
	c.mu.Unlock()
	if cn != nil {
		cn.close()
	}
	c.bg.Wait()
	return nil
}

// Interceptors are the names of the server's interceptors in the list
// the client holds, in the server's order.
func (c *Client) Interceptors() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil {
		return nil
	}
	list := c.cur.listing.Load().list
	names := make([]string, len(list))
	for i, e := range list {
		names[i] = e.Name
	}
	return names
}

// Intercept runs the server's interceptors that hook in.Method in
// in.Phase.
func (c *Client) Intercept(ctx context.Context, in *intercept.Input) (*intercept.Output, error) {
	out, err := c.intercept(ctx, in)
	return out, c.scrub(err)
}

func (c *Client) intercept(ctx context.Context, in *intercept.Input) (*intercept.Output, error) {
	if in.Phase != intercept.PhaseRequest && in.Phase != intercept.PhaseResponse {
		return nil, fmt.Errorf("%s: unknown phase %q", c.where, in.Phase)
	}
	if c.o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.o.Timeout)
		defer cancel()
	}
	p, err := newPlanInput(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.where, err)
	}
	cn, err := c.conn(ctx, false)
	if err != nil {
		return nil, err
	}
	out, err := c.run(ctx, cn, p)
	var gone *goneError
	if errors.As(err, &gone) {
		// The list was out of date: list again, run the plan again.
		c.log.Info("interceptor server's list changed; listing again", "reason", gone.Error())
		if cn, err = c.conn(ctx, true); err != nil {
			return nil, err
		}
		out, err = c.run(ctx, cn, p)
		if errors.As(err, &gone) {
			err = gone.err
		}
	}
	return out, err
}

// conn is the current connection, dialed again when the last one
// broke, with a list fetched again when it is too old or relist is set.
func (c *Client) conn(ctx context.Context, relist bool) (*conn, error) {
	c.mu.Lock()
	cn, closed := c.cur, c.closed
	c.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("%s: closed", c.where)
	}
	if cn != nil && !relist && cn.fresh(c.o.ListTTL) {
		return cn, nil
	}
	select {
	case c.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: waiting to connect: %w", c.where, ctx.Err())
	}
	defer func() { <-c.lock }()
	c.mu.Lock()
	now, closed := c.cur, c.closed
	c.mu.Unlock()
	switch {
	case closed:
		return nil, fmt.Errorf("%s: closed", c.where)
	case now == nil:
		dialed, err := c.dial(ctx)
		if err != nil {
			return nil, err
		}
		return c.install(dialed), nil
	case now != cn || (!relist && now.fresh(c.o.ListTTL)):
		return now, nil // another call connected or listed meanwhile
	}
	if err := c.relist(ctx, now); err != nil {
		c.drop(now, err)
		return nil, err
	}
	return now, nil
}

// relist fetches cn's list again.
func (c *Client) relist(ctx context.Context, cn *conn) error {
	cn.stale.Store(false)
	list, err := c.list(ctx, cn)
	if err != nil {
		return err
	}
	cn.listing.Store(&listing{list: list, at: time.Now()})
	return nil
}

// install makes cn the current connection, unless the client closed.
func (c *Client) install(cn *conn) *conn {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		c.bg.Go(cn.close)
		return cn
	}
	c.cur = cn
	return cn
}

// drop forgets cn after err, so that the next call connects again.
func (c *Client) drop(cn *conn, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != cn {
		return
	}
	c.log.Warn("interceptor server connection dropped; the next call connects again", "err", err)
	c.cur = nil
	c.bg.Go(cn.close)
}

func (cn *conn) close() { _ = cn.cli.Close() }

// dial opens an MCP session with the server and lists its interceptors.
func (c *Client) dial(ctx context.Context) (*conn, error) {
	tr, err := transport.NewStreamableHTTP(c.o.URL,
		transport.WithHTTPBasicClient(c.o.HTTPClient),
		transport.WithHTTPHeaders(c.o.Headers),
		transport.WithHTTPLogger(c.log))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.where, err)
	}
	cn := &conn{tr: tr, cli: client.NewClient(tr, client.WithLegacyProtocolOnly())}
	cn.cli.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == NotificationListChanged {
			cn.stale.Store(true)
		}
	})
	if err := cn.cli.Start(ctx); err != nil {
		cn.close()
		return nil, fmt.Errorf("%s: starting the transport: %w", c.where, err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "wasmgate", Version: "interceptors"}
	if _, err := cn.cli.Initialize(ctx, req); err != nil {
		cn.close()
		return nil, fmt.Errorf("%s: initialize: %w", c.where, err)
	}
	if err := c.relist(ctx, cn); err != nil {
		cn.close()
		return nil, err
	}
	return cn, nil
}

// list asks for the server's interceptors, every page, and keeps those
// the client can use.
func (c *Client) list(ctx context.Context, cn *conn) ([]*entry, error) {
	var (
		list   []*entry
		seen   = map[string]bool{}
		cursor string
	)
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("%s: %s: more than %d pages", c.where, MethodList, maxListPages)
		}
		raw, err := c.rpc(ctx, cn, MethodList, ListParams{Cursor: cursor})
		if err != nil {
			var re *RPCError
			if errors.As(err, &re) && re.Code == mcp.METHOD_NOT_FOUND {
				return nil, fmt.Errorf("%s: %s: the server does not implement the interceptors extension (%w)", c.where, MethodList, err)
			}
			return nil, fmt.Errorf("%s: %s: %w", c.where, MethodList, err)
		}
		var res ListResult
		if err := json.Unmarshal(raw, &res); err != nil || res.Interceptors == nil {
			if err == nil {
				err = errors.New(`no "interceptors" array`)
			}
			return nil, fmt.Errorf("%s: %s answered garbage: %w", c.where, MethodList, err)
		}
		for i, d := range res.Interceptors {
			e, err := parseEntry(d)
			if err != nil {
				c.log.Warn("interceptor server lists an interceptor the gateway skips", "index", i, "err", err)
				continue
			}
			if seen[e.Name] {
				c.log.Warn("interceptor server lists a name twice; the gateway uses the first", "name", e.Name)
				continue
			}
			seen[e.Name] = true
			list = append(list, e)
		}
		if res.NextCursor == "" {
			return list, nil
		}
		if res.NextCursor == cursor {
			return nil, fmt.Errorf("%s: %s: the server repeats cursor %q", c.where, MethodList, cursor)
		}
		cursor = res.NextCursor
	}
}

// parseEntry reads one descriptor. An interceptor of an unknown type or
// mode is refused (the draft's receiver rule: never selected).
func parseEntry(raw json.RawMessage) (*entry, error) {
	var d Descriptor
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("not a descriptor: %w", err)
	}
	if d.Name == "" {
		return nil, errors.New("no name")
	}
	if d.Type != TypeValidation && d.Type != TypeMutation {
		return nil, fmt.Errorf("%q: unknown type %q", d.Name, d.Type)
	}
	e := &entry{Descriptor: d}
	switch d.Mode {
	case "", ModeActive, modeEnforce:
	case ModeAudit:
		e.audit = true
	default:
		return nil, fmt.Errorf("%q: unknown mode %q", d.Name, d.Mode)
	}
	hooks := d.Hooks
	if hooks == nil && d.Hook != nil {
		hooks = []Hook{*d.Hook}
	}
	for _, h := range hooks {
		switch h.Phase {
		case intercept.PhaseRequest, intercept.PhaseResponse:
			e.hooks = append(e.hooks, h)
		case "both": // SEP-1763
			e.hooks = append(e.hooks, Hook{h.Events, intercept.PhaseRequest}, Hook{h.Events, intercept.PhaseResponse})
		default:
			return nil, fmt.Errorf("%q: a hook with unknown phase %q", d.Name, h.Phase)
		}
	}
	return e, nil
}

// hooks tells whether e applies to event in phase. "*" matches every
// event; SEP-1763's "*/request" and "*/response" every event of a phase.
func (e *entry) hooksOn(event, phase string) bool {
	for _, h := range e.hooks {
		if h.Phase != phase {
			continue
		}
		for _, ev := range h.Events {
			if ev == event || ev == "*" || ev == "*/"+phase {
				return true
			}
		}
	}
	return false
}

func (e *entry) priority(phase string) int64 {
	if e.PriorityHint == nil {
		return 0
	}
	if phase == intercept.PhaseRequest {
		return e.PriorityHint.Request
	}
	return e.PriorityHint.Response
}

// RPCError is a JSON-RPC error the server answered.
type RPCError struct {
	Code    int
	Message string
	Data    json.RawMessage
}

func (e *RPCError) Error() string {
	s := fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message)
	if len(e.Data) > 0 && len(e.Data) <= 512 {
		s += " " + string(e.Data)
	}
	return s
}

// rpc sends one request through the session. A failure of the transport
// (not the end of ctx) drops the connection.
func (c *Client) rpc(ctx context.Context, cn *conn, method string, params any) (json.RawMessage, error) {
	id := mcp.NewRequestId(fmt.Sprintf("wasmgate-%d", c.ids.Add(1)))
	resp, err := cn.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: id, Method: method, Params: params})
	if err != nil {
		if ctx.Err() != nil {
			// The call's time ran out: the session may be fine.
			return nil, fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		c.drop(cn, err)
		return nil, err
	}
	if resp.Error != nil {
		re := &RPCError{Code: resp.Error.Code, Message: resp.Error.Message}
		if resp.Error.Data != nil {
			re.Data, _ = json.Marshal(resp.Error.Data)
		}
		return nil, re
	}
	if len(resp.Result) == 0 || string(resp.Result) == "null" {
		return nil, errors.New("answered no result")
	}
	return resp.Result, nil
}

// goneError is an invocation refused because the interceptor is no
// longer listed as the client thinks: the list is listed again.
type goneError struct{ err error }

func (e *goneError) Error() string { return e.err.Error() }
func (e *goneError) Unwrap() error { return e.err }

// joinMessages are the messages of a validator's findings at severity
// error (or all of them when none is), for the client.
func joinMessages(ms []Message) string {
	var errs, all []string
	for _, m := range ms {
		if m.Message == "" {
			continue
		}
		all = append(all, m.Message)
		if m.Severity == "" || m.Severity == SeverityError {
			errs = append(errs, m.Message)
		}
	}
	if len(errs) == 0 {
		errs = all
	}
	return strings.Join(slices.Compact(errs), "; ")
}
