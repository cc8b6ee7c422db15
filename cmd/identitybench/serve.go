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
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/cmd/mcpbench/native"
	"github.com/wasmgate/wasmgate/internal/oauthtest"
)

// grantTokenExchange is RFC 8693's grant type.
const grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"

// Fixtures is what DIR/fixtures.json holds.
type Fixtures struct {
	Issuer          string `json:"issuer"`
	JWKSURL         string `json:"jwks_url"`
	TokenURL        string `json:"token_url"`
	NocacheTokenURL string `json:"nocache_token_url"`
	UpstreamURL     string `json:"upstream_url"`
	StatsURL        string `json:"stats_url"`
	ClientID        string `json:"client_id"`
	ClientSecret    string `json:"client_secret"`
	Audience        string `json:"audience"` // of the callers' tokens
}

// Stats is what /bench/stats answers.
type Stats struct {
	// TokenExchanges is every token exchange the provider answered;
	// NocacheExchanges those that came through /nocache/token.
	TokenExchanges   int   `json:"token_exchanges"`
	NocacheExchanges int64 `json:"nocache_exchanges"`
	// UpstreamBearers is how many distinct bearer tokens reached the
	// upstream; CallerTokensUpstream how many of them were a caller's own
	// access token (a token exchange never forwards it: 0).
	UpstreamBearers      int   `json:"upstream_bearers"`
	CallerTokensUpstream int   `json:"caller_tokens_upstream"`
	UpstreamRefused      int64 `json:"upstream_refused"` // tools/call requests without a bearer
}

// fixtureTB is the testing.TB the oauthtest provider takes, outside a
// test: Fatal panics (serve recovers it as an error) and Cleanup
// functions run when serve returns. Every other method is the nil
// embedded interface's and panics; the provider calls none of them.
type fixtureTB struct {
	testing.TB
	cleanups []func()
}

func (t *fixtureTB) Helper()                        {}
func (t *fixtureTB) Cleanup(f func())               { t.cleanups = append(t.cleanups, f) }
func (t *fixtureTB) Fatal(args ...any)              { panic(fatal(fmt.Sprint(args...))) }
func (t *fixtureTB) Fatalf(format string, a ...any) { panic(fatal(fmt.Sprintf(format, a...))) }

// close runs the cleanups, the last registered first.
func (t *fixtureTB) close() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// fatal is the panic of fixtureTB.Fatal.
type fatal string

// startProvider starts the oauthtest provider, its Fatal an error.
func startProvider(tb *fixtureTB, opts oauthtest.ProviderOptions) (p *oauthtest.Provider, err error) {
	defer func() {
		if r := recover(); r != nil {
			msg, ok := r.(fatal)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("starting the OpenID provider: %s", msg)
		}
	}()
	return oauthtest.StartProvider(tb, opts), nil
}

// mintTokens mints one caller token per user, its Fatal an error.
func mintTokens(tb *fixtureTB, p *oauthtest.Provider, users []string, audience string) (toks []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			msg, ok := r.(fatal)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("minting the callers' tokens: %s", msg)
		}
	}()
	for _, u := range users {
		toks = append(toks, p.AccessToken(tb, u, audience))
	}
	return toks, nil
}

// serve runs the fixtures until ctx ends.
func serve(ctx context.Context, dir string, nusers int, audience string, stdout io.Writer) error {
	tb := &fixtureTB{}
	defer tb.close()
	users := make([]string, nusers)
	for i := range users {
		users[i] = fmt.Sprintf("u%02d", i)
	}
	p, err := startProvider(tb, oauthtest.ProviderOptions{TokenLifetime: time.Hour, Users: users})
	if err != nil {
		return err
	}
	toks, err := mintTokens(tb, p, users, audience)
	if err != nil {
		return err
	}
	if err := writeLines(filepath.Join(dir, "tokens"), toks); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	base := "http://" + ln.Addr().String()
	up := newUpstream(toks)
	nc, err := newNocache(p.TokenURL)
	if err != nil {
		ln.Close()
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", up)
	mux.Handle("/nocache/token", nc)
	mux.HandleFunc("GET /bench/stats", func(w http.ResponseWriter, r *http.Request) {
		st := up.stats()
		st.TokenExchanges = p.Requests(grantTokenExchange)
		st.NocacheExchanges = nc.exchanges.Load()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(st)
	})
	fx := Fixtures{
		Issuer: p.Issuer, JWKSURL: p.JWKSURL, TokenURL: p.TokenURL,
		NocacheTokenURL: base + "/nocache/token", UpstreamURL: base + "/mcp", StatsURL: base + "/bench/stats",
		ClientID: oauthtest.ClientID, ClientSecret: oauthtest.ClientSecret, Audience: audience,
	}
	if err := writeJSON(filepath.Join(dir, "fixtures.json"), fx); err != nil {
		ln.Close()
		return err
	}

	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "serving %s (provider %s, %d users)\n", fx.UpstreamURL, p.Issuer, nusers)
	select {
	case err := <-done:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", err)
	}
	return nil
}

// writeLines writes lines to path, one a line.
func writeLines(path string, lines []string) error {
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// upstream is the bench upstream: mcp-go with the native calculate tool,
// refusing a tools/call without a bearer token, recording the distinct
// bearers it saw.
type upstream struct {
	next    http.Handler
	callers map[string]bool // the callers' own tokens, read-only
	refused atomic.Int64

	mu   sync.Mutex
	seen map[string]bool
}

func newUpstream(callerTokens []string) *upstream {
	u := &upstream{
		next:    server.NewStreamableHTTPServer(native.Server(), server.WithEndpointPath("/mcp")),
		callers: map[string]bool{},
		seen:    map[string]bool{},
	}
	for _, t := range callerTokens {
		u.callers[t] = true
	}
	return u
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	authz := r.Header.Get("Authorization")
	if authz == "" && r.Method == http.MethodPost {
		// The gateway lists an upstream's tools before any caller, without
		// a token (as internal/oauthtest's whoami allows): only tools/call
		// needs one.
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "reading the body", http.StatusBadRequest)
			return
		}
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			u.refused.Add(1)
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "a bearer token is required", http.StatusUnauthorized)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	if tok, ok := strings.CutPrefix(authz, "Bearer "); ok && tok != "" {
		u.mu.Lock()
		u.seen[tok] = true
		u.mu.Unlock()
	}
	u.next.ServeHTTP(w, r)
}

func (u *upstream) stats() Stats {
	u.mu.Lock()
	defer u.mu.Unlock()
	st := Stats{UpstreamBearers: len(u.seen), UpstreamRefused: u.refused.Load()}
	for t := range u.seen {
		if u.callers[t] {
			st.CallerTokensUpstream++
		}
	}
	return st
}

// nocache is the provider's token endpoint behind a reverse proxy that
// sets expires_in to 1 in every successful answer: a client keeps no
// such token (wasmgate keeps a token until 30 s before it expires).
type nocache struct {
	rp        *httputil.ReverseProxy
	exchanges atomic.Int64
}

func newNocache(tokenURL string) (*nocache, error) {
	target, err := url.Parse(tokenURL)
	if err != nil {
		return nil, fmt.Errorf("the provider's token URL: %w", err)
	}
	nc := &nocache{}
	nc.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: target.Scheme, Host: target.Host})
			pr.Out.URL.Path = target.Path
		},
		Transport:      &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true},
		ModifyResponse: shortLived,
	}
	return nc, nil
}

func (nc *nocache) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	if r.PostForm.Get("grant_type") == grantTokenExchange {
		nc.exchanges.Add(1)
	}
	// ParseForm consumed the body: send the form on.
	body := r.PostForm.Encode()
	r.Body = io.NopCloser(strings.NewReader(body))
	r.ContentLength = int64(len(body))
	nc.rp.ServeHTTP(w, r)
}

// shortLived rewrites a token answer's expires_in to 1.
func shortLived(resp *http.Response) error {
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return fmt.Errorf("reading the token answer: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("decoding the token answer: %w", err)
	}
	m["expires_in"] = 1
	if b, err = json.Marshal(m); err != nil {
		return fmt.Errorf("encoding the token answer: %w", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
	return nil
}
