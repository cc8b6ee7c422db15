package upstream

import (
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/metrics"
)

func testShared(follow bool) *shared {
	return &shared{h: &Host{Metrics: metrics.New("test", "test"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		spec: loader.UpstreamSpec{Name: "u", Key: "upstreams[0]", URL: "https://MCP.example.com/mcp", FollowRedirects: follow}}
}

func TestCheckRedirect(t *testing.T) {
	redirect := func(s *shared, to string, hops int) error {
		o := &outbound{s: s, creds: &credentials{}}
		check := o.checkRedirect(s.spec.URL, s.spec.Key+".url", "")
		from, _ := url.Parse(s.spec.URL)
		via := []*http.Request{{Method: http.MethodPost, URL: from}}
		for len(via) < hops {
			via = append(via, via[0])
		}
		u, err := url.Parse(to)
		if err != nil {
			t.Fatal(err)
		}
		return check(&http.Request{URL: u, Response: &http.Response{StatusCode: http.StatusTemporaryRedirect}}, via)
	}
	on := testShared(true)
	for to, ok := range map[string]bool{
		"https://mcp.example.com/other":          true,
		"https://mcp.example.com:443/mcp?x=1":    true,
		"https://mcp.example.com./mcp":           true,
		"http://mcp.example.com/mcp":             false, // another scheme
		"https://mcp.example.com:8443/mcp":       false, // another port
		"https://evil.example.com/mcp":           false,
		"https://127.0.0.1:9090/-/lock":          false,
		"https://user:pw@evil.example.com/x?t=1": false,
	} {
		err := redirect(on, to, 1)
		if (err == nil) != ok {
			t.Errorf("follow_redirects on, redirect to %s: %v, want allowed %v", to, err, ok)
		}
		if err != nil && (strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), "t=1")) {
			t.Errorf("the error shows the target's user info or query: %v", err)
		}
	}
	if err := redirect(on, "https://mcp.example.com/mcp", maxRedirects); err == nil || !strings.Contains(err.Error(), "stopped after") {
		t.Errorf("redirect number %d: %v, want refused", maxRedirects+1, err)
	}
	off := testShared(false)
	err := redirect(off, "https://mcp.example.com/other", 1)
	if err == nil || err.Error() != `upstream "u" redirected POST https://MCP.example.com/mcp (307) to https://mcp.example.com/other: refused, upstreams[0].follow_redirects is off` {
		t.Errorf("follow_redirects off, a same-origin redirect: %v", err)
	}
}

func TestCredentialsRedact(t *testing.T) {
	const id, secret, bearer = "gw client", "s3cr+t/=x", "tok-0123456789"
	read := func(v string) config.Secret {
		s, err := config.SecretRef{Key: "k", EnvKey: "e", Env: "X"}.Read("f", func(string) (string, bool) { return v, true })
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	c := newCredentials(secrets{bearer: read(bearer), clientSecret: read(secret)}, id)
	c.issue("access-abcdef")
	basic := base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id) + ":" + url.QueryEscape(secret)))
	in := "Bearer " + bearer + "; secret " + secret + "; form " + url.QueryEscape(secret) + "; Basic " + basic + "; access access-abcdef"
	out := c.redact(in)
	for _, v := range []string{bearer, secret, url.QueryEscape(secret), basic, "access-abcdef"} {
		if strings.Contains(out, v) {
			t.Errorf("%q is left in %q", v, out)
		}
	}
	if want := "Bearer [secret]; secret [secret]; form [secret]; Basic [secret]; access [secret]"; out != want {
		t.Errorf("redact = %q, want %q", out, want)
	}
}
