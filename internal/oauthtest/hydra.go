// Package oauthtest starts real authorization servers for tests: ORY Hydra
// (authorization code with PKCE, refresh rotation; this file) and an
// OpenID provider with token exchange built on zitadel/oidc.
package oauthtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// HydraInstall is how to install the hydra binary the tests run (the
// module's replace directives keep `go install ...@v2.3.0` from working).
const HydraInstall = "bash scripts/install-hydra.sh"

// HydraOptions configure StartHydra.
type HydraOptions struct {
	// AccessTokenTTL is how long access tokens live (1 h when zero): a
	// few seconds for refresh tests.
	AccessTokenTTL time.Duration
	// RefreshTokenTTL is how long refresh tokens live (720 h when zero).
	RefreshTokenTTL time.Duration
	// Audience, when set, is the audience of the access tokens of an
	// authorization request that asks for none (an OAuth client such as
	// the gateway's user_oauth sends no audience parameter): clients are
	// created allowed to it and consent grants it, so an upstream can
	// check that a token was issued for it.
	Audience string
}

// Hydra is an ORY Hydra (v2.3.0, `hydra serve all --dev`, in-memory
// database) the test started on free loopback ports, with a login and
// consent provider of its own. Access tokens are JWTs (so upstreams can
// check them against JWKSURL); refresh tokens rotate (Hydra's default).
//
// The login page (LoginURL) shows a form with a username field (id
// "username", button id "login") for browsers; a request to it with
// ?auto=<user> signs that user in at once (see AutoLogin, for Go
// clients). The user "deny" is refused (access_denied). Consent grants
// every requested scope and audience (HydraOptions.Audience when the
// request asks for none).
type Hydra struct {
	// Issuer is the issuer URL (with its trailing slash).
	Issuer string
	// PublicURL and AdminURL are the two listeners, without a trailing
	// slash.
	PublicURL, AdminURL string
	// AuthURL, TokenURL, JWKSURL and UserinfoURL are the public endpoints.
	AuthURL, TokenURL, JWKSURL, UserinfoURL string
	// LoginURL is the fixture's login page.
	LoginURL string

	t     testing.TB
	cmd   *exec.Cmd
	done  chan struct{}
	logf  string
	ui    *httptest.Server
	admin *http.Client
	aud   string // HydraOptions.Audience
	mu    sync.Mutex
}

// HTTPTimeout bounds each exchange with Hydra (a login or consent flow
// follows several redirects within it): a guard against a hang, not a
// measure. On a CI machine busy with the race-enabled tests, a flow once
// took over 10 s.
const HTTPTimeout = time.Minute

// hydraBinary finds hydra on PATH or in $(go env GOPATH)/bin. Absent, the
// test is skipped, unless OAUTHTEST_REQUIRE_HYDRA is set (CI sets it) when
// it fails.
func hydraBinary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("hydra"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			p := filepath.Join(dir, "bin", "hydra")
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p
			}
		}
	}
	if os.Getenv("OAUTHTEST_REQUIRE_HYDRA") != "" {
		t.Fatalf("hydra is not installed (%s)", HydraInstall)
	}
	t.Skipf("hydra is not installed (%s)", HydraInstall)
	return ""
}

// StartHydra runs Hydra and its login and consent provider, waits until
// Hydra is ready and stops both at the end of the test.
func StartHydra(t testing.TB, opts HydraOptions) *Hydra {
	t.Helper()
	bin := hydraBinary(t)
	if opts.AccessTokenTTL <= 0 {
		opts.AccessTokenTTL = time.Hour
	}
	if opts.RefreshTokenTTL <= 0 {
		opts.RefreshTokenTTL = 720 * time.Hour
	}
	h := &Hydra{t: t, admin: &http.Client{Timeout: HTTPTimeout}, aud: opts.Audience}
	h.ui = httptest.NewServer(http.HandlerFunc(h.serveUI))
	t.Cleanup(h.ui.Close)

	pub, adm := freePort(t), freePort(t)
	h.PublicURL = "http://127.0.0.1:" + pub
	h.AdminURL = "http://127.0.0.1:" + adm
	h.Issuer = h.PublicURL + "/"
	h.AuthURL = h.PublicURL + "/oauth2/auth"
	h.TokenURL = h.PublicURL + "/oauth2/token"
	h.JWKSURL = h.PublicURL + "/.well-known/jwks.json"
	h.UserinfoURL = h.PublicURL + "/userinfo"
	h.LoginURL = h.ui.URL + "/login"

	dir := t.TempDir()
	cfg := fmt.Sprintf(`dsn: memory
serve:
  public: {host: 127.0.0.1, port: %s}
  admin: {host: 127.0.0.1, port: %s}
urls:
  self: {issuer: %q, public: %q, admin: %q}
  login: %q
  consent: %q
  error: %q
secrets:
  system: [%q]
strategies:
  access_token: jwt
ttl:
  access_token: %s
  refresh_token: %s
oauth2:
  pkce: {enforced_for_public_clients: true}
log:
  level: warn
  leak_sensitive_values: false
`, pub, adm, h.Issuer, h.PublicURL+"/", h.AdminURL+"/", h.ui.URL+"/login", h.ui.URL+"/consent", h.ui.URL+"/error",
		"wasmgate-test-system-secret-"+strconv.FormatInt(time.Now().UnixNano(), 36), opts.AccessTokenTTL, opts.RefreshTokenTTL)
	cfgFile := filepath.Join(dir, "hydra.yaml")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	h.logf = filepath.Join(dir, "hydra.log")
	logf, err := os.Create(h.logf)
	if err != nil {
		t.Fatal(err)
	}
	h.cmd = exec.Command(bin, "serve", "all", "--dev", "--sqa-opt-out", "-c", cfgFile)
	h.cmd.Dir = dir
	h.cmd.Stdout, h.cmd.Stderr = logf, logf
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := h.cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start hydra: %v", err)
	}
	logf.Close()
	h.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { _ = cmd.Wait(); close(done) }(h.cmd, h.done)
	t.Cleanup(h.Stop)

	deadline := time.Now().Add(60 * time.Second)
	for !h.ready() {
		select {
		case <-h.done:
			t.Fatalf("hydra exited at start:\n%s", h.Log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("hydra was not ready in 60 s:\n%s", h.Log())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return h
}

func (h *Hydra) ready() bool {
	for _, u := range []string{h.AdminURL + "/health/ready", h.PublicURL + "/health/ready"} {
		resp, err := h.admin.Get(u)
		if err != nil {
			return false
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false
		}
	}
	return true
}

// Log is what Hydra wrote so far.
func (h *Hydra) Log() string {
	b, _ := os.ReadFile(h.logf)
	return string(b)
}

// Stop kills Hydra (an authorization server that is down); safe to call
// twice. Its in-memory database is gone with it.
func (h *Hydra) Stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cmd == nil {
		return
	}
	_ = h.cmd.Process.Kill()
	<-h.done
	h.cmd = nil
}

// Pause stops Hydra's process (SIGSTOP) without closing its sockets: an
// authorization server that accepts connections and never answers. It
// returns once every thread of the process has stopped (a signal is
// delivered asynchronously: a request sent right after kill(2) could
// still be answered). Resume continues it.
func (h *Hydra) Pause() {
	h.signal(syscall.SIGSTOP)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cmd == nil {
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for !stopped(h.cmd.Process.Pid) {
		if time.Now().After(deadline) {
			h.t.Errorf("hydra: not stopped 5 s after SIGSTOP")
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stopped reports whether every thread of process pid is stopped (state
// T in /proc/pid/task/*/stat).
func stopped(pid int) bool {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			return false
		}
		// pid (comm) state ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+2 >= len(b) || (b[i+2] != 'T' && b[i+2] != 't') {
			return false
		}
	}
	return true
}

// Resume continues a paused Hydra.
func (h *Hydra) Resume() { h.signal(syscall.SIGCONT) }

func (h *Hydra) signal(sig syscall.Signal) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cmd == nil {
		return
	}
	if err := h.cmd.Process.Signal(sig); err != nil {
		h.t.Errorf("hydra: %v: %v", sig, err)
	}
}

// Client is an OAuth client registered at Hydra.
type Client struct {
	ID, Secret string // Secret is empty for a public client
}

// CreateClient registers a client for authorization code (with refresh
// tokens) that may redirect to redirectURIs and ask for scopes (openid
// and offline_access are always allowed). An empty secret makes a public
// client (token_endpoint_auth_method none, PKCE required); otherwise it
// authenticates with client_secret_basic. With HydraOptions.Audience the
// client may ask for that audience.
func (h *Hydra) CreateClient(redirectURIs []string, secret string, scopes ...string) Client {
	h.t.Helper()
	body := map[string]any{
		"client_name":    "wasmgate test",
		"redirect_uris":  redirectURIs,
		"grant_types":    []string{"authorization_code", "refresh_token"},
		"response_types": []string{"code"},
		"scope":          strings.Join(append([]string{"openid", "offline_access"}, scopes...), " "),
	}
	if h.aud != "" {
		body["audience"] = []string{h.aud}
	}
	if secret == "" {
		body["token_endpoint_auth_method"] = "none"
	} else {
		body["client_secret"] = secret
		body["token_endpoint_auth_method"] = "client_secret_basic"
	}
	var out struct {
		ClientID string `json:"client_id"`
	}
	h.adminJSON(http.MethodPost, "/admin/clients", body, &out, http.StatusCreated)
	return Client{ID: out.ClientID, Secret: secret}
}

// RevokeGrants revokes every consent of subject, and with them every
// access and refresh token Hydra issued for it, and its login sessions.
func (h *Hydra) RevokeGrants(subject string) {
	h.t.Helper()
	q := url.Values{"subject": {subject}, "all": {"true"}}
	h.adminJSON(http.MethodDelete, "/admin/oauth2/auth/sessions/consent?"+q.Encode(), nil, nil, http.StatusNoContent)
	h.adminJSON(http.MethodDelete, "/admin/oauth2/auth/sessions/login?"+url.Values{"subject": {subject}}.Encode(), nil, nil, http.StatusNoContent)
}

// Introspection is Hydra's answer about a token.
type Introspection struct {
	Active   bool   `json:"active"`
	Subject  string `json:"sub"`
	ClientID string `json:"client_id"`
	Scope    string `json:"scope"`
}

// Introspect asks Hydra's admin API about a token.
func (h *Hydra) Introspect(token string) Introspection {
	h.t.Helper()
	resp, err := h.admin.PostForm(h.AdminURL+"/admin/oauth2/introspect", url.Values{"token": {token}})
	if err != nil {
		h.t.Fatalf("hydra introspect: %v", err)
	}
	defer resp.Body.Close()
	var in Introspection
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("hydra introspect: HTTP %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&in); err != nil {
		h.t.Fatalf("hydra introspect: %v", err)
	}
	return in
}

// AutoLogin is an http.Client CheckRedirect that signs user in at the
// fixture's login page without a form: it adds ?auto=user to the
// redirect there. Other redirects are followed as usual (up to 10).
func (h *Hydra) AutoLogin(user string) func(req *http.Request, via []*http.Request) error {
	login, _ := url.Parse(h.LoginURL)
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return fmt.Errorf("stopped after 10 redirects")
		}
		if req.URL.Host == login.Host && req.URL.Path == login.Path {
			q := req.URL.Query()
			q.Set("auto", user)
			req.URL.RawQuery = q.Encode()
		}
		return nil
	}
}

func (h *Hydra) adminJSON(method, path string, body, out any, want int) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.AdminURL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.admin.Do(req)
	if err != nil {
		h.t.Fatalf("hydra %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		h.t.Fatalf("hydra %s %s: HTTP %s: %s", method, path, resp.Status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			h.t.Fatalf("hydra %s %s: %v", method, path, err)
		}
	}
}

// admin calls the admin API for the login and consent provider; errors
// are answers, not test failures (it runs on the server's goroutines).
func (h *Hydra) adminCall(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.AdminURL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.admin.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: HTTP %s: %s", method, path, resp.Status, b)
	}
	return json.Unmarshal(b, out)
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Sign in</title></head><body>
<h1>Sign in (test authorization server)</h1>
<form method="post" action="/login">
<input type="hidden" name="login_challenge" value="{{.}}">
<label>Username <input type="text" name="username" id="username" autofocus></label>
<button type="submit" id="login">Sign in</button>
</form></body></html>
`))

// serveUI is the login and consent provider.
func (h *Hydra) serveUI(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/login":
		challenge, user := r.FormValue("login_challenge"), r.FormValue("auto")
		if r.Method == http.MethodPost {
			user = r.PostFormValue("username")
		}
		if challenge == "" {
			http.Error(w, "no login_challenge", http.StatusBadRequest)
			return
		}
		if user == "" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_ = loginPage.Execute(w, challenge)
			return
		}
		h.acceptLogin(w, r, challenge, user)
	case "/consent":
		h.acceptConsent(w, r, r.FormValue("consent_challenge"))
	case "/error":
		// Hydra sends here what it cannot send to the client's
		// redirect_uri (an unknown redirect_uri, say).
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "hydra error: %s: %s\n", r.FormValue("error"), r.FormValue("error_description"))
	default:
		http.NotFound(w, r)
	}
}

func (h *Hydra) acceptLogin(w http.ResponseWriter, r *http.Request, challenge, user string) {
	q := "?" + url.Values{"login_challenge": {challenge}}.Encode()
	var out struct {
		RedirectTo string `json:"redirect_to"`
	}
	var err error
	if user == "deny" {
		err = h.adminCall(r.Context(), http.MethodPut, "/admin/oauth2/auth/requests/login/reject"+q,
			map[string]any{"error": "access_denied", "error_description": "The user refused."}, &out)
	} else {
		err = h.adminCall(r.Context(), http.MethodPut, "/admin/oauth2/auth/requests/login/accept"+q,
			map[string]any{"subject": user, "remember": false}, &out)
	}
	if err != nil {
		http.Error(w, "login: "+err.Error(), http.StatusBadGateway)
		return
	}
	http.Redirect(w, r, out.RedirectTo, http.StatusFound)
}

func (h *Hydra) acceptConsent(w http.ResponseWriter, r *http.Request, challenge string) {
	if challenge == "" {
		http.Error(w, "no consent_challenge", http.StatusBadRequest)
		return
	}
	q := "?" + url.Values{"consent_challenge": {challenge}}.Encode()
	var req struct {
		Subject        string   `json:"subject"`
		RequestedScope []string `json:"requested_scope"`
		RequestedAud   []string `json:"requested_access_token_audience"`
	}
	if err := h.adminCall(r.Context(), http.MethodGet, "/admin/oauth2/auth/requests/consent"+q, nil, &req); err != nil {
		http.Error(w, "consent: "+err.Error(), http.StatusBadGateway)
		return
	}
	aud := req.RequestedAud
	if len(aud) == 0 && h.aud != "" {
		aud = []string{h.aud}
	}
	var out struct {
		RedirectTo string `json:"redirect_to"`
	}
	if err := h.adminCall(r.Context(), http.MethodPut, "/admin/oauth2/auth/requests/consent/accept"+q, map[string]any{
		"grant_scope":                 req.RequestedScope,
		"grant_access_token_audience": aud,
		"remember":                    false,
	}, &out); err != nil {
		http.Error(w, "consent: "+err.Error(), http.StatusBadGateway)
		return
	}
	http.Redirect(w, r, out.RedirectTo, http.StatusFound)
}

// freePort is a loopback port free right now.
func freePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}
