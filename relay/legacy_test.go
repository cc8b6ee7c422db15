package relay

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/harness"
)

func wuSite() SiteConfig { return SiteConfig{Name: "wu", Protocol: ProtocolWULegacy} }

// legacyAuth sends WU's auth frame and returns the auth_result.
func (p *page) legacyAuth(token any) map[string]any {
	p.t.Helper()
	frame := map[string]any{"type": "auth"}
	if token != nil {
		frame["token"] = token
	}
	p.send(frame)
	return p.read()
}

func TestLegacyCatalog(t *testing.T) {
	d := legacyDescriptor("wu_")
	want := []string{"wu_conexion", "wu_status", "wu_list_apps", "wu_list_events", "wu_list_actions", "wu_execute_action",
		"wu_get_state", "wu_set_state", "wu_emit_event", "wu_navigate", "wu_snapshot", "wu_screenshot", "wu_click",
		"wu_type", "wu_console", "wu_network", "wu_mount_app", "wu_unmount_app"}
	var got []string
	for _, tool := range d.Tools {
		got = append(got, tool.Name)
		if err := checkSchema(tool.InputSchema); err != nil {
			t.Errorf("%s: %v", tool.Name, err)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("catalog %v\nwant    %v", got, want)
	}
	// The seed's parameter rules, as the gateway will enforce them.
	cases := []struct {
		tool, args string
		ok         bool
	}{
		{"wu_list_events", `{"limit":20}`, true},
		{"wu_list_events", `{"limit":201}`, false},
		{"wu_list_events", `{"limit":1.5}`, false},
		{"wu_console", `{"level":"warn","limit":500}`, true},
		{"wu_console", `{"level":"debug"}`, false},
		{"wu_network", `{"status":99}`, false},
		{"wu_network", `{"status":404,"method":"GET","limit":1}`, true},
		{"wu_screenshot", `{"quality":1.5}`, false},
		{"wu_screenshot", `{"selector":"#app","quality":0.5}`, true},
		{"wu_emit_event", `{"event":"cart:add","data":{"id":1}}`, true},
		{"wu_emit_event", `{"event":"wu:internal"}`, false},
		{"wu_emit_event", `{"event":"system:x"}`, false},
		{"wu_emit_event", `{"event":"app:x"}`, false},
		{"wu_emit_event", `{"event":""}`, false},
		{"wu_emit_event", `{"event":"` + strings.Repeat("e", 201) + `"}`, false},
		{"wu_set_state", `{"path":"","value":1}`, false},
		{"wu_set_state", `{"path":"user.name","value":null}`, true},
		{"wu_set_state", `{"path":"user.name"}`, false},
		{"wu_get_state", `{}`, true},
		{"wu_type", `{"selector":"#q","text":"hi","clear":true,"submit":false}`, true},
		{"wu_type", `{"selector":"#q"}`, false},
		{"wu_execute_action", `{"action":"sum_local","params":{"a":2,"b":3}}`, true},
		{"wu_execute_action", `{"params":{}}`, false},
		{"wu_mount_app", `{"appName":"cart","container":"#c"}`, true},
		{"wu_unmount_app", `{}`, false},
		{"wu_status", `{"extra":1}`, false},
	}
	schemas := map[string]json.RawMessage{}
	for _, tool := range d.Tools {
		schemas[tool.Name] = tool.InputSchema
	}
	for _, c := range cases {
		doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(string(schemas[c.tool])))
		comp := jsonschema.NewCompiler()
		comp.AddResource("s.json", doc)
		sch, err := comp.Compile("s.json")
		if err != nil {
			t.Fatal(err)
		}
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(c.args))
		if err := sch.Validate(inst); (err == nil) != c.ok {
			t.Errorf("%s %s: valid=%v, want %v (%v)", c.tool, c.args, err == nil, c.ok, err)
		}
	}
}

func TestLegacyBridge(t *testing.T) {
	f := newFixture(t, wuSite())
	site := f.site("wu")
	ctx := context.Background()

	// wu_conexion answers without a page.
	res, err := site.CallTool(ctx, "wu_conexion", json.RawMessage(`{}`))
	if err != nil || res.IsError {
		t.Fatalf("wu_conexion: %v %v", res, err)
	}
	_, port, _ := net.SplitHostPort(f.srv.Listener.Addr().String())
	want := fmt.Sprintf(`{"puerto":%s,"host":"127.0.0.1","requiere_token":true,"app_conectada":false}`, port)
	if got := resultText(t, res); got != want {
		t.Errorf("wu_conexion = %s, want %s", got, want)
	}
	if _, err := site.CallTool(ctx, "wu_status", json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "no page is connected") {
		t.Errorf("wu_status without a page: %v", err)
	}

	for _, c := range []struct {
		name    string
		token   any
		reason  string
		outcome string
	}{
		{"wrong token", "not the token but long enough", "invalid token", "bad_proof"},
		{"no token", nil, "token required", "no_token"},
		{"empty token", "", "token required", "no_token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := mustDial(t, f.url("wu"))
			r := p.legacyAuth(c.token)
			if r["type"] != "auth_result" || r["success"] != false || r["reason"] != c.reason {
				t.Errorf("auth_result %v", r)
			}
			if code, _ := p.closed(); code != closeAuthFailed {
				t.Errorf("closed with %d", code)
			}
			if !harness.WaitFor(5*time.Second, func() bool { return f.handshakes("wu", c.outcome) >= 1 }) {
				t.Errorf("handshakes %s not counted", c.outcome)
			}
			if site.Connected() {
				t.Error("a refused WU page serves")
			}
		})
	}

	p := mustDial(t, f.url("wu"))
	if r := p.legacyAuth(testToken); r["type"] != "auth_result" || r["success"] != true {
		t.Fatalf("auth_result %v", r)
	}
	if !harness.WaitFor(5*time.Second, site.Connected) {
		t.Fatal("the WU page is not connected")
	}
	answer := func(reply func(cmd map[string]any) map[string]any) {
		cmd := p.read()
		out := reply(cmd)
		out["id"] = cmd["id"]
		p.send(out)
	}
	go answer(func(cmd map[string]any) map[string]any {
		if cmd["command"] != "get_state" || fmt.Sprint(cmd["params"]) != "map[path:user]" {
			t.Errorf("command frame %v", cmd)
		}
		return map[string]any{"result": map[string]any{"path": "user", "value": map[string]any{"name": "Ada"}}}
	})
	res, err = site.CallTool(ctx, "wu_get_state", json.RawMessage(`{"path":"user"}`))
	if err != nil || res.IsError || resultText(t, res) != `{"path":"user","value":{"name":"Ada"}}` {
		t.Fatalf("wu_get_state: %v %v", res, err)
	}
	// A permission denial inside result.error is isError.
	go answer(func(map[string]any) map[string]any {
		return map[string]any{"result": map[string]any{"error": "Permission denied: readStore"}}
	})
	res, err = site.CallTool(ctx, "wu_get_state", json.RawMessage(`{}`))
	if err != nil || !res.IsError || !strings.Contains(resultText(t, res), "Permission denied: readStore") {
		t.Fatalf("denied: %v %v", res, err)
	}
	// An action that failed (success: false) stays a result.
	go answer(func(map[string]any) map[string]any {
		return map[string]any{"result": map[string]any{"action": "x", "success": false, "reason": "nope"}}
	})
	if res, _ = site.CallTool(ctx, "wu_execute_action", json.RawMessage(`{"action":"x"}`)); res.IsError {
		t.Errorf("success:false became isError: %v", res)
	}
	// An error field is isError with its text; ids may come back as strings.
	go answer(func(cmd map[string]any) map[string]any {
		return map[string]any{"id": fmt.Sprint(cmd["id"]), "error": map[string]any{"message": "no such app"}}
	})
	res, err = site.CallTool(ctx, "wu_mount_app", json.RawMessage(`{"appName":"x"}`))
	if err != nil || !res.IsError || resultText(t, res) != "no such app" {
		t.Fatalf("error: %v %v", res, err)
	}
	// Frames answering nothing are ignored and counted; garbage closes.
	p.send(map[string]any{"type": "event", "name": "x"})
	p.send(map[string]any{"id": 999, "result": 1})
	res, _ = site.CallTool(ctx, "wu_conexion", json.RawMessage(`{}`))
	if !strings.Contains(resultText(t, res), `"app_conectada":true`) {
		t.Errorf("wu_conexion with a page: %s", resultText(t, res))
	}
	if !harness.WaitFor(5*time.Second, func() bool { return f.rejected("wu", "unexpected") == 1 && f.rejected("wu", "unknown_id") == 1 }) {
		t.Errorf("rejected unexpected=%v unknown_id=%v", f.rejected("wu", "unexpected"), f.rejected("wu", "unknown_id"))
	}
	// A second WU page is refused while this one serves.
	q := mustDial(t, f.url("wu"))
	if r := q.legacyAuth(testToken); r["success"] != false || !strings.Contains(fmt.Sprint(r["reason"]), "another page") {
		t.Errorf("second page: %v", r)
	}
	p.sendRaw([]byte("{not json"))
	if code, _ := p.closed(); code != closeProtocol {
		t.Errorf("garbage: closed with %d", code)
	}
}

func TestLegacyInsecure(t *testing.T) {
	s := wuSite()
	s.Insecure = true
	f := newFixture(t, s)
	p := mustDial(t, f.url("wu"))
	if r := p.legacyAuth(nil); r["success"] != true {
		t.Fatalf("insecure site refused a page without a token: %v", r)
	}
	res, _ := f.site("wu").CallTool(context.Background(), "wu_conexion", json.RawMessage(`{}`))
	if !strings.Contains(resultText(t, res), `"requiere_token":false`) {
		t.Errorf("wu_conexion: %s", resultText(t, res))
	}
}

// TestLegacyNeedsASecureListener: the token travels in clear, so a
// wu-legacy site is refused on a listener that is neither loopback nor
// TLS, both when planned and per connection.
func TestLegacyNeedsASecureListener(t *testing.T) {
	r := New(Options{})
	t.Setenv("WU_TOKEN", testToken)
	cfg := Config{Sites: []SiteConfig{{Name: "wu", Protocol: ProtocolWULegacy, TokenEnv: "WU_TOKEN"}, {Name: "open", Protocol: ProtocolWULegacy, Insecure: true}}}
	var errs []error
	cfg.Normalize("relay", config.NewEnv("/x/gateway.yaml", &errs))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	_, err := r.Prepare("/x/gateway.yaml", cfg, Listener{Addr: "0.0.0.0:8080"})
	for _, want := range []string{"relay.sites[0].protocol: wu-legacy pages send the token in clear", "0.0.0.0:8080", "relay.sites[1].insecure"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Prepare on 0.0.0.0: %v, want %q", err, want)
		}
	}
	if _, err := r.Prepare("/x/gateway.yaml", cfg, Listener{Addr: "[::1]:8080"}); err != nil {
		t.Errorf("Prepare on loopback: %v", err)
	}
	if _, err := r.Prepare("/x/gateway.yaml", Config{Sites: cfg.Sites[:1]}, Listener{Addr: "0.0.0.0:443", TLS: true}); err != nil {
		t.Errorf("Prepare with TLS: %v", err)
	}

	// Per connection: a request that arrived on a non-loopback address.
	ip := nonLoopbackIP(t)
	f := newFixture(t, wuSite())
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	srv := httptest.NewUnstartedServer(f.r)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	before := f.handshakes("wu", "insecure")
	_, resp, err := dial(t, "ws"+strings.TrimPrefix(srv.URL, "http")+"/relay/wu", "http://localhost:3000")
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("wu-legacy over %s: %v %v, want 403", ip, err, resp)
	}
	if got := f.handshakes("wu", "insecure"); got != before+1 {
		t.Errorf("handshakes insecure = %v", got)
	}
}

func nonLoopbackIP(t *testing.T) string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	t.Skip("no non-loopback IPv4 address")
	return ""
}
