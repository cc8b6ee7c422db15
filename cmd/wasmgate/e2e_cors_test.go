package main

// CORS in a real browser: a page on an origin listed in
// transports.http.allowed_origins talks MCP to the gateway with fetch
// (preflights, Authorization, Mcp-Session-Id); a page on another origin
// cannot.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// mcpPageScript is the page's program: initialize, notifications/
// initialized, tools/call calculate, resources/read greeter://about and
// DELETE, with fetch, as a browser MCP client does. It returns what it
// saw; a fetch the browser blocks ends it with error set.
const mcpPageScript = `(async () => {
  const url = %s, token = %s;
  const out = {};
  const headers = (sid) => {
    const h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"};
    if (token) h["Authorization"] = "Bearer " + token;
    if (sid) { h["Mcp-Session-Id"] = sid; h["Mcp-Protocol-Version"] = "2025-11-25"; }
    return h;
  };
  const parse = async (r) => {
    const text = await r.text();
    if ((r.headers.get("Content-Type") || "").includes("text/event-stream")) {
      const data = text.split("\n").filter(l => l.startsWith("data:")).map(l => l.slice(5).trim());
      return data.length ? JSON.parse(data[data.length - 1]) : null;
    }
    return text ? JSON.parse(text) : null;
  };
  const post = (sid, msg) => fetch(url, {method: "POST", headers: headers(sid), body: JSON.stringify(msg)});
  try {
    let r = await post("", {jsonrpc: "2.0", id: 1, method: "initialize",
      params: {protocolVersion: "2025-11-25", capabilities: {}, clientInfo: {name: "browser", version: "1"}}});
    out.initStatus = r.status;
    out.wwwAuthenticate = r.headers.get("WWW-Authenticate") || "";
    out.sid = r.headers.get("Mcp-Session-Id") || "";
    if (r.status !== 200) return out;
    out.init = await parse(r);
    r = await post(out.sid, {jsonrpc: "2.0", method: "notifications/initialized"});
    out.initializedStatus = r.status;
    r = await post(out.sid, {jsonrpc: "2.0", id: 2, method: "tools/call",
      params: {name: "calculate", arguments: {operation: "add", a: 5, b: 3}}});
    out.call = await parse(r);
    r = await post(out.sid, {jsonrpc: "2.0", id: 3, method: "resources/read", params: {uri: "greeter://about"}});
    out.read = await parse(r);
    r = await fetch(url, {method: "DELETE", headers: headers(out.sid)});
    out.deleteStatus = r.status;
  } catch (e) {
    out.error = String(e);
  }
  return out;
})()`

// pageRun is what mcpPageScript returns.
type pageRun struct {
	InitStatus        int    `json:"initStatus"`
	WWWAuthenticate   string `json:"wwwAuthenticate"`
	SID               string `json:"sid"`
	InitializedStatus int    `json:"initializedStatus"`
	Init              struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	} `json:"init"`
	Call struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
		Error any `json:"error"`
	} `json:"call"`
	Read struct {
		Result struct {
			Contents []struct {
				URI  string `json:"uri"`
				Text string `json:"text"`
			} `json:"contents"`
		} `json:"result"`
		Error any `json:"error"`
	} `json:"read"`
	DeleteStatus int    `json:"deleteStatus"`
	Error        string `json:"error"`
}

// pageServer serves an empty page on a loopback origin of its own.
func pageServer(t *testing.T) (url, origin string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><title>an MCP client page</title>")
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/", srv.URL
}

// TestCORSBrowser: in headless Chromium, a page on an allowed origin
// initializes, calls calculate and reads a resource through fetch, with a
// bearer token (so every request is preflighted), reading Mcp-Session-Id
// and, without a token, the 401 and its WWW-Authenticate; a page on
// another origin gets nothing through.
func TestCORSBrowser(t *testing.T) {
	t.Parallel()
	browser := harness.StartBrowser(t)
	page, allowed := pageServer(t)
	foreignPage, foreign := pageServer(t)
	tok := newToken(t)
	secrets := harness.Secrets{tok}
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		HTTP:     fmt.Sprintf("    allowed_origins: [%s]\n", harness.Q(allowed)),
		Plugins:  harness.ExamplePlugins(t),
		Sections: fmt.Sprintf("auth:\n  principals:\n    - {name: web, token_sha256: %s}\n", sha256Hex(tok)),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	secrets.Watch(t, g)
	script := func(token string) string {
		u, _ := json.Marshal(g.MCPURL)
		k, _ := json.Marshal(token)
		return fmt.Sprintf(mcpPageScript, u, k)
	}

	t.Run("preflight", func(t *testing.T) {
		for _, tc := range []struct {
			origin string
			want   int
		}{{allowed, http.StatusNoContent}, {foreign, http.StatusForbidden}} {
			req, _ := http.NewRequest(http.MethodOptions, g.MCPURL, nil)
			req.Header.Set("Origin", tc.origin)
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,mcp-protocol-version,mcp-session-id")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			h := resp.Header
			if resp.StatusCode != tc.want {
				t.Errorf("preflight from %s: %d, want %d", tc.origin, resp.StatusCode, tc.want)
			}
			if tc.want != http.StatusNoContent {
				if v := h.Get("Access-Control-Allow-Origin"); v != "" {
					t.Errorf("preflight from %s: Access-Control-Allow-Origin %q", tc.origin, v)
				}
				continue
			}
			if v := h.Get("Access-Control-Allow-Origin"); v != tc.origin {
				t.Errorf("preflight: Access-Control-Allow-Origin %q, want %q", v, tc.origin)
			}
			for _, want := range []string{"Authorization", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-ID", "Content-Type"} {
				if !strings.Contains(h.Get("Access-Control-Allow-Headers"), want) {
					t.Errorf("preflight: Access-Control-Allow-Headers %q lacks %s", h.Get("Access-Control-Allow-Headers"), want)
				}
			}
			for _, want := range []string{"GET", "POST", "DELETE"} {
				if !strings.Contains(h.Get("Access-Control-Allow-Methods"), want) {
					t.Errorf("preflight: Access-Control-Allow-Methods %q lacks %s", h.Get("Access-Control-Allow-Methods"), want)
				}
			}
			if !strings.Contains(h.Get("Vary"), "Origin") {
				t.Errorf("preflight: Vary %q lacks Origin", h.Get("Vary"))
			}
		}
	})

	t.Run("allowed origin", func(t *testing.T) {
		var run pageRun
		console := browser.Eval(t, page, script(tok), &run)
		if run.Error != "" || run.InitStatus != http.StatusOK {
			t.Fatalf("initialize from %s: status %d, error %q\nconsole: %q", allowed, run.InitStatus, run.Error, console)
		}
		if run.SID == "" {
			t.Errorf("the page cannot read Mcp-Session-Id (Access-Control-Expose-Headers)")
		}
		if run.Init.Result.ProtocolVersion != harness.ProtoSessions {
			t.Errorf("initialize: protocolVersion %q", run.Init.Result.ProtocolVersion)
		}
		if run.InitializedStatus != http.StatusAccepted {
			t.Errorf("notifications/initialized: %d, want 202", run.InitializedStatus)
		}
		if c := run.Call.Result.Content; run.Call.Error != nil || run.Call.Result.IsError || len(c) != 1 || c[0].Text != "8" {
			t.Errorf("calculate 5+3 from the page = %+v, want 8", run.Call)
		}
		if c := run.Read.Result.Contents; run.Read.Error != nil || len(c) != 1 || c[0].URI != "greeter://about" || c[0].Text == "" {
			t.Errorf("resources/read greeter://about from the page = %+v", run.Read)
		}
		if run.DeleteStatus != http.StatusOK {
			t.Errorf("DELETE from the page: %d, want 200", run.DeleteStatus)
		}
		if _, ok := g.WaitLog(0, "principal=web transport=http session="+run.SID, 10*time.Second); !ok {
			t.Errorf("no audit line for the page's call as principal web in session %s", run.SID)
		}

		// Without the token: the page sees the 401 and its challenge.
		var anon pageRun
		console = browser.Eval(t, page, script(""), &anon)
		if anon.Error != "" || anon.InitStatus != http.StatusUnauthorized || !strings.HasPrefix(anon.WWWAuthenticate, "Bearer ") {
			t.Errorf("initialize without a token from %s: %+v, want a readable 401 with a Bearer challenge\nconsole: %q", allowed, anon, console)
		}
	})

	t.Run("foreign origin", func(t *testing.T) {
		before, _ := g.Scrape(t).Value("wasmgate_http_rejected_total", map[string]string{"reason": "origin"})
		calls := g.Scrape(t).ToolCalls("calculate", "ok")
		var run pageRun
		console := browser.Eval(t, foreignPage, script(tok), &run)
		if run.Error == "" || run.InitStatus != 0 || run.SID != "" {
			t.Errorf("a page on %s (not allowed) got through: %+v\nconsole: %q", foreign, run, console)
		}
		if !strings.Contains(strings.Join(console, "\n"), "blocked by CORS policy") {
			t.Errorf("the browser did not report a CORS refusal; console: %q", console)
		}
		m := g.Scrape(t)
		if after, _ := m.Value("wasmgate_http_rejected_total", map[string]string{"reason": "origin"}); after <= before {
			t.Errorf("wasmgate_http_rejected_total{reason=origin} stayed %v: the browser's request never reached the gateway", after)
		}
		if m.ToolCalls("calculate", "ok") != calls {
			t.Errorf("a call from the foreign page ran")
		}
		if line, ok := g.WaitLog(0, "refused request from a foreign origin", 10*time.Second); !ok || !strings.Contains(line, foreign) {
			t.Errorf("the refusal of %s is not logged", foreign)
		}
		t.Logf("the foreign page saw: %s; console: %q", run.Error, console)
	})
}
