package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmgate/wasmgate/internal/netutil"
)

// Resolver looks up the addresses of a host name; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Options configure a Client.
type Options struct {
	// AllowedHosts are the plugin's grants (see the package documentation).
	AllowedHosts []string
	// MaxResponse bounds a response body, in bytes (limits.http_response).
	MaxResponse int64
	// Timeout bounds a request made without a deadline in its context
	// (limits.timeout). A request made during a call gets nine tenths of
	// the time left in the call instead (see Client.Do).
	Timeout time.Duration
	// Listeners are the gateway's own, never reached; nil for none.
	Listeners *Listeners
	// Resolver resolves host names; nil means net.DefaultResolver.
	Resolver Resolver
}

// maxRedirects is how many redirects one request may follow.
const maxRedirects = 10

// Client sends a plugin's HTTP requests under its grants. It is safe for
// concurrent use.
type Client struct {
	policy    *Policy
	own       *Listeners
	resolver  Resolver
	max       int64
	timeout   time.Duration
	transport *http.Transport
	client    *http.Client
}

// New returns a Client for a plugin's grants and limits.
func New(o Options) (*Client, error) {
	policy, err := ParsePolicy(o.AllowedHosts)
	if err != nil {
		return nil, err
	}
	if o.MaxResponse <= 0 {
		return nil, fmt.Errorf("response cap %d: must be positive", o.MaxResponse)
	}
	c := &Client{policy: policy, own: o.Listeners, resolver: o.Resolver, max: o.MaxResponse, timeout: o.Timeout}
	if c.resolver == nil {
		c.resolver = net.DefaultResolver
	}
	c.transport = &http.Transport{
		Proxy:                  nil, // a proxy would connect on the plugin's behalf, past the address checks
		DialContext:            c.dial,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    10 * time.Second,
		MaxIdleConns:           16,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 256 << 10,
	}
	c.client = &http.Client{
		Transport:     checkedTransport{c.policy, c.transport},
		CheckRedirect: c.checkRedirect,
	}
	return c, nil
}

// HTTPClient returns the client: every request, redirect and connection
// checked against the grants and listeners. It sets no response cap or
// timeout of its own; Do adds them.
func (c *Client) HTTPClient() *http.Client { return c.client }

// Close closes idle connections.
func (c *Client) Close() { c.transport.CloseIdleConnections() }

// Do sends req and reads its whole response. The request may take nine
// tenths of the time left before its context's deadline (or of the
// Timeout option without one), so that a plugin waiting on it has time
// left to handle the error. Every failure is an error whose text tells a
// plugin what happened: a grant or address refused, the timeout, the
// response cap (limits.http_response), or the network error.
func (c *Client) Do(req *http.Request) (status int, header http.Header, body []byte, err error) {
	parent := req.Context()
	left := c.timeout
	if dl, ok := parent.Deadline(); ok && (left <= 0 || time.Until(dl) < left) {
		left = time.Until(dl)
	}
	ctx := parent
	if left > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(parent, left-left/10)
		defer cancel()
	}
	start := time.Now()
	what := req.Method + " " + req.URL.Redacted()
	// A span of the call's trace (a no-op when it has none), and its
	// traceparent to the host, which may continue it.
	ctx, span := trace.SpanFromContext(ctx).TracerProvider().Tracer("github.com/wasmgate/wasmgate").
		Start(ctx, "HTTP "+req.Method, trace.WithSpanKind(trace.SpanKindClient))
	defer span.End()
	if span.IsRecording() {
		span.SetAttributes(attribute.String("http.request.method", req.Method), attribute.String("server.address", req.URL.Hostname()))
		propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(req.Header))
	}
	resp, err := c.client.Do(req.WithContext(ctx))
	if span.IsRecording() {
		if err != nil {
			span.SetStatus(codes.Error, "request failed")
		} else {
			span.SetAttributes(attribute.Int("http.response.status_code", resp.StatusCode))
		}
	}
	if err != nil {
		return 0, nil, nil, c.explain(what, parent, ctx, start, err)
	}
	defer resp.Body.Close()
	if resp.ContentLength > c.max {
		return 0, nil, nil, c.tooLarge(what, fmt.Sprintf(" (Content-Length %d)", resp.ContentLength))
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, c.max+1))
	if err != nil {
		return 0, nil, nil, c.explain(what, parent, ctx, start, fmt.Errorf("read response body: %w", err))
	}
	if int64(len(body)) > c.max {
		return 0, nil, nil, c.tooLarge(what, "")
	}
	return resp.StatusCode, resp.Header, body, nil
}

func (c *Client) tooLarge(what, detail string) error {
	return fmt.Errorf("%s: response body is larger than limits.http_response (%s)%s", what, formatBytes(c.max), detail)
}

// explain rewrites a client error for the plugin: without url.Error's
// quoting, and saying which limit a timeout is.
func (c *Client) explain(what string, parent, ctx context.Context, start time.Time, err error) error {
	if perr := parent.Err(); perr != nil {
		return fmt.Errorf("%s: %w", what, perr)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: timed out after %s (a request may take nine tenths of the time left before the call's limits.timeout)",
			what, time.Since(start).Round(time.Millisecond))
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	return fmt.Errorf("%s: %w", what, err)
}

// checkRedirect refuses a redirect to a URL no grant allows, so that the
// request fails instead of following it.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if err := c.policy.CheckURL(req.URL); err != nil {
		return fmt.Errorf("redirect to %s %w", req.URL.Redacted(), err)
	}
	return nil
}

// checkedTransport refuses requests no grant allows before they reach the
// network: the first request of Do, and each redirect again. It drops the
// admin listener's header (netutil.AdminHeader) from every request.
type checkedTransport struct {
	policy *Policy
	next   http.RoundTripper
}

func (t checkedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.policy.CheckURL(req.URL); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	if req.Header.Get(netutil.AdminHeader) != "" {
		// The admin listener's header never leaves the gateway.
		req = req.Clone(req.Context())
		req.Header.Del(netutil.AdminHeader)
	}
	return t.next.RoundTrip(req)
}

// dial connects for a request to addr (the URL's host:port); see
// Policy.DialContext.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return c.policy.DialContext(c.own, c.resolver)(ctx, network, addr)
}

// DialContext returns a dial function for an http.Transport that connects
// for a request to addr (the URL's host:port) only under p: the host:port
// must be granted, the host is resolved here (r; nil means
// net.DefaultResolver) and only addresses CheckAddr accepts are dialled,
// each checked again on the socket before it connects. own are the
// gateway's listeners (nil for none).
func (p *Policy) DialContext(own *Listeners, r Resolver) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if r == nil {
		r = net.DefaultResolver
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		h, ps, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		n, err := strconv.ParseUint(ps, 10, 16)
		if err != nil {
			return nil, fmt.Errorf("port %q: %w", ps, err)
		}
		host, port := normalizeHost(h), uint16(n)
		if !p.allows(host, port) {
			return nil, &RefusedError{Reason: fmt.Sprintf("%s is not in allowed_hosts", addr)}
		}
		var ips []netip.Addr
		if ip, err := netip.ParseAddr(host); err == nil {
			ips = []netip.Addr{ip}
		} else if ips, err = r.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, err
		} else if len(ips) == 0 {
			return nil, fmt.Errorf("lookup %s: no addresses", host)
		}
		var refused, failed error
		for _, ip := range ips {
			if err := p.CheckAddr(host, port, ip, own); err != nil {
				if refused == nil {
					refused = err
				}
				continue
			}
			d := net.Dialer{ControlContext: func(_ context.Context, _, address string, _ syscall.RawConn) error {
				ap, err := netip.ParseAddrPort(address)
				if err != nil {
					return &RefusedError{Reason: fmt.Sprintf("cannot check address %q: %v", address, err)}
				}
				return p.CheckAddr(host, ap.Port(), ap.Addr(), own)
			}}
			conn, err := d.DialContext(ctx, network, netip.AddrPortFrom(ip, port).String())
			if err == nil {
				return conn, nil
			}
			failed = err
			if ctx.Err() != nil {
				break
			}
		}
		if failed != nil {
			return nil, failed
		}
		return nil, refused
	}
}

// formatBytes writes n the way gateway.yaml sizes are written.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10) + "B"
}
