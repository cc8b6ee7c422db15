package upstreamauth

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/oauthtest"
)

// memStore is an in-memory GrantStore, as auth/vault's memory backend
// behaves (no encryption). It remembers every value put once, so tests
// can look for the verifiers it held in what the code shows.
type memStore struct {
	mu     sync.Mutex
	grants map[[2]string]Grant
	once   map[string]onceRec
	locks  map[[2]string]chan struct{}
	seen   [][]byte // every PutOnce value
	gets   atomic.Int64
}

type onceRec struct {
	v   []byte
	exp time.Time
}

func newMemStore() *memStore {
	return &memStore{grants: map[[2]string]Grant{}, once: map[string]onceRec{}, locks: map[[2]string]chan struct{}{}}
}

func (m *memStore) Get(_ context.Context, upstream, principal string) (Grant, bool, error) {
	m.gets.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ok := m.grants[[2]string{upstream, principal}]
	return g, ok, nil
}

func (m *memStore) Put(_ context.Context, g Grant) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.grants[[2]string{g.Upstream, g.Principal}] = g
	return nil
}

func (m *memStore) Delete(_ context.Context, upstream, principal string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := [2]string{upstream, principal}
	_, ok := m.grants[k]
	delete(m.grants, k)
	return ok, nil
}

func (m *memStore) PutOnce(_ context.Context, id string, value []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.once[id] = onceRec{v: bytes.Clone(value), exp: time.Now().Add(ttl)}
	m.seen = append(m.seen, bytes.Clone(value))
	return nil
}

func (m *memStore) TakeOnce(_ context.Context, id string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.once[id]
	delete(m.once, id)
	if !ok || time.Now().After(r.exp) {
		return nil, false, nil
	}
	return r.v, true, nil
}

func (m *memStore) Lock(ctx context.Context, upstream, principal string, _ time.Duration) (func(), error) {
	k := [2]string{upstream, principal}
	for {
		m.mu.Lock()
		ch, held := m.locks[k]
		if !held {
			ch = make(chan struct{})
			m.locks[k] = ch
			m.mu.Unlock()
			return func() {
				m.mu.Lock()
				delete(m.locks, k)
				m.mu.Unlock()
				close(ch)
			}, nil
		}
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (m *memStore) grant(upstream, principal string) (Grant, bool) {
	g, ok, _ := m.Get(context.Background(), upstream, principal)
	return g, ok
}

// verifiers are the PKCE verifiers the store was given.
func (m *memStore) verifiers() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, b := range m.seen {
		var r stateRecord
		if json.Unmarshal(b, &r) == nil && r.Verifier != "" {
			out = append(out, r.Verifier)
		}
	}
	return out
}

// syncBuffer collects log output from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// clock is a settable offset from the real time.
type clock struct{ off atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.off.Load())) }
func (c *clock) advance(d time.Duration) { c.off.Add(int64(d)) }

// env is a gateway's /oauth/ pages in front of one Hydra, with one
// user_oauth upstream "tickets" (or more).
type env struct {
	t       *testing.T
	hydra   *oauthtest.Hydra
	store   *memStore
	srv     *httptest.Server
	handler atomic.Pointer[ConnectHandler]
	logs    *syncBuffer
	log     *slog.Logger
	clock   *clock
	secrets []string // what must never show: tokens, codes, verifiers, client secrets
	seen    []string // what was shown: pages, errors
	mu      sync.Mutex
}

func newEnv(t *testing.T, hydra *oauthtest.Hydra) *env {
	t.Helper()
	e := &env{t: t, hydra: hydra, store: newMemStore(), logs: &syncBuffer{}, clock: &clock{}}
	e.log = slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.handler.Load().ServeHTTP(w, r)
	}))
	t.Cleanup(e.srv.Close)
	t.Cleanup(e.checkNoLeak)
	return e
}

// source makes the user_oauth source for upstream, registering a client
// at Hydra (confidential with secret, else public) that may redirect to
// the gateway's callback (or to redirect, when set), and serves the
// connect pages for the given sources.
func (e *env) source(upstream, secret string, edit func(*UserOAuthOptions)) *UserOAuth {
	e.t.Helper()
	cl := e.hydra.CreateClient([]string{e.srv.URL + "/oauth/callback"}, secret, "tickets.read")
	opts := UserOAuthOptions{
		Upstream: upstream, AuthorizationURL: e.hydra.AuthURL, TokenURL: e.hydra.TokenURL,
		ClientID: cl.ID, Scopes: []string{"openid", "offline_access", "tickets.read"},
		PublicURL: e.srv.URL, Store: e.store, Now: e.clock.now, Logger: e.log, Timeout: 2 * time.Second,
	}
	if secret != "" {
		opts.ClientSecret = config.NewSecret(secret)
		e.addSecret(secret)
	}
	if edit != nil {
		edit(&opts)
	}
	src, err := NewUserOAuth(opts)
	if err != nil {
		e.t.Fatal(err)
	}
	return src
}

func (e *env) serve(srcs ...*UserOAuth) {
	e.t.Helper()
	m := map[string]*UserOAuth{}
	for _, s := range srcs {
		m[s.Upstream()] = s
	}
	h, err := NewConnectHandler(m, e.log)
	if err != nil {
		e.t.Fatal(err)
	}
	e.handler.Store(h)
}

func (e *env) addSecret(s ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, v := range s {
		if v != "" {
			e.secrets = append(e.secrets, v)
		}
	}
}

func (e *env) shown(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, s)
}

// checkNoLeak fails the test if a page, an error or a log line showed a
// token, a code, a verifier or a client secret.
func (e *env) checkNoLeak() {
	e.mu.Lock()
	defer e.mu.Unlock()
	secrets := append(e.secrets, e.store.verifiers()...)
	for _, g := range e.store.grants {
		secrets = append(secrets, g.AccessToken.Value(), g.RefreshToken.Value())
	}
	texts := append(e.seen, e.logs.String())
	for _, s := range secrets {
		if len(s) < 8 {
			continue
		}
		for _, txt := range texts {
			if i := strings.Index(txt, s); i >= 0 {
				e.t.Errorf("a secret (%d bytes, starting %q) shows after: %q", len(s), s[:4], txt[max(0, i-120):i])
			}
		}
	}
}

// browser is one browser: its own cookie jar, signing in as user at
// Hydra's login page.
type browser struct {
	e *env
	c *http.Client
}

func (e *env) browser(user string) *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		e.t.Fatal(err)
	}
	login := e.hydra.AutoLogin(user)
	return &browser{e: e, c: &http.Client{Jar: jar, Timeout: 20 * time.Second, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Path == "/oauth/callback" && req.URL.Host == strings.TrimPrefix(e.srv.URL, "http://") {
			return http.ErrUseLastResponse // the test follows it itself
		}
		return login(req, via)
	}}}
}

// get fetches u and returns the status and the body, recorded as shown.
func (b *browser) do(req *http.Request) (*http.Response, string) {
	b.e.t.Helper()
	resp, err := b.c.Do(req)
	if err != nil {
		b.e.t.Fatalf("%s %s: %v", req.Method, req.URL.Redacted(), err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	b.e.shown(string(body))
	return resp, string(body)
}

func (b *browser) get(u string) (*http.Response, string) {
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	return b.do(req)
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// start opens a connect link, presses its button and goes through Hydra
// (login as the browser's user, consent) up to the redirect to the
// gateway's callback, which it returns without following.
func (b *browser) start(connectURL string) *url.URL {
	b.e.t.Helper()
	resp, page := b.get(connectURL)
	if resp.StatusCode != http.StatusOK {
		b.e.t.Fatalf("GET connect page: %s\n%s", resp.Status, page)
	}
	m := csrfRE.FindStringSubmatch(page)
	if m == nil {
		b.e.t.Fatalf("no csrf field in the connect page:\n%s", page)
	}
	req, _ := http.NewRequest(http.MethodPost, connectURL, strings.NewReader(url.Values{"csrf": {m[1]}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", b.e.srv.URL)
	resp, page = b.do(req)
	if resp.StatusCode != http.StatusSeeOther && resp.StatusCode != http.StatusFound {
		b.e.t.Fatalf("the flow stopped before the callback: %s %s\n%s", resp.Request.URL.Redacted(), resp.Status, page)
	}
	cb, err := resp.Location()
	if err != nil || cb.Path != "/oauth/callback" {
		b.e.t.Fatalf("the flow went to %v (%v), not to the callback", cb, err)
	}
	b.e.addSecret(cb.Query().Get("code"))
	return cb
}

// connect runs the whole flow and checks the final page.
func (b *browser) connect(connectURL string) string {
	b.e.t.Helper()
	resp, page := b.get(b.start(connectURL).String())
	if resp.StatusCode != http.StatusOK || !strings.Contains(page, "Connected ") {
		b.e.t.Fatalf("callback: %s\n%s", resp.Status, page)
	}
	return page
}

// connectURL asks src for principal's token, which must fail with a
// NotConnectedError, and returns its link.
func (e *env) connectURL(src *UserOAuth, principal string) string {
	e.t.Helper()
	_, err := src.Token(context.Background(), Caller{Principal: principal})
	nc, ok := err.(*NotConnectedError)
	if !ok {
		e.t.Fatalf("Token for %s: %v, want a NotConnectedError", principal, err)
	}
	e.shown(err.Error())
	if !strings.HasPrefix(nc.ConnectURL, e.srv.URL+"/oauth/connect/") || nc.Upstream != src.Upstream() {
		e.t.Fatalf("NotConnectedError %+v", nc)
	}
	return nc.ConnectURL
}

// token is principal's Token from src, which must succeed.
func (e *env) token(src *UserOAuth, principal string) Token {
	e.t.Helper()
	tok, err := src.Token(context.Background(), Caller{Principal: principal})
	if err != nil {
		e.shown(err.Error())
		e.t.Fatalf("Token for %s: %v", principal, err)
	}
	e.addSecret(tok.Value.Value())
	return tok
}
