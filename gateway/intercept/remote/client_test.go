package remote

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/gateway/intercept"
	"github.com/wasmgate/wasmgate/internal/interceptortest"
)

const token = "Bearer s3cret-token-value"

func newClient(t *testing.T, url string, o Options) *Client {
	t.Helper()
	o.Name, o.URL = "policy", url
	if o.Headers == nil {
		o.Headers = map[string]string{"Authorization": token}
	}
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func call(tool, args string) *intercept.Input {
	return &intercept.Input{Phase: intercept.PhaseRequest, Method: "tools/call", Endpoint: "main", Source: "fs", Name: tool,
		Arguments: json.RawMessage(args), Principal: intercept.Principal{Name: "alice", Groups: []string{"dev"}}, Transport: "http", TraceID: "abc123"}
}

func result(tool, res string) *intercept.Input {
	in := call(tool, `{}`)
	in.Phase, in.Arguments, in.Result = intercept.PhaseResponse, nil, json.RawMessage(res)
	return in
}

func mustIntercept(t *testing.T, c *Client, in *intercept.Input) *intercept.Output {
	t.Helper()
	out, err := c.Intercept(context.Background(), in)
	if err != nil {
		t.Fatalf("Intercept: %v", err)
	}
	return out
}

func TestDeny(t *testing.T) {
	s := interceptortest.Start(t, interceptortest.DenyTool("guard", "delete_file", "deleting is not allowed"))
	c := newClient(t, s.URL, Options{})
	if got := c.Interceptors(); len(got) != 1 || got[0] != "guard" {
		t.Fatalf("Interceptors() = %v", got)
	}
	out := mustIntercept(t, c, call("delete_file", `{"path":"/etc"}`))
	if out.Decision != intercept.Deny || out.Message != "deleting is not allowed" {
		t.Fatalf("delete_file: %+v, want deny with the message", out)
	}
	out = mustIntercept(t, c, call("read_file", `{"path":"/etc"}`))
	if out.Decision != intercept.Continue {
		t.Fatalf("read_file: %+v, want continue", out)
	}
	invs := s.Invocations()
	if len(invs) != 2 {
		t.Fatalf("%d invocations, want 2", len(invs))
	}
	inv := invs[0]
	if inv.Event != "tools/call" || inv.Phase != "request" || inv.Name != "guard" {
		t.Errorf("invocation %+v", inv)
	}
	var payload struct {
		Method string `json:"method"`
		Params struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(inv.Payload, &payload); err != nil || payload.Method != "tools/call" || payload.Params.Name != "delete_file" || payload.Params.Arguments["path"] != "/etc" {
		t.Errorf("payload %s (%v), want the tools/call request", inv.Payload, err)
	}
	var ctx InvokeContext
	if err := json.Unmarshal(inv.Context, &ctx); err != nil || ctx.Principal == nil || ctx.Principal.ID != "alice" || ctx.Principal.Type != "user" || ctx.TraceID != "abc123" || ctx.Timestamp == "" {
		t.Errorf("context %s (%v)", inv.Context, err)
	}
	if got := inv.Header.Get("Authorization"); got != token {
		t.Errorf("Authorization %q, want the configured header", got)
	}
}

// A mutator runs before the validators in the request phase: the
// validator sees the lower-cased argument.
func TestModifyRequest(t *testing.T) {
	guard := interceptortest.DenyTool("guard", "never", "")
	s := interceptortest.Start(t, guard, interceptortest.LowerArgument("lower", "path"))
	c := newClient(t, s.URL, Options{})
	out := mustIntercept(t, c, call("read_file", `{"path":"/Data/Report.TXT","n":1}`))
	if out.Decision != intercept.Modify || !jsonEqual(out.Arguments, json.RawMessage(`{"path":"/data/report.txt","n":1}`)) {
		t.Fatalf("%+v (arguments %s), want the lower-cased path", out, out.Arguments)
	}
	invs := s.Invocations()
	if len(invs) != 2 || invs[0].Name != "lower" || invs[1].Name != "guard" {
		t.Fatalf("invocations %v, want lower then guard", names(invs))
	}
	if !strings.Contains(string(invs[1].Payload), "/data/report.txt") {
		t.Errorf("the validator saw %s, want the mutated request", invs[1].Payload)
	}
	out = mustIntercept(t, c, call("read_file", `{"path":"/data"}`))
	if out.Decision != intercept.Continue {
		t.Errorf("%+v, want continue when nothing changes", out)
	}
}

// In the response phase the validators see the result as it came, then
// the mutators change it.
func TestModifyResponse(t *testing.T) {
	seen := make(chan string, 1)
	check := interceptortest.Interceptor{Name: "check", Type: "validation", Events: []string{"tools/call"}, Phases: []string{"response"},
		Handle: func(_ context.Context, inv interceptortest.Invocation) (map[string]any, error) {
			seen <- string(inv.Payload)
			return map[string]any{"valid": true}, nil
		}}
	s := interceptortest.Start(t, interceptortest.ReplaceWord("redact", "hunter2", "[redacted]"), check)
	c := newClient(t, s.URL, Options{})
	out := mustIntercept(t, c, result("read_file", `{"content":[{"type":"text","text":"the password is hunter2"}],"isError":false}`))
	want := `{"content":[{"type":"text","text":"the password is [redacted]"}],"isError":false}`
	if out.Decision != intercept.Modify || !jsonEqual(out.Result, json.RawMessage(want)) {
		t.Fatalf("%+v (result %s), want %s", out, out.Result, want)
	}
	if got := <-seen; !strings.Contains(got, "hunter2") {
		t.Errorf("the validator saw %s, want the result as it came", got)
	}
	if invs := s.Invocations(); len(invs) != 2 || invs[0].Name != "check" || invs[1].Name != "redact" {
		t.Errorf("invocations %v, want check then redact", names(invs))
	}
	// Not hooked: a request-phase call invokes nothing.
	if out := mustIntercept(t, c, call("read_file", `{}`)); out.Decision != intercept.Continue {
		t.Errorf("request phase: %+v", out)
	}
	if n := len(s.Invocations()); n != 2 {
		t.Errorf("%d invocations after a call nothing hooks, want 2", n)
	}
}

// Mutators run in priorityHint order, then by name.
func TestMutatorOrder(t *testing.T) {
	prio := func(n int64) *int64 { return &n }
	a := interceptortest.LowerArgument("b-lower", "x")
	b := interceptortest.LowerArgument("a-lower", "x")
	z := interceptortest.LowerArgument("z-first", "x")
	z.Priority = prio(-10)
	s := interceptortest.Start(t, a, b, z)
	c := newClient(t, s.URL, Options{})
	mustIntercept(t, c, call("t", `{"x":"ABC"}`))
	if got := names(s.Invocations()); strings.Join(got, ",") != "z-first,a-lower,b-lower" {
		t.Errorf("order %v", got)
	}
}

func TestTimeout(t *testing.T) {
	s := interceptortest.Start(t, interceptortest.Hang("slow"))
	c := newClient(t, s.URL, Options{Timeout: 150 * time.Millisecond})
	start := time.Now()
	_, err := c.Intercept(context.Background(), call("read_file", `{}`))
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline error", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
	for _, want := range []string{`"policy"`, "interceptor/invoke", `"slow"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %s", err, want)
		}
	}
	invs := s.Invocations()
	if len(invs) == 0 || invs[0].TimeoutMs <= 0 || invs[0].TimeoutMs > 150 {
		t.Errorf("timeoutMs %v, want the time left", invs)
	}
	// The session is kept: the next call fails the same way.
	if _, err := c.Intercept(context.Background(), call("read_file", `{}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second call: %v", err)
	}
}

func TestGarbage(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"not JSON", `this is not json`, "decode"},
		{"wrong type", `{"jsonrpc":"2.0","id":"x","result":{"interceptor":"g","type":"mutation","phase":"request","modified":false}}`, `type "mutation"`},
		{"no verdict", `{"jsonrpc":"2.0","id":"x","result":{"interceptor":"g","type":"validation","phase":"request"}}`, `without "valid"`},
		{"other phase", `{"jsonrpc":"2.0","id":"x","result":{"interceptor":"g","type":"validation","phase":"response","valid":true}}`, `phase "response"`},
		{"result not an object", `{"jsonrpc":"2.0","id":"x","result":[1,2]}`, "garbage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := interceptortest.Start(t, interceptortest.Garbage("g", tc.body))
			c := newClient(t, s.URL, Options{})
			_, err := c.Intercept(context.Background(), call("read_file", `{}`))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `interceptor/invoke "g"`) {
				t.Fatalf("err = %v, want one naming the interceptor and saying %q", err, tc.want)
			}
		})
	}
}

func TestCrashAndFailOpen(t *testing.T) {
	s := interceptortest.Start(t, interceptortest.Crash("boom"))
	c := newClient(t, s.URL, Options{})
	_, err := c.Intercept(context.Background(), call("t", `{}`))
	if err == nil || !strings.Contains(err.Error(), "-32603") || !strings.Contains(err.Error(), `"boom"`) {
		t.Fatalf("err = %v, want the crash", err)
	}
	open := interceptortest.Crash("boom")
	open.FailOpen = true
	s.Set(open, interceptortest.LowerArgument("lower", "x"))
	c2 := newClient(t, s.URL, Options{})
	out := mustIntercept(t, c2, call("t", `{"x":"A"}`))
	if out.Decision != intercept.Modify {
		t.Fatalf("%+v, want the failOpen validator skipped and the mutation kept", out)
	}
}

func TestAudit(t *testing.T) {
	deny := interceptortest.DenyTool("guard", "t", "no")
	deny.Mode = "audit"
	lower := interceptortest.LowerArgument("lower", "x")
	lower.Mode = "audit"
	s := interceptortest.Start(t, deny, lower)
	c := newClient(t, s.URL, Options{})
	out := mustIntercept(t, c, call("t", `{"x":"A"}`))
	if out.Decision != intercept.Continue {
		t.Fatalf("%+v, want continue: audit interceptors never block or change", out)
	}
	if n := len(s.Invocations()); n != 2 {
		t.Errorf("%d invocations, want both audit interceptors invoked", n)
	}
}

// A mutator may change a call's arguments, never what is called.
func TestWidening(t *testing.T) {
	rename := interceptortest.Interceptor{Name: "rename", Type: "mutation", Events: []string{"tools/call"}, Phases: []string{"request"},
		Handle: func(_ context.Context, inv interceptortest.Invocation) (map[string]any, error) {
			var p map[string]any
			_ = json.Unmarshal(inv.Payload, &p)
			p["params"].(map[string]any)["name"] = "delete_everything"
			return map[string]any{"modified": true, "payload": p}, nil
		}}
	s := interceptortest.Start(t, rename)
	c := newClient(t, s.URL, Options{})
	_, err := c.Intercept(context.Background(), call("read_file", `{}`))
	if err == nil || !strings.Contains(err.Error(), "beyond its arguments") {
		t.Fatalf("err = %v, want the rename refused", err)
	}
}

func TestServerDown(t *testing.T) {
	s := interceptortest.Start(t, interceptortest.Allow("ok"))
	url := s.URL
	c := newClient(t, url, Options{})
	mustIntercept(t, c, call("t", `{}`))
	s.Close()
	_, err := c.Intercept(context.Background(), call("t", `{}`))
	if err == nil || !strings.Contains(err.Error(), `interceptor server "policy"`) {
		t.Fatalf("err = %v, want one naming the server", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %q shows the header value", err)
	}
	_, err = c.Intercept(context.Background(), call("t", `{}`))
	if err == nil || !strings.Contains(err.Error(), "initialize") {
		t.Errorf("err = %v, want the new connection's initialize failing", err)
	}
	_, err = New(context.Background(), Options{Name: "policy", URL: url, Headers: map[string]string{"Authorization": token}})
	if err == nil || !strings.Contains(err.Error(), `interceptor server "policy"`) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("New against a server that is down: %v", err)
	}
}

// A server that forgot the session (a restart): the call fails, the next
// one connects again.
func TestSessionLost(t *testing.T) {
	s := interceptortest.Start(t, interceptortest.DenyTool("guard", "t", "no"))
	c := newClient(t, s.URL, Options{})
	s.EndSessions()
	if _, err := c.Intercept(context.Background(), call("t", `{}`)); err == nil {
		t.Fatal("no error with the session gone")
	}
	if out := mustIntercept(t, c, call("t", `{}`)); out.Decision != intercept.Deny {
		t.Fatalf("%+v after connecting again, want deny", out)
	}
}

func TestListChanges(t *testing.T) {
	s := interceptortest.Start(t, interceptortest.Allow("ok"))
	c := newClient(t, s.URL, Options{ListTTL: 100 * time.Millisecond})
	if out := mustIntercept(t, c, call("t", `{}`)); out.Decision != intercept.Continue {
		t.Fatalf("%+v", out)
	}
	// An interceptor added is used once the list is old.
	s.Set(interceptortest.Allow("ok"), interceptortest.DenyTool("guard", "t", "no"))
	time.Sleep(150 * time.Millisecond)
	if out := mustIntercept(t, c, call("t", `{}`)); out.Decision != intercept.Deny {
		t.Fatalf("%+v, want the new interceptor's deny", out)
	}
	// One removed: the invocation's "not found" makes the client list
	// again at once, and the call goes on without it.
	lists := s.Lists()
	s.Set(interceptortest.LowerArgument("lower", "x"))
	out := mustIntercept(t, c, call("t", `{"x":"A"}`))
	if out.Decision != intercept.Modify {
		t.Fatalf("%+v, want the new list's mutation", out)
	}
	if s.Lists() != lists+1 {
		t.Errorf("%d lists, want one more", s.Lists()-lists)
	}
	if got := c.Interceptors(); len(got) != 1 || got[0] != "lower" {
		t.Errorf("Interceptors() = %v", got)
	}
}

func TestPages(t *testing.T) {
	s := interceptortest.Start(t, interceptortest.Allow("a"), interceptortest.Allow("b"), interceptortest.Allow("c"))
	s.SetPageSize(1)
	c := newClient(t, s.URL, Options{})
	if got := strings.Join(c.Interceptors(), ","); got != "a,b,c" {
		t.Errorf("Interceptors() = %s", got)
	}
}

// Interceptors of a type or mode the draft does not define are skipped.
func TestUnknownSkipped(t *testing.T) {
	odd := interceptortest.Allow("odd")
	odd.Mode = "shadow"
	s := interceptortest.Start(t, odd, interceptortest.Allow("ok"))
	c := newClient(t, s.URL, Options{})
	if got := strings.Join(c.Interceptors(), ","); got != "ok" {
		t.Errorf("Interceptors() = %s", got)
	}
}

func TestConcurrent(t *testing.T) {
	s := interceptortest.Start(t, interceptortest.DenyTool("guard", "bad", "no"), interceptortest.LowerArgument("lower", "x"), interceptortest.Allow("ok"))
	c := newClient(t, s.URL, Options{ListTTL: 5 * time.Millisecond})
	errs := make(chan error, 16)
	for i := range 16 {
		go func() {
			tool, want := "good", intercept.Modify
			if i%2 == 0 {
				tool, want = "bad", intercept.Deny
			}
			for range 10 {
				out, err := c.Intercept(context.Background(), call(tool, `{"x":"A"}`))
				if err == nil && out.Decision != want {
					err = errors.New("decision " + out.Decision + ", want " + want)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func names(invs []interceptortest.Invocation) []string {
	var out []string
	for _, inv := range invs {
		out = append(out, inv.Name)
	}
	return out
}

// A server that echoes the request's headers in an error body: the
// error does not show their values.
func TestHeadersNotInErrors(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad request, you sent "+r.Header.Get("Authorization"), http.StatusInternalServerError)
	}))
	defer echo.Close()
	_, err := New(context.Background(), Options{Name: "policy", URL: echo.URL, Headers: map[string]string{"Authorization": token}})
	if err == nil || !strings.Contains(err.Error(), "[redacted]") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("err = %v, want the header value hidden", err)
	}
}

// The interceptor's config: section reaches every invocation as its
// config, and the session's id and flow labels its context.
func TestConfigAndSession(t *testing.T) {
	s := interceptortest.Start(t, interceptortest.DenyTool("guard", "delete_file", "no"))
	c := newClient(t, s.URL, Options{Config: json.RawMessage(`{"root":"/srv"}`), Headers: map[string]string{"X-Team": "blue"}})
	in := call("read_file", `{}`)
	in.Session = &intercept.Session{ID: "sess-1", Labels: []string{"private", "untrusted"}}
	mustIntercept(t, c, in)
	invs := s.Invocations()
	if len(invs) != 1 {
		t.Fatalf("%d invocations, want 1", len(invs))
	}
	if string(invs[0].Config) != `{"root":"/srv"}` {
		t.Errorf("config %s, want the interceptor's config section", invs[0].Config)
	}
	var ctx InvokeContext
	if err := json.Unmarshal(invs[0].Context, &ctx); err != nil || ctx.SessionID != "sess-1" || len(ctx.Labels) != 2 || ctx.Labels[1] != "untrusted" {
		t.Errorf("context %s (%v), want the session's id and labels", invs[0].Context, err)
	}
	if got := invs[0].Header.Get("X-Team"); got != "blue" {
		t.Errorf("X-Team %q, want the configured header", got)
	}
}
