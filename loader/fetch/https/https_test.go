package https

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/loader/egress"
	"github.com/wasmgate/wasmgate/loader/fetch"
)

func spec(source, pin string) fetch.Spec {
	return fetch.Spec{Plugin: "calc", Key: "plugins[0]", Source: source, SHA256: pin}
}

// serve serves files (path -> body) and counts the requests.
func serve(t *testing.T, tls bool, files map[string][]byte) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.Write(body)
	})
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	return srv, &n
}

// newFetcher returns a Fetcher caching in a fresh folder that trusts srv's
// certificate when srv is a TLS server.
func newFetcher(t *testing.T, srv *httptest.Server, opts fetch.Options) *Fetcher {
	if opts.CacheDir == "" {
		opts.CacheDir = filepath.Join(t.TempDir(), "modules")
	}
	f := New(opts)
	if srv != nil && srv.TLS != nil {
		opts.TLSConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig
		f = New(opts)
	}
	return f
}

func TestParse(t *testing.T) {
	for _, ok := range []string{
		"https://example.com/plugins/calc.wasm",
		"https://example.com:8443/calc.wasm?v=1",
		"http://127.0.0.1:8080/calc.wasm",
		"http://localhost/calc.wasm",
		"http://[::1]:80/calc.wasm",
	} {
		if _, err := Parse(ok); err != nil {
			t.Errorf("Parse(%q): %v", ok, err)
		}
	}
	for in, want := range map[string]string{
		"http://example.com/calc.wasm":       "plain http is allowed only to a loopback host; use https://",
		"http://10.0.0.1/calc.wasm":          "plain http is allowed only to a loopback host; use https://",
		"https:///calc.wasm":                 "no host; want https://HOST/PATH",
		"https://user:pw@example.com/c.wasm": "credentials in the URL are not supported",
		"https://example.com:x/c.wasm":       `not a URL: invalid port ":x" after host`,
		"ftp://example.com/c.wasm":           `scheme "ftp": want https://HOST/PATH`,
	} {
		_, err := Parse(in)
		if err == nil || err.Error() != want {
			t.Errorf("Parse(%q) = %v, want %s", in, err, want)
		}
	}
}

// TestDownload downloads over TLS, caches by sha256, and with the server
// gone loads a pinned module from the cache while an unpinned one fails
// naming the plugin and the URL.
func TestDownload(t *testing.T) {
	module := harness.ReadFixture(t, "examples/plugins/calculator")
	sum := fetch.Sum(module)
	srv, requests := serve(t, true, map[string][]byte{"/calc.wasm": module})
	f := newFetcher(t, srv, fetch.Options{})
	ctx := context.Background()
	src := srv.URL + "/calc.wasm"

	m, err := f.Fetch(ctx, spec(src, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m.Data, module) || m.SHA256 != sum || m.Watch != nil {
		t.Fatalf("got %d bytes, sha256 %s, watch %v", len(m.Data), m.SHA256, m.Watch)
	}
	if data, err := os.ReadFile(filepath.Join(f.cache.Dir(), "sha256", sum)); err != nil || !bytes.Equal(data, module) {
		t.Errorf("not cached as sha256/%s: %v", sum, err)
	}
	if _, err := f.Fetch(ctx, spec(src, sum)); err != nil {
		t.Fatal(err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1: a pinned, cached module needs no network", n)
	}

	srv.Close()
	if _, err := f.Fetch(ctx, spec(src, sum)); err != nil {
		t.Errorf("pinned and cached, server down: %v", err)
	}
	if _, err := New(fetch.Options{CacheDir: f.cache.Dir()}).Fetch(ctx, spec(src, sum)); err != nil {
		t.Errorf("pinned and cached, server down, after a restart: %v", err)
	}
	_, err = f.Fetch(ctx, spec(src, ""))
	want := `plugin "calc" (plugins[0]): ` + src + ": GET: "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("unpinned, server down: got %v, want %s...connection refused", err, want)
	}
}

func TestErrors(t *testing.T) {
	small := []byte("\x00asm\x01\x00\x00\x00")
	big := bytes.Repeat([]byte{0}, 64<<10+1)
	srv, _ := serve(t, false, map[string][]byte{"/small.wasm": small, "/big.wasm": big})
	mux := http.NewServeMux()
	mux.HandleFunc("/down", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, srv.URL+"/small.wasm", http.StatusFound)
	})
	tlsSrv := httptest.NewTLSServer(mux)
	t.Cleanup(tlsSrv.Close)
	f := newFetcher(t, tlsSrv, fetch.Options{MaxSize: 64 << 10})
	pin := strings.Repeat("0", 64)

	for _, c := range []struct {
		source, pin, want string
	}{
		{srv.URL + "/small.wasm", pin, `plugin "calc" (plugins[0].sha256): ` + srv.URL + "/small.wasm has sha256 " + fetch.Sum(small) + ", pinned " + pin},
		{srv.URL + "/missing.wasm", "", `plugin "calc" (plugins[0]): ` + srv.URL + "/missing.wasm: GET: 404 Not Found"},
		{srv.URL + "/big.wasm", "", `plugin "calc" (plugins[0]): ` + srv.URL + "/big.wasm: GET: 65537 bytes: larger than the 64KiB limit of a fetched module"},
		{srv.URL + "/big.wasm?chunked=1", "", `plugin "calc" (plugins[0]): ` + srv.URL + "/big.wasm?chunked=1: GET: larger than the 64KiB limit of a fetched module"},
		{tlsSrv.URL + "/down", "", `plugin "calc" (plugins[0]): ` + tlsSrv.URL + "/down: GET: refusing a redirect from https to " + srv.URL + "/small.wasm"},
		{"http://example.com/calc.wasm", "", `plugin "calc" (plugins[0].path): http://example.com/calc.wasm: plain http is allowed only to a loopback host; use https://`},
	} {
		if _, err := f.Fetch(context.Background(), spec(c.source, c.pin)); err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v\nwant %s", c.source, err, c.want)
		}
	}
}

// TestRedirectTargets: a redirect is checked like plugin HTTP: the
// source's own host and port may be reached, another loopback service
// never receives the GET, nor does the gateway's own listener; a download
// its pin refuses is not cached.
func TestRedirectTargets(t *testing.T) {
	module := []byte("\x00asm\x01\x00\x00\x00")
	other, otherHits := serve(t, false, map[string][]byte{"/m.wasm": module})
	src, _ := serve(t, false, map[string][]byte{"/m.wasm": module})
	mux := http.NewServeMux()
	mux.HandleFunc("/self", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/m.wasm", http.StatusFound) })
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/m.wasm", http.StatusFound)
	})
	mux.HandleFunc("/m.wasm", func(w http.ResponseWriter, r *http.Request) { w.Write(module) })
	redirector := httptest.NewServer(mux)
	t.Cleanup(redirector.Close)
	ctx := context.Background()

	f := newFetcher(t, nil, fetch.Options{})
	if m, err := f.Fetch(ctx, spec(redirector.URL+"/self", "")); err != nil || !bytes.Equal(m.Data, module) {
		t.Fatalf("redirect to the source's own host: %v", err)
	}
	_, err := f.Fetch(ctx, spec(redirector.URL+"/other", ""))
	otherAddr := strings.TrimPrefix(other.URL, "http://")
	if err == nil || !strings.Contains(err.Error(), "refused: "+otherAddr+" is a loopback address") {
		t.Errorf("redirect to another loopback service: %v, want refused: %s is a loopback address", err, otherAddr)
	}
	if n := otherHits.Load(); n != 0 {
		t.Errorf("the other loopback service received %d requests", n)
	}

	var own egress.Listeners
	if err := own.Set(strings.TrimPrefix(src.URL, "http://")); err != nil {
		t.Fatal(err)
	}
	f = newFetcher(t, nil, fetch.Options{Listeners: &own})
	if _, err := f.Fetch(ctx, spec(src.URL+"/m.wasm", "")); err == nil || !strings.Contains(err.Error(), "is the gateway's own listener") {
		t.Errorf("the gateway's own listener: %v", err)
	}

	f = newFetcher(t, nil, fetch.Options{})
	pin := strings.Repeat("0", 64)
	if _, err := f.Fetch(ctx, spec(redirector.URL+"/m.wasm", pin)); err == nil || !strings.Contains(err.Error(), "pinned "+pin) {
		t.Fatalf("pin mismatch: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(f.cache.Dir(), "sha256")); len(entries) != 0 {
		t.Errorf("a module its pin refused was cached: %v", entries)
	}
}
