package upstream

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/wasmgate/wasmgate/internal/childproc"
	"github.com/wasmgate/wasmgate/internal/lograte"
)

// conn is one upstream session, supervised: started, and started again
// with backoff when it ends, until closed.
type conn struct {
	s     *shared
	owner string                  // the downstream session of a per_client session; "" for the shared one
	ds    mcpserver.ClientSession // that session

	mu      sync.Mutex
	cli     *client.Client // nil while down
	ready   chan struct{}  // closed when cli is set; replaced when it goes down
	ended   chan struct{}  // closed when cli's session ended
	why     error          // why the last session ended
	lastErr string
	up      bool
	kind    string // stdio, streamable-http, sse
	closed  bool
	stopFn  func() // ends the current session (kills its process)
	wakeup  chan struct{}

	// The downstream calls running on a per_client session: a request
	// of the upstream goes out on the newest one's stream.
	active inflight

	calls  atomic.Int32             // calls running on c (not parked ones)
	parked map[*parkedCall]struct{} // parked calls whose upstream request runs on c
}

// begin records a downstream call running on c; the func returned ends it.
func (c *conn) begin(ctx context.Context) func() {
	if c.owner == "" {
		return c.s.running.add(ctx) // the shared session's (attribute.go)
	}
	return c.active.add(ctx)
}

// callContext is the newest downstream call running on c, or nil.
func (c *conn) callContext() context.Context { return c.active.newest() }

func (s *shared) newConn(owner string, ds mcpserver.ClientSession) *conn {
	return &conn{s: s, owner: owner, ds: ds, ready: make(chan struct{}), wakeup: make(chan struct{}, 1)}
}

// current is the connected client, or nil.
func (c *conn) current() *client.Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cli
}

// wait returns the connected client, waiting until ctx ends for a
// session that is (re)starting.
func (c *conn) wait(ctx context.Context) (*client.Client, <-chan struct{}, error) {
	for {
		c.mu.Lock()
		cli, ready, ended, closed, last := c.cli, c.ready, c.ended, c.closed, c.lastErr
		c.mu.Unlock()
		if closed {
			return nil, nil, fmt.Errorf("upstream %q is stopping", c.s.name())
		}
		if cli != nil {
			select {
			case <-ended:
				// The session is over (its process exited) and the
				// supervisor has not torn it down yet: wait for the next.
				c.teardown(cli, c.exitReason())
				continue
			default:
			}
			return cli, ended, nil
		}
		select {
		case <-ready:
		case <-ctx.Done():
			msg := fmt.Sprintf("upstream %q is not connected", c.s.name())
			if last != "" {
				msg += " (last error: " + last + ")"
			}
			return nil, nil, errors.New(msg)
		}
	}
}

// connect starts one session and initializes it; on success c serves it.
func (c *conn) connect(ctx context.Context) error {
	c.mu.Lock()
	c.why = nil
	c.mu.Unlock()
	cli, ended, stop, kind, err := c.dial(ctx)
	if err != nil {
		c.mu.Lock()
		c.lastErr = c.s.redact(err.Error())
		c.mu.Unlock()
		return err
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		stop()
		return errors.New("closed")
	}
	c.cli, c.ended, c.stopFn, c.kind, c.up = cli, ended, stop, kind, true
	close(c.ready)
	c.mu.Unlock()
	if c == c.s.main {
		c.s.h.Metrics.UpstreamUp.WithLabelValues(c.s.name()).Set(1)
		c.s.resubscribe(cli)
		c.s.relevel(cli)
	}
	return nil
}

// supervise keeps c's session up until c is closed: when it ends, it is
// started again after a backoff that doubles up to maxBackoff and starts
// over once a session lived longer than maxBackoff.
func (c *conn) supervise() {
	defer c.s.wg.Done()
	ctx := c.s.ctx
	backoff := minBackoff
	first := true
	reason := "" // why the next start is a restart (restartReason)
	for ctx.Err() == nil {
		c.mu.Lock()
		cli, ended, closed := c.cli, c.ended, c.closed
		c.mu.Unlock()
		if closed {
			return
		}
		if cli == nil {
			if !first {
				select {
				case <-time.After(backoff):
				case <-ctx.Done():
					return
				case <-c.wakeup:
				}
				backoff = min(2*backoff, maxBackoff)
				c.s.restarts.Add(1)
				c.s.h.Metrics.UpstreamRestarts.WithLabelValues(c.s.name(), reason).Inc()
			}
			first = false
			ictx, cancel := context.WithTimeout(ctx, time.Duration(c.s.spec.Limits.StartTimeout))
			err := c.connect(ictx)
			cancel()
			if err != nil {
				reason = restartReason(nil)
				if ctx.Err() == nil {
					c.s.h.Logger.Warn("upstream could not be started; retrying", "upstream", c.s.name(), "error", c.s.redact(err.Error()), "retry_in", backoff)
				}
				continue
			}
			c.s.h.Logger.Info("upstream connected", "upstream", c.s.name(), "transport", c.kind, "session", c.ownerLabel())
			if c == c.s.main {
				if err := c.s.relist(ctx); err != nil && ctx.Err() == nil {
					c.s.h.Logger.Warn("upstream connected, but listing what it provides failed", "upstream", c.s.name(), "error", c.s.redact(err.Error()))
				}
			}
			continue
		}
		first = false
		started := time.Now()
		var ping <-chan time.Time
		if c.kind != "stdio" && c == c.s.main {
			t := time.NewTicker(pingEvery)
			ping = t.C
			defer t.Stop()
		}
	alive:
		for {
			select {
			case <-ended:
				break alive
			case <-ctx.Done():
				return
			case <-ping:
				pctx, cancel := context.WithTimeout(ctx, time.Duration(c.s.spec.Limits.Timeout))
				err := cli.Ping(pctx)
				cancel()
				if err != nil && transportError(err) {
					c.down(fmt.Errorf("stopped answering pings: %w", err))
				}
			}
		}
		c.mu.Lock()
		why := c.why
		c.mu.Unlock()
		reason = restartReason(why)
		if time.Since(started) > maxBackoff {
			backoff = minBackoff
		}
		if ctx.Err() == nil {
			c.s.h.Logger.Warn("upstream session ended; restarting", "upstream", c.s.name(), "session", c.ownerLabel(), "error", c.s.redactErr(why), "retry_in", backoff)
		}
		c.teardown(cli, why)
	}
}

func (c *conn) ownerLabel() string {
	if c.owner == "" {
		return "shared"
	}
	return "per_client"
}

// down ends the current session because of why (a broken connection).
func (c *conn) down(why error) {
	c.mu.Lock()
	stop := c.stopFn
	if c.why == nil {
		c.why = why
	}
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// teardown forgets the ended session cli (nil: whatever session c has):
// calls wait for the next one. A session already torn down is left alone.
func (c *conn) teardown(ended *client.Client, why error) {
	c.mu.Lock()
	if ended != nil && c.cli != ended {
		c.mu.Unlock()
		return
	}
	cli, stop := c.cli, c.stopFn
	if cli == nil && ended == nil && c.stopFn == nil {
		// Nothing to tear down (closing a conn that is down).
		c.mu.Unlock()
		return
	}
	c.cli, c.stopFn, c.up = nil, nil, false // why stays, for the calls that ended with it, until the next session starts
	if why != nil {
		c.lastErr = c.s.redact(why.Error())
	}
	c.ready = make(chan struct{})
	closing := c.closed
	c.mu.Unlock()
	if c == c.s.main && !closing {
		// Not when it is closing: the upstream is gone from the serving
		// snapshot (Retire deleted its series) or served by a new
		// session of the same name, whose gauge this is.
		c.s.h.Metrics.UpstreamUp.WithLabelValues(c.s.name()).Set(0)
	}
	if stop != nil {
		stop()
	}
	if cli != nil {
		_ = cli.Close()
	}
}

// close ends c for good.
func (c *conn) close() {
	c.mu.Lock()
	c.closed = true
	r := c.ready
	c.mu.Unlock()
	c.teardown(nil, nil)
	c.mu.Lock()
	select { // wake the calls waiting for a session: there will be none
	case <-r:
	default:
		close(r)
	}
	c.mu.Unlock()
	select {
	case c.wakeup <- struct{}{}:
	default:
	}
}

// exitReason is why the session that ended signalled ended ended: the
// process's exit status, or the broken connection.
func (c *conn) exitReason() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.why
}

// dial starts one session: a process (stdio) or a connection (url), and
// initializes it. ended is closed when the session ends; stop ends it.
func (c *conn) dial(ctx context.Context) (cli *client.Client, ended chan struct{}, stop func(), kind string, err error) {
	if c.s.spec.Stdio() {
		return c.dialStdio(ctx)
	}
	return c.dialHTTP(ctx)
}

func (c *conn) dialStdio(ctx context.Context) (*client.Client, chan struct{}, func(), string, error) {
	spec := c.s.spec
	var sb *childproc.Sandbox
	if spec.Sandbox != nil {
		sb = &childproc.Sandbox{Read: spec.Sandbox.Read, Write: spec.Sandbox.Write, Network: spec.Sandbox.NetworkAll, Ports: spec.Sandbox.Ports}
	}
	pctx, kill := context.WithCancel(c.s.ctx)
	cmd, err := childproc.Command(pctx, childproc.Spec{Argv: spec.Command, Env: spec.ChildEnv, Dir: spec.Cwd, Sandbox: sb})
	if err != nil {
		kill()
		return nil, nil, nil, "", fmt.Errorf("cannot start %q: %w", spec.Command[0], err)
	}
	cmd.WaitDelay = 2 * time.Second
	inR, inW, err := os.Pipe()
	if err != nil {
		kill()
		return nil, nil, nil, "", err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		kill()
		inR.Close()
		inW.Close()
		return nil, nil, nil, "", err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		kill()
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, nil, nil, "", err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		kill()
		for _, f := range []*os.File{inR, inW, outR, outW, errR, errW} {
			f.Close()
		}
		return nil, nil, nil, "", fmt.Errorf("cannot start %q: %w", spec.Command[0], err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	ended := make(chan struct{})
	out := &lineReader{r: bufio.NewReaderSize(outR, 64<<10), max: int(spec.Limits.MaxMessage)}
	c.s.wg.Add(2)
	go func() { // the exit status, once the process is gone
		defer c.s.wg.Done()
		err := cmd.Wait()
		if err == nil {
			err = errors.New("exit status 0")
		}
		if p := out.problem(); p != nil && c.current() != nil {
			err = fmt.Errorf("%v (%w)", err, p)
		}
		c.mu.Lock()
		if c.why == nil {
			c.why = fmt.Errorf("exited: %w", err)
		}
		c.mu.Unlock()
		outR.Close()
		close(ended)
	}()
	tail := &stderrTail{} // for the error of a start that fails
	errDone := make(chan struct{})
	go func() { // stderr, line by line, to the log
		defer c.s.wg.Done()
		defer close(errDone)
		defer errR.Close()
		stderrLines(errR, maxStderrLine, func(line []byte, dropped int) {
			tail.add(line)
			if dropped > 0 {
				c.s.stderrLog.Log(context.Background(), c.s.h.Logger, slog.LevelInfo, "upstream stderr", "source", c.s.name(), "line", string(line), "dropped_bytes", dropped)
				return
			}
			c.s.stderrLog.Log(context.Background(), c.s.h.Logger, slog.LevelInfo, "upstream stderr", "source", c.s.name(), "line", string(line))
		})
	}()
	// stdout closed or a message too large: the process goes. A server
	// whose stdout just closed is given a moment to exit by itself first,
	// so that its exit status (not our kill) is what the error reports:
	// the childproc shim outlives the server by the few milliseconds it
	// takes to reap what it left. One that misbehaved is killed at once.
	out.onEnd = sync.OnceFunc(func() {
		if out.problem() != nil { // it misbehaved: no waiting
			kill()
			return
		}
		// A timer, not a goroutine counted in c.s.wg: onEnd runs on the
		// transport's reader, which may be after the source's Wait began
		// (a WaitGroup's Add must not race its Wait).
		time.AfterFunc(time.Second, func() {
			select {
			case <-ended:
			default:
				kill()
			}
		})
	})
	in := newStdinWriter(inW, time.Duration(spec.Limits.Timeout))
	stop := sync.OnceFunc(func() {
		in.close() // a well-behaved server exits at the end of its input
		select {
		case <-ended:
		case <-time.After(500 * time.Millisecond):
		}
		kill()
		<-ended
	})
	in.onStall = func(why error) { // stopped reading its stdin: it goes, and is started again
		c.s.h.Logger.Warn("upstream stopped reading its stdin; restarting it", "upstream", c.s.name(), "session", c.ownerLabel(), "error", why)
		c.mu.Lock()
		if c.why == nil {
			c.why = why
		}
		c.mu.Unlock()
		stop()
	}
	c.s.wg.Add(1)
	go func() {
		defer c.s.wg.Done()
		in.run()
	}()
	tr := transport.NewIO(out, in, nil)
	cli := client.NewClient(tr, c.s.clientOptions(c)...)
	cli.OnNotification(func(n mcp.JSONRPCNotification) { c.s.onNotification(c, n) })
	if err := c.initialize(ctx, cli, ended); err != nil {
		exited := false
		wait := time.Duration(0)
		if transportError(err) { // its stdout closed: the exit status follows
			wait = time.Second
		}
		select {
		case <-ended:
			exited = true // on its own, before stop
		default:
			select {
			case <-ended:
				exited = true
			case <-time.After(wait):
			}
		}
		stop()
		if p := out.problem(); p != nil {
			err = fmt.Errorf("%w; its stdout: %v", err, p)
		}
		if why := c.exitReason(); why != nil && exited {
			err = fmt.Errorf("exited before it answered initialize (%v)", why)
		}
		select { // what it wrote to stderr up to its end
		case <-errDone:
		case <-time.After(500 * time.Millisecond):
		}
		if t := tail.String(); t != "" {
			err = fmt.Errorf("%w; its last lines on stderr: %s", err, c.s.redact(t))
		}
		if spec.Sandbox != nil {
			err = fmt.Errorf("%w (it runs in a sandbox: whatever it reads, writes or connects to must be granted; see docs/upstreams.md#sandbox-for-local-servers)", err)
		}
		c.mu.Lock()
		c.why = nil
		c.mu.Unlock()
		_ = cli.Close()
		return nil, nil, nil, "", err
	}
	return cli, ended, stop, "stdio", nil
}

// initialize starts cli and runs the initialize handshake, bounded by
// ctx and by the session ending.
func (c *conn) initialize(ctx context.Context, cli *client.Client, ended <-chan struct{}) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if ended != nil {
		go func() {
			select {
			case <-ended:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	// The transport keeps Start's context for the server's requests and
	// (HTTP) its listening stream: the server's, not initialize's.
	if err := cli.Start(c.s.ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "wasmgate", Version: "upstream"}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if c.ds != nil {
		if ci, ok := c.ds.(mcpserver.SessionWithClientInfo); ok {
			caps := ci.GetClientCapabilities()
			req.Params.Capabilities.Roots = caps.Roots
		}
	}
	if _, err := cli.Initialize(ctx, req); err != nil {
		select {
		case <-ended:
			return fmt.Errorf("exited before it answered initialize")
		default:
		}
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("did not answer initialize within %s (limits.start_timeout)", time.Duration(c.s.spec.Limits.StartTimeout))
		}
		return fmt.Errorf("initialize: %w", err)
	}
	return nil
}

func (c *conn) dialHTTP(ctx context.Context) (*client.Client, chan struct{}, func(), string, error) {
	spec := c.s.spec
	hc, err := c.s.httpClient()
	if err != nil {
		return nil, nil, nil, "", err
	}
	headers := map[string]string{}
	for k, v := range spec.Headers {
		headers[k] = v
	}
	if c.s.secrets.bearer.IsSet() {
		headers["Authorization"] = "Bearer " + c.s.secrets.bearer.Value()
	}
	ended := make(chan struct{})
	stop := sync.OnceFunc(func() { close(ended) })
	opts := []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(hc), transport.WithHTTPHeaders(headers),
		transport.WithHTTPHeaderFunc(traceHeaders),
		transport.WithHTTPLogger(slog.New(warnOnly{c.s.h.Logger.Handler(), c.s.credentials()}).With("upstream", c.s.name())),
		transport.WithStreamNotificationHandler(func(ctx context.Context, n mcp.JSONRPCNotification) bool { return c.s.onStreamNotification(ctx, c, n) })}
	if c == c.s.main {
		opts = append(opts, transport.WithContinuousListening())
	}
	tr, err := transport.NewStreamableHTTP(spec.URL, opts...)
	if err != nil {
		return nil, nil, nil, "", err
	}
	cli := client.NewClient(tr, c.s.clientOptions(c)...)
	cli.OnNotification(func(n mcp.JSONRPCNotification) { c.s.onNotification(c, n) })
	err = c.initialize(ctx, cli, nil)
	if err == nil {
		return cli, ended, stop, "streamable-http", nil
	}
	_ = cli.Close()
	var re *oauth2.RetrieveError
	var rr *redirectRefused
	if authError(err) || certError(err) || errors.As(err, &re) || errors.As(err, &rr) || ctx.Err() != nil {
		// No other transport would fare better.
		return nil, nil, nil, "", c.httpError(err)
	}
	// The older HTTP+SSE transport, for a server that only speaks it.
	sse, serr := transport.NewSSE(spec.URL, transport.WithHTTPClient(hc), transport.WithHeaders(headers), transport.WithHeaderFunc(traceHeaders))
	if serr == nil {
		scli := client.NewClient(sse, c.s.clientOptions(c)...)
		scli.OnNotification(func(n mcp.JSONRPCNotification) { c.s.onNotification(c, n) })
		if serr = c.initialize(ctx, scli, nil); serr == nil {
			return scli, ended, stop, "sse", nil
		}
		_ = scli.Close()
	}
	return nil, nil, nil, "", c.httpError(err)
}

// httpError says what failed talking to a remote upstream, without its
// credentials.
func (c *conn) httpError(err error) error {
	return errors.New(c.s.redact(c.explainHTTP(err).Error()))
}

func (c *conn) explainHTTP(err error) error {
	msg := err.Error()
	var rr *redirectRefused
	if errors.As(err, &rr) {
		return rr
	}
	if o := c.s.spec.Auth.OAuth; o != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			code := ""
			if re.Response != nil {
				code = re.Response.Status + " "
			}
			what := re.ErrorCode
			if re.ErrorDescription != "" {
				what += ": " + re.ErrorDescription
			}
			if what == "" {
				what = "no token"
			}
			return fmt.Errorf("the OAuth token endpoint %s refused the client credentials of client_id %q (%s%s); check auth.oauth", o.TokenURL, o.ClientID, code, what)
		}
	}
	if authError(err) {
		return fmt.Errorf("%s refused the gateway's credentials (401 %s); check auth", c.s.spec.URL, msg)
	}
	if certError(err) {
		hint := "set tls.ca_file to a PEM file of the CA that signed it"
		if ca := c.s.spec.TLS.CAFile; ca != "" {
			hint = fmt.Sprintf("tls.ca_file (%s) does not hold the CA that signed it", ca)
		}
		return fmt.Errorf("%s: its TLS certificate is not trusted (%s); %s", c.s.spec.URL, msg, hint)
	}
	if malformed(err) {
		return fmt.Errorf("%s answered with malformed JSON (%s)", c.s.spec.URL, msg)
	}
	if oe := dialError(err); oe != nil {
		// The connection itself failed: say so, without the client's
		// layers of "transport error: failed to send request: …".
		return fmt.Errorf("%s: cannot connect (%v); is the server running and listening there?", c.s.spec.URL, oe)
	}
	return fmt.Errorf("%s: %s", c.s.spec.URL, msg)
}

// certError reports whether err is the server's TLS certificate failing
// verification.
func certError(err error) bool {
	var cve *tls.CertificateVerificationError
	var uae x509.UnknownAuthorityError
	var hne x509.HostnameError
	var cie x509.CertificateInvalidError
	return errors.As(err, &cve) || errors.As(err, &uae) || errors.As(err, &hne) || errors.As(err, &cie)
}

// malformed reports whether err is a response that is not JSON (or not
// the JSON-RPC shape), as opposed to a connection that failed.
func malformed(err error) bool {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	return errors.As(err, &se) || errors.As(err, &te) ||
		(errors.Is(err, io.ErrUnexpectedEOF) && strings.Contains(err.Error(), "decode response"))
}

// dialError is the failed dial (connection refused, no route, a name
// that does not resolve) under err, or nil.
func dialError(err error) *net.OpError {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return oe
	}
	return nil
}

// transportError reports whether err is the connection failing rather
// than the server answering with an error.
func transportError(err error) bool {
	var te *transport.Error
	return errors.As(err, &te)
}

func authError(err error) bool {
	var are *transport.AuthorizationRequiredError
	var oae *transport.OAuthAuthorizationRequiredError
	return errors.Is(err, transport.ErrUnauthorized) || errors.As(err, &are) || errors.As(err, &oae)
}

// httpClient is the HTTP client of a remote upstream: its CA, and OAuth
// client credentials when configured. Neither it nor the token
// endpoint's client follows a redirect unless follow_redirects allows it
// (and then only within the origin), connects to the gateway's own
// listeners, or shows a credential in an error answer (outbound.go).
func (s *shared) httpClient() (*http.Client, error) {
	s.hcMu.Lock()
	defer s.hcMu.Unlock()
	if s.hc != nil {
		return s.hc, nil
	}
	o := &outbound{s: s, creds: s.credentials(), log: lograte.New(lograte.DefaultBurst, lograte.DefaultEvery, nil)}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = s.spec.Limits.Concurrency // one per call that may run at once, kept
	base.DialContext = o.dialer()
	if ca := s.spec.TLS.CAFile; ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("tls.ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls.ca_file %q holds no PEM certificate", ca)
		}
		base.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	rt := &limitBody{rt: scrubbed{rt: base, creds: o.creds}, max: int64(s.spec.Limits.MaxMessage)}
	hc := &http.Client{Transport: rt, CheckRedirect: o.checkRedirect(s.spec.URL, s.spec.Key+".url", "")}
	if oa := s.spec.Auth.OAuth; oa != nil {
		tc := &http.Client{Transport: rt, CheckRedirect: o.checkRedirect(oa.TokenURL, oa.Key+".token_url", "its OAuth token endpoint")}
		cc := clientcredentials.Config{ClientID: oa.ClientID, ClientSecret: s.secrets.clientSecret.Value(), TokenURL: oa.TokenURL, Scopes: oa.Scopes}
		src := issuedTokens{src: cc.TokenSource(context.WithValue(s.ctx, oauth2.HTTPClient, tc)), creds: o.creds}
		hc = &http.Client{Transport: &oauth2.Transport{Base: rt, Source: oauth2.ReuseTokenSource(nil, src)}, CheckRedirect: hc.CheckRedirect}
	}
	s.hc, s.hcIdle = hc, base.CloseIdleConnections
	return hc, nil
}

// credentials are what the upstream's errors never show (outbound.go).
func (s *shared) credentials() *credentials {
	s.credsOnce.Do(func() {
		id := ""
		if o := s.spec.Auth.OAuth; o != nil {
			id = o.ClientID
		}
		s.creds = newCredentials(s.secrets, id)
	})
	return s.creds
}

// redact replaces the upstream's credentials in msg by [secret].
func (s *shared) redact(msg string) string { return s.credentials().redact(msg) }

// redactErr is err's message without the upstream's credentials ("" for
// nil).
func (s *shared) redactErr(err error) string {
	if err == nil {
		return ""
	}
	return s.redact(err.Error())
}

// closeIdle closes the idle connections of the remote upstream's client,
// once it stopped.
func (s *shared) closeIdle() {
	s.hcMu.Lock()
	defer s.hcMu.Unlock()
	if s.hcIdle != nil {
		s.hcIdle()
	}
}

// limitBody bounds a remote upstream's answers to max bytes
// (limits.max_message): a JSON answer longer than that, or one event of
// an event stream, fails its request, and is not read into memory. The
// call whose request it was learns why (tooLongMark).
type limitBody struct {
	rt  http.RoundTripper
	max int64
}

func (l *limitBody) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.rt.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	mark, _ := req.Context().Value(tooLongKey{}).(*atomic.Bool)
	resp.Body = &limitedBody{rc: resp.Body, left: l.max, max: l.max, events: strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"), mark: mark}
	return resp, nil
}

// tooLongKey marks a call's context: its request's answer was longer than
// limits.max_message.
type tooLongKey struct{}

// tooLongMark is ctx with a mark, and the mark.
func tooLongMark(ctx context.Context) (context.Context, *atomic.Bool) {
	m := new(atomic.Bool)
	return context.WithValue(ctx, tooLongKey{}, m), m
}

type limitedBody struct {
	rc     io.ReadCloser
	left   int64 // bytes the current answer (or event) may still have
	max    int64
	events bool // an event stream: the limit is per event
	nl     bool // the last byte read was a newline (events)
	mark   *atomic.Bool
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if !b.events && int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	if b.events {
		// An event ends at an empty line.
		for _, c := range p[:n] {
			switch {
			case c == '\n' && b.nl:
				b.left = b.max
			case c == '\n':
				b.nl = true
			case c != '\r':
				b.nl = false
			}
			b.left--
			if b.left < 0 {
				return b.tooLong()
			}
		}
		return n, err
	}
	b.left -= int64(n)
	if b.left < 0 {
		return b.tooLong()
	}
	return n, err
}

func (b *limitedBody) tooLong() (int, error) {
	if b.mark != nil {
		b.mark.Store(true)
	}
	return 0, errTooLong
}

func (b *limitedBody) Close() error { return b.rc.Close() }

var errTooLong = errors.New("the answer is longer than limits.max_message")

// lineReader passes a stdio server's stdout on, refusing a line longer
// than max (the session ends) and remembering the first line that is not
// a JSON-RPC message, for the error that says why initialize failed.
type lineReader struct {
	r     *bufio.Reader
	max   int
	onEnd func()

	mu      sync.Mutex
	buf     []byte
	bad     string
	tooLong bool
	n       int // bytes of the current line so far
}

func (l *lineReader) Read(p []byte) (int, error) {
	for len(l.buf) == 0 {
		chunk, err := l.r.ReadSlice('\n')
		if len(chunk) > 0 {
			if l.n == 0 {
				l.check(chunk)
			}
			l.n += len(chunk)
			if l.n > l.max {
				l.mu.Lock()
				l.tooLong = true
				l.mu.Unlock()
				l.end()
				return 0, fmt.Errorf("a message longer than limits.max_message (%d bytes)", l.max)
			}
			if chunk[len(chunk)-1] == '\n' {
				l.n = 0
			}
			l.buf = chunk // valid until the next ReadSlice, after it is copied out
		}
		if err != nil && err != bufio.ErrBufferFull {
			if len(l.buf) > 0 {
				break
			}
			l.end()
			return 0, err
		}
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

func (l *lineReader) check(line []byte) {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] == '{' {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bad == "" {
		if len(t) > 80 {
			t = append(t[:80:80], "…"...)
		}
		l.bad = string(t)
	}
}

func (l *lineReader) end() {
	if l.onEnd != nil {
		l.onEnd()
	}
}

// problem is what was wrong with the stdout, if anything.
func (l *lineReader) problem() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.tooLong:
		return fmt.Errorf("it wrote a message longer than limits.max_message (%d bytes)", l.max)
	case l.bad != "":
		return fmt.Errorf("it wrote a line that is not JSON-RPC: %q (an MCP server over stdio may write only JSON-RPC messages to stdout; logs go to stderr)", l.bad)
	}
	return nil
}

// warnOnly passes on the transport's warnings and errors only (not its
// "listening" chatter), without the upstream's credentials.
type warnOnly struct {
	slog.Handler
	creds *credentials
}

func (w warnOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warnOnly) Handle(ctx context.Context, r slog.Record) error {
	level := r.Level
	if r.Message == "error handling request" {
		// The transport answered a request of the upstream (sampling,
		// elicitation, roots) with the error the gateway gave: that is
		// an answer, not a fault of the gateway. A documented refusal
		// was logged (rate limited) and counted where it was decided.
		refused := false
		r.Attrs(func(a slog.Attr) bool {
			if err, ok := a.Value.Any().(error); ok && errors.As(err, new(refusedRequest)) {
				refused = true
			}
			return !refused
		})
		if refused {
			return nil
		}
		level = min(level, slog.LevelWarn)
	}
	out := slog.NewRecord(r.Time, level, w.creds.redact(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if k := a.Value.Kind(); k == slog.KindString || k == slog.KindAny {
			a.Value = slog.StringValue(w.creds.redact(a.Value.String()))
		}
		out.AddAttrs(a)
		return true
	})
	return w.Handler.Handle(ctx, out)
}

func (w warnOnly) WithAttrs(as []slog.Attr) slog.Handler {
	return warnOnly{w.Handler.WithAttrs(as), w.creds}
}
func (w warnOnly) WithGroup(g string) slog.Handler { return warnOnly{w.Handler.WithGroup(g), w.creds} }
