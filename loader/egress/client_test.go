package egress

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// server is a real HTTP server on 127.0.0.1 that records what reached it.
type server struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string // "METHOD /path body"
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.hits = append(s.hits, fmt.Sprintf("%s %s %s", r.Method, r.URL.Path, body))
		s.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		fmt.Fprintf(w, "%s %s %s", r.Method, r.URL.Path, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) Hits() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hits...)
}

func (s *server) port() string {
	_, p, _ := net.SplitHostPort(s.Listener.Addr().String())
	return p
}

// fakeResolver answers from a table, as a DNS server pointing names
// anywhere would.
type fakeResolver map[string][]string

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	ips, ok := r[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, ip := range ips {
		out = append(out, netip.MustParseAddr(ip))
	}
	return out, nil
}

func newClient(t *testing.T, o Options) *Client {
	t.Helper()
	if o.MaxResponse == 0 {
		o.MaxResponse = 1 << 20
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func do(t *testing.T, c *Client, method, u string, body string) (int, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		t.Fatal(err)
	}
	status, _, b, err := c.Do(req)
	return status, string(b), err
}

func wantRefused(t *testing.T, err error, contains ...string) {
	t.Helper()
	t.Logf("error: %v", err)
	if err == nil {
		t.Fatalf("no error; want refused with %q", contains)
	}
	for _, s := range contains {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
}

func TestAllowed(t *testing.T) {
	a := newServer(t, nil)
	c := newClient(t, Options{AllowedHosts: []string{"127.0.0.1:" + a.port()}})
	status, body, err := do(t, c, "POST", a.URL+"/echo", "hello")
	if err != nil || status != 200 || body != "POST /echo hello" {
		t.Fatalf("POST = %d %q %v, want 200 \"POST /echo hello\"", status, body, err)
	}
}

func TestRefusedBeforeTheNetwork(t *testing.T) {
	a := newServer(t, nil)
	b := newServer(t, nil)
	c := newClient(t, Options{AllowedHosts: []string{"127.0.0.1:" + a.port(), "localhost"}})
	for _, u := range []string{
		b.URL + "/",                       // a port not granted on a granted host
		"http://localhost:" + b.port(),    // localhost is granted on 80 and 443 only
		"ftp://127.0.0.1:" + a.port(),     // a scheme that is not http(s)
		"http://[::1]:" + a.port() + "/x", // the same machine by another name
	} {
		_, _, err := do(t, c, "GET", u, "")
		wantRefused(t, err, "refused")
	}
	if h := b.Hits(); len(h) != 0 {
		t.Errorf("the disallowed server got %v", h)
	}
}

func TestRedirects(t *testing.T) {
	b := newServer(t, nil)
	own := newServer(t, nil) // stands for the gateway's admin listener
	listeners := &Listeners{}
	if err := listeners.Set(own.Listener.Addr().String()); err != nil {
		t.Fatal(err)
	}
	a := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		to, code := r.URL.Query().Get("to"), 302
		if r.URL.Query().Get("code") == "307" {
			code = 307
		}
		http.Redirect(w, r, to, code)
	})
	redirect := func(to string, code int) string {
		return fmt.Sprintf("%s/r?code=%d&to=%s", a.URL, code, url.QueryEscape(to))
	}

	t.Run("to a port not granted", func(t *testing.T) {
		c := newClient(t, Options{AllowedHosts: []string{"127.0.0.1:" + a.port()}, Listeners: listeners})
		for _, code := range []int{302, 307} {
			_, _, err := do(t, c, "POST", redirect(b.URL+"/secret", code), "payload")
			wantRefused(t, err, "redirect to "+b.URL+"/secret refused", "not in allowed_hosts")
		}
		if h := b.Hits(); len(h) != 0 {
			t.Errorf("the redirect target got %v", h)
		}
	})
	t.Run("to a granted port", func(t *testing.T) {
		// The control: the same redirects are followed when granted, and a
		// 307 re-sends the body.
		c := newClient(t, Options{AllowedHosts: []string{"127.0.0.1:*"}, Listeners: listeners})
		status, body, err := do(t, c, "POST", redirect(b.URL+"/ok", 307), "payload")
		if err != nil || status != 200 || body != "POST /ok payload" {
			t.Fatalf("307 to a granted host = %d %q %v, want the body re-POSTed", status, body, err)
		}
		status, body, err = do(t, c, "POST", redirect(b.URL+"/ok", 302), "payload")
		if err != nil || status != 200 || body != "GET /ok " {
			t.Fatalf("302 to a granted host = %d %q %v, want a GET", status, body, err)
		}
	})
	t.Run("to the gateway's own listener", func(t *testing.T) {
		c := newClient(t, Options{AllowedHosts: []string{"127.0.0.1:*"}, Listeners: listeners})
		_, _, err := do(t, c, "POST", redirect(own.URL+"/-/reload", 307), "x")
		wantRefused(t, err, "gateway's own listener")
		_, _, err = do(t, c, "GET", own.URL+"/metrics", "")
		wantRefused(t, err, "gateway's own listener")
		if h := own.Hits(); len(h) != 0 {
			t.Errorf("the gateway's listener got %v", h)
		}
	})
	t.Run("too many", func(t *testing.T) {
		loop := newServer(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/again", 302) })
		c := newClient(t, Options{AllowedHosts: []string{"127.0.0.1:*"}})
		_, _, err := do(t, c, "GET", loop.URL, "")
		wantRefused(t, err, "stopped after 10 redirects")
	})
}

func TestResolvedAddressChecked(t *testing.T) {
	a := newServer(t, nil)
	r := fakeResolver{
		"rebind.example": {"127.0.0.1"},
		"mixed.example":  {"10.0.0.1", "127.0.0.1"},
		"localhost":      {"127.0.0.1"},
	}
	// A name granted by glob or by name, resolving to loopback: refused.
	for _, grants := range [][]string{{"rebind.example:*"}, {"*:*"}, {"*.example:" + a.port()}} {
		c := newClient(t, Options{AllowedHosts: grants, Resolver: r})
		_, _, err := do(t, c, "GET", "http://rebind.example:"+a.port()+"/", "")
		wantRefused(t, err, "127.0.0.1:"+a.port()+" (rebind.example) is a loopback address")
	}
	c := newClient(t, Options{AllowedHosts: []string{"mixed.example:*"}, Resolver: r})
	_, _, err := do(t, c, "GET", "http://mixed.example:"+a.port()+"/", "")
	wantRefused(t, err, "private")
	if h := a.Hits(); len(h) != 0 {
		t.Fatalf("the loopback server got %v", h)
	}
	// localhost names loopback.
	c = newClient(t, Options{AllowedHosts: []string{"localhost:*"}, Resolver: r})
	if status, body, err := do(t, c, "GET", "http://localhost:"+a.port()+"/ok", ""); err != nil || status != 200 || body != "GET /ok " {
		t.Fatalf("localhost granted = %d %q %v, want 200", status, body, err)
	}
	// A name that does not resolve.
	c = newClient(t, Options{AllowedHosts: []string{"*:*"}, Resolver: r})
	_, _, err = do(t, c, "GET", "http://nowhere.example:"+a.port()+"/", "")
	wantRefused(t, err, "nowhere.example", "no such host")
}

func TestProxyEnvironmentIgnored(t *testing.T) {
	proxy := newServer(t, nil)
	a := newServer(t, nil)
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	c := newClient(t, Options{AllowedHosts: []string{"127.0.0.1:" + a.port()}})
	if _, _, err := do(t, c, "GET", a.URL+"/direct", ""); err != nil {
		t.Fatal(err)
	}
	if h := proxy.Hits(); len(h) != 0 {
		t.Errorf("the request went through HTTP_PROXY: %v", h)
	}
}

func TestResponseCap(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 2048)
	a := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			w.Write(big[:1024])
			w.(http.Flusher).Flush()
			w.Write(big[1024:])
			return
		}
		if r.URL.Path == "/exact" {
			w.Write(big[:1024])
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(big)))
		w.Write(big)
	})
	c := newClient(t, Options{AllowedHosts: []string{"127.0.0.1:*"}, MaxResponse: 1024})
	for _, path := range []string{"/length", "/chunked"} {
		_, _, err := do(t, c, "GET", a.URL+path, "")
		wantRefused(t, err, "GET "+a.URL+path+": response body is larger than limits.http_response (1KiB)")
	}
	if status, body, err := do(t, c, "GET", a.URL+"/exact", ""); err != nil || status != 200 || len(body) != 1024 {
		t.Fatalf("a body of exactly the cap = %d, %d bytes, %v", status, len(body), err)
	}
}

func TestTimeoutLeavesTimeToAnswer(t *testing.T) {
	release := make(chan struct{})
	a := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c := newClient(t, Options{AllowedHosts: []string{"127.0.0.1:*"}})
	parent, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(parent, "GET", a.URL+"/hang", nil)
	_, _, _, err := c.Do(req)
	wantRefused(t, err, "GET "+a.URL+"/hang: timed out after", "limits.timeout")
	if parent.Err() != nil {
		t.Errorf("Do returned after the call's own deadline (%v): the plugin had no time left to handle the error", parent.Err())
	}

	// Without a deadline, the Timeout option bounds the request.
	c = newClient(t, Options{AllowedHosts: []string{"127.0.0.1:*"}, Timeout: 200 * time.Millisecond})
	req, _ = http.NewRequest("GET", a.URL+"/hang", nil)
	_, _, _, err = c.Do(req)
	wantRefused(t, err, "timed out after")
}

func TestNew(t *testing.T) {
	if _, err := New(Options{AllowedHosts: []string{"a:b"}, MaxResponse: 1}); err == nil || !strings.Contains(err.Error(), "allowed_hosts[0]") {
		t.Errorf("New with a bad grant = %v", err)
	}
	if _, err := New(Options{MaxResponse: 0}); err == nil {
		t.Error("New without a response cap succeeded")
	}
}

// TestAdminHeaderDropped: a plugin's request never carries the admin
// listener's Wasmgate-Admin header, whatever the plugin set.
func TestAdminHeaderDropped(t *testing.T) {
	var got []string
	var mu sync.Mutex
	a := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Wasmgate-Admin")+"|"+r.Header.Get("X-Other"))
		mu.Unlock()
	})
	c := newClient(t, Options{AllowedHosts: []string{"127.0.0.1:" + a.port()}})
	req, err := http.NewRequest(http.MethodPost, a.URL+"/x", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Wasmgate-Admin", "1")
	req.Header.Set("X-Other", "kept")
	if _, _, _, err := c.Do(req); err != nil {
		t.Fatal(err)
	}
	if req.Header.Get("Wasmgate-Admin") != "1" {
		t.Error("the caller's request was changed")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "|kept" {
		t.Errorf("the server got %q, want the request without Wasmgate-Admin and with X-Other", got)
	}
}
