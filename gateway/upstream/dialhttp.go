// Dialing a remote upstream: Streamable HTTP, falling back to HTTP+SSE,
// and the HTTP client both use (its CA, OAuth client credentials and body
// limits; redirects and connections are checked in outbound.go).

package upstream

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/wasmgate/wasmgate/internal/lograte"
)

func (c *conn) dialHTTP(ctx context.Context) (*client.Client, context.Context, func(), string, error) {
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
	ended, end := context.WithCancel(context.Background()) // a context, not a channel: a parked supervisor waits for it with no goroutine
	stop := func() { end() }
	opts := []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(hc), transport.WithHTTPHeaders(headers),
		transport.WithHTTPHeaderFunc(c.authHeaders),
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
	sse, serr := transport.NewSSE(spec.URL, transport.WithHTTPClient(hc), transport.WithHeaders(headers), transport.WithHeaderFunc(c.authHeaders))
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
	tc, err := s.tlsConfig()
	if err != nil {
		return nil, err
	}
	base.TLSClientConfig = tc
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

// closeIdle closes the idle connections of the remote upstream's client,
// once it stopped.
func (s *shared) closeIdle() {
	s.hcMu.Lock()
	defer s.hcMu.Unlock()
	if s.hcIdle != nil {
		s.hcIdle()
	}
}

// tlsConfig is the TLS client config of a remote upstream's requests:
// with tls.ca_file, its CAs; nil (Go's default) without.
func (s *shared) tlsConfig() (*tls.Config, error) {
	ca := s.spec.TLS.CAFile
	if ca == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(ca)
	if err != nil {
		return nil, fmt.Errorf("tls.ca_file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("tls.ca_file %q holds no PEM certificate", ca)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}
