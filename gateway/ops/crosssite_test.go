package ops

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/wasmgate/wasmgate/internal/netutil"
)

func TestCrossSite(t *testing.T) {
	for _, tc := range []struct {
		name     string
		host     string
		header   map[string]string
		loopback bool
		refused  bool
	}{
		{"curl -X POST", "127.0.0.1:9090", nil, true, false},
		{"localhost", "localhost:9090", nil, true, false},
		{"ipv6 loopback", "[::1]:9090", nil, true, false},
		{"application/json", "127.0.0.1:9090", map[string]string{"Content-Type": "application/json"}, true, false},
		{"same origin", "127.0.0.1:9090", map[string]string{"Origin": "http://127.0.0.1:9090", "Sec-Fetch-Site": "same-origin"}, true, false},
		{"DNS rebinding", "evil.example:9090", nil, true, true},
		{"rebinding, same origin", "evil.example:9090", map[string]string{"Origin": "http://evil.example:9090"}, true, true},
		{"foreign origin", "127.0.0.1:9090", map[string]string{"Origin": "http://evil.com"}, true, true},
		{"other loopback port", "127.0.0.1:9090", map[string]string{"Origin": "http://127.0.0.1:3000"}, true, true},
		{"null origin", "127.0.0.1:9090", map[string]string{"Origin": "null"}, true, true},
		{"cross-site fetch", "127.0.0.1:9090", map[string]string{"Sec-Fetch-Site": "cross-site"}, true, true},
		{"same-site fetch", "127.0.0.1:9090", map[string]string{"Sec-Fetch-Site": "same-site"}, true, true},
		{"text/plain", "127.0.0.1:9090", map[string]string{"Content-Type": "text/plain"}, true, true},
		{"TEXT/PLAIN; charset", "127.0.0.1:9090", map[string]string{"Content-Type": "TEXT/PLAIN ; charset=utf-8"}, true, true},
		{"form", "127.0.0.1:9090", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, true, true},
		{"multipart", "127.0.0.1:9090", map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, true, true},
		{"any host on 0.0.0.0", "gw.example:9090", nil, false, false},
		{"form on 0.0.0.0", "gw.example:9090", map[string]string{"Content-Type": "text/plain"}, false, true},
		{"foreign origin on 0.0.0.0", "gw.example:9090", map[string]string{"Origin": "http://evil.com"}, false, true},
	} {
		r := httptest.NewRequest(http.MethodPost, "http://"+tc.host+"/-/reload", nil)
		for k, v := range tc.header {
			r.Header.Set(k, v)
		}
		if msg := crossSite(r, tc.loopback); (msg != "") != tc.refused {
			t.Errorf("%s: crossSite = %q, want refused %v", tc.name, msg, tc.refused)
		}
	}
	for addr, want := range map[string]bool{
		"127.0.0.1:9090": true, "[::1]:9090": true, "localhost:9090": true,
		"0.0.0.0:9090": false, ":9090": false, "10.0.0.1:9090": false, "[::]:9090": false,
	} {
		if netutil.LoopbackListen(addr) != want {
			t.Errorf("loopbackListen(%q) = %v", addr, !want)
		}
	}
}
