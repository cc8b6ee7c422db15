package main

// Identity and policy end to end: principals with static tokens (digest,
// variable, file), what each sees and may call, 401 answers, denial and
// rate-limit counters, policy reloads on open sessions, the stdio
// principal.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/internal/mcphttp"
)

// newToken is a fresh random bearer token.
func newToken(t testing.TB) string {
	t.Helper()
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "tok-" + hex.EncodeToString(b)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// withToken is the mcp-go option sending token as a bearer token.
func withToken(token string) transport.StreamableHTTPCOption {
	return transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token})
}

// view is what a client lists: tool names, static resource URIs, resource
// templates and prompt names, each sorted.
type view struct {
	Tools, Resources, Templates, Prompts []string
}

func (v view) String() string {
	return fmt.Sprintf("tools %v, resources %v, templates %v, prompts %v", v.Tools, v.Resources, v.Templates, v.Prompts)
}

func (v view) equal(w view) bool {
	return slices.Equal(v.Tools, w.Tools) && slices.Equal(v.Resources, w.Resources) &&
		slices.Equal(v.Templates, w.Templates) && slices.Equal(v.Prompts, w.Prompts)
}

// listView lists everything c sees.
func listView(ctx context.Context, t *testing.T, c *client.Client) view {
	t.Helper()
	v := view{
		Tools:     harness.Tools(ctx, t, c),
		Resources: harness.Resources(ctx, t, c),
		Templates: harness.Templates(ctx, t, c),
		Prompts:   harness.Prompts(ctx, t, c),
	} // each sorted
	return v
}

const deniedByPolicy = "denied by policy"

// exampleCall makes one call of the example plugins and reports whether
// policy denied it. A call that was not denied must have worked; a denied
// one must say so and nothing more (an isError result for a tool, a
// JSON-RPC error for a resource or a prompt). errs collects every error
// text a client saw, for the secrets check.
type exampleCall struct {
	kind, name string // kind: tool, resource, prompt
	run        func(ctx context.Context, c *client.Client) (text string, isErr bool, err error)
	check      func(text string) bool // the answer of an allowed call
}

func exampleCalls(key string) []exampleCall {
	tool := func(name string, args map[string]any, check func(string) bool) exampleCall {
		return exampleCall{"tool", name, func(ctx context.Context, c *client.Client) (string, bool, error) {
			res, err := harness.CallToolErr(ctx, c, name, args)
			if err != nil {
				return "", false, err
			}
			return harness.ResultText(res), res.IsError, nil
		}, check}
	}
	read := func(uri string, check func(string) bool) exampleCall {
		return exampleCall{"resource", uri, func(ctx context.Context, c *client.Client) (string, bool, error) {
			res, err := harness.ReadResourceErr(ctx, c, uri)
			if err != nil {
				return "", false, err
			}
			var parts []string
			for _, rc := range res.Contents {
				if tc, ok := mcp.AsTextResourceContents(rc); ok {
					parts = append(parts, tc.Text)
				}
			}
			return strings.Join(parts, "\n"), false, nil
		}, check}
	}
	return []exampleCall{
		tool("calculate", map[string]any{"operation": "add", "a": 5, "b": 3}, func(s string) bool { return s == "8" }),
		tool("say_hello", map[string]any{"name": "Ada"}, func(s string) bool { return strings.Contains(s, "Ada") }),
		tool("set-storage", map[string]any{"key": key, "value": "v-" + key}, func(string) bool { return true }),
		read("greeter://about", func(s string) bool { return s != "" }),
		read("storage://shared", func(s string) bool { return s == "shared-value" }),
		read("storage://secret-plans", func(s string) bool { return s == "Key not found" }),
		{"prompt", "greeting_prompt", func(ctx context.Context, c *client.Client) (string, bool, error) {
			res, err := harness.GetPrompt(ctx, c, "greeting_prompt", map[string]string{"name": "Grace"})
			if err != nil {
				return "", false, err
			}
			var parts []string
			for _, m := range res.Messages {
				if tc, ok := mcp.AsTextContent(m.Content); ok {
					parts = append(parts, tc.Text)
				}
			}
			return strings.Join(parts, "\n"), false, nil
		}, func(s string) bool { return strings.Contains(s, "Grace") }},
	}
}

// runExampleCalls makes every example call as c and checks that exactly
// the ones in allowed (by "kind name") were served. It returns the
// number of denials by kind and every error text seen.
func runExampleCalls(ctx context.Context, t *testing.T, who string, c *client.Client, allowed ...string) (denials map[string]int, texts []string) {
	t.Helper()
	denials = map[string]int{}
	for _, call := range exampleCalls("k-" + who) {
		id := call.kind + " " + call.name
		text, isErr, err := call.run(ctx, c)
		if err != nil {
			text = err.Error()
		}
		texts = append(texts, text)
		want := slices.Contains(allowed, id)
		denied := strings.Contains(text, deniedByPolicy)
		switch {
		case want && (err != nil || isErr || !call.check(text)):
			t.Errorf("%s: %s = %q (isError %v, err %v), want it served", who, id, text, isErr, err)
		case !want && !denied:
			t.Errorf("%s: %s = %q (isError %v, err %v), want it %s", who, id, text, isErr, err, deniedByPolicy)
		case !want && call.kind == "tool" && (err != nil || !isErr):
			t.Errorf("%s: %s denied with err %v, isError %v: want an isError result", who, id, err, isErr)
		case !want && call.kind != "tool" && err == nil:
			t.Errorf("%s: %s denied without a JSON-RPC error", who, id)
		case !want:
			// Nothing but the refusal: no rule, principal or reason.
			wantText := fmt.Sprintf("%s %q is %s", call.kind, call.name, deniedByPolicy)
			if !strings.HasSuffix(text, wantText) {
				t.Errorf("%s: %s denied with %q, want it to end with %q", who, id, text, wantText)
			}
			denials[call.kind]++
		}
	}
	return denials, texts
}

// challengeOf POSTs initialize with the given Authorization header ("" for
// none) and returns the status, the WWW-Authenticate header and the body.
func challengeOf(t *testing.T, url, authorization string) (int, string, string) {
	t.Helper()
	h := headerIf("Authorization", authorization)
	resp := harness.PostJSON(t, url, harness.InitializeBody, h)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(body)
}

// TestPolicyPrincipals: three principals, one per way of giving a token,
// each under its own rules: each lists exactly what it may use and is
// served exactly that; the rest is denied by policy and counted. Requests
// without a token, or with a wrong one, get 401 with a Bearer challenge.
// No token appears in the log, /metrics or any error.
func TestPolicyPrincipals(t *testing.T) {
	t.Parallel()
	admin, ci, reader := newToken(t), newToken(t), newToken(t)
	wrong := newToken(t)
	secrets := harness.Secrets{admin, ci, reader, wrong}
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "reader.token")
	harness.WriteFile(t, tokenFile, []byte(reader+"\n"))
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Server:  "  log: {level: debug}\n",
		Plugins: harness.ExamplePlugins(t),
		Sections: fmt.Sprintf(`auth:
  principals:
    - {name: alice, token_sha256: %s, groups: [admins]}
    - {name: ci, token_env: E2E_CI_TOKEN, groups: [automation]}
    - {name: reader, token_file: %s}
policy:
  reveal_hidden: true # these tests read the refusal of a hidden name
  default: deny
  rules:
    - principals: [group:admins]
      allow: {tools: ["*"], resources: ["*"], prompts: ["*"]}
    - principals: ["*"]
      deny: {resources: ["storage://secret*"]}
    - principals: [group:automation]
      allow: {tools: ["calculate", "set-*"], resources: ["storage://*"]}
    - principals: [reader]
      allow: {tools: ["*"], resources: ["greeter://*"], prompts: ["greeting_*"]}
      deny: {tools: ["calculate", "set-storage"]}
`, sha256Hex(admin), harness.Q(tokenFile)),
	}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{"E2E_CI_TOKEN=" + ci}})
	secrets.Watch(t, g)
	ctx := harness.Ctx(t, 2*time.Minute)

	// Without a token, with a wrong one: 401. Static principals only: no
	// resource_metadata, there is no authorization server to announce.
	for _, tc := range []struct {
		name, authorization, challenge string
	}{
		{"no token", "", `Bearer realm="wasmgate"`},
		{"another scheme", "Basic " + admin, `Bearer realm="wasmgate"`},
		{"wrong token", "Bearer " + wrong, `Bearer realm="wasmgate", error="invalid_token"`},
		{"a token's digest as the token", "Bearer " + sha256Hex(admin), `Bearer realm="wasmgate", error="invalid_token"`},
	} {
		code, challenge, body := challengeOf(t, g.MCPURL, tc.authorization)
		if code != http.StatusUnauthorized || challenge != tc.challenge {
			t.Errorf("%s: %d with WWW-Authenticate %q, want 401 with %q", tc.name, code, challenge, tc.challenge)
		}
		secrets.Check(t, tc.name+": the 401 body", body)
	}
	// No metadata document without auth.jwt.
	if code, _ := harness.HTTPGet(t, strings.TrimSuffix(g.MCPURL, "/mcp")+"/.well-known/oauth-protected-resource"); code != http.StatusNotFound {
		t.Errorf("GET /.well-known/oauth-protected-resource without auth.jwt: %d, want 404", code)
	}

	// alice stores the value the others read.
	ac := g.SessionClient(t, withToken(admin))
	harness.CallTool(ctx, t, ac, "set-storage", map[string]any{"key": "shared", "value": "shared-value"})

	// A session belongs to the principal that opened it: with ci's token,
	// alice's session id is unknown (its GET stream, its DELETE).
	stolen := mcphttp.Attach(g.MCPURL, ac.GetSessionId(), mcphttp.Options{
		ProtocolVersion: harness.ProtoSessions,
		Header:          http.Header{"Authorization": {"Bearer " + ci}},
	})
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		body := ""
		if method == http.MethodPost {
			body = `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`
		}
		resp := harness.Send(t, stolen, method, body, nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s in alice's session with ci's token: %d, want 404", method, resp.StatusCode)
		}
	}
	harness.Calc(ctx, t, ac, 1, 1) // alice's session lives on

	type want struct {
		view    view
		allowed []string
	}
	cases := []struct {
		name, token string
		want        want
	}{
		{"alice", admin, want{
			view{Tools: []string{"calculate", "say_hello", "set-storage"}, Resources: []string{"greeter://about"}, Templates: []string{"storage://{key}"}, Prompts: []string{"greeting_prompt"}},
			[]string{"tool calculate", "tool say_hello", "tool set-storage", "resource greeter://about", "resource storage://shared", "prompt greeting_prompt"},
		}},
		{"ci", ci, want{
			view{Tools: []string{"calculate", "set-storage"}, Templates: []string{"storage://{key}"}},
			[]string{"tool calculate", "tool set-storage", "resource storage://shared"},
		}},
		{"reader", reader, want{
			view{Tools: []string{"say_hello"}, Resources: []string{"greeter://about"}, Prompts: []string{"greeting_prompt"}},
			[]string{"tool say_hello", "resource greeter://about", "prompt greeting_prompt"},
		}},
	}
	wantDenials := map[[2]string]int{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := g.SessionClient(t, withToken(tc.token))
			if got := listView(ctx, t, c); !got.equal(tc.want.view) {
				t.Errorf("%s lists %v\nwant %v", tc.name, got, tc.want.view)
			}
			// The stateless revision is filtered the same way.
			sc := g.Client(t, withToken(tc.token))
			if got := harness.Tools(ctx, t, sc); !slices.Equal(got, tc.want.view.Tools) {
				t.Errorf("%s lists tools %v over %s, want %v", tc.name, got, harness.ProtoStateless, tc.want.view.Tools)
			}
			denials, texts := runExampleCalls(ctx, t, tc.name, c, tc.want.allowed...)
			for kind, n := range denials {
				wantDenials[[2]string{tc.name, kind}] += n
			}
			for _, text := range texts {
				secrets.Check(t, tc.name+": an answer", text)
			}
		})
	}
	if len(wantDenials) == 0 {
		t.Fatal("no call was denied: the test checks nothing")
	}

	m := g.Scrape(t)
	for _, who := range []string{"alice", "ci", "reader"} {
		for _, kind := range []string{"tool", "resource", "prompt"} {
			got, _ := m.Value("wasmgate_policy_denials_total", map[string]string{"principal": who, "kind": kind})
			if w := wantDenials[[2]string{who, kind}]; got != float64(w) {
				t.Errorf("wasmgate_policy_denials_total{principal=%q,kind=%q} = %v, want %d", who, kind, got, w)
			}
		}
	}
	// Of the three, only reader is denied calculate, once.
	if got := m.ToolCalls("calculate", "denied"); got != 1 {
		t.Errorf("wasmgate_tool_calls_total{tool=calculate,outcome=denied} = %v, want 1", got)
	}
	if v, _ := m.Value("wasmgate_http_rejected_total", map[string]string{"reason": "auth"}); v < 4 {
		t.Errorf("wasmgate_http_rejected_total{reason=auth} = %v, want >= 4", v)
	}
	// The refused tokens' reasons are logged, without the tokens (checked
	// by secrets at the end).
	if _, ok := g.WaitLog(0, "not the token of any principal", 10*time.Second); !ok {
		t.Errorf("the log does not say why a token was refused")
	}
}

var retryRE = regexp.MustCompile(`is rate limited: retry in (\S+)`)

// TestPolicyRateLimit: a rule's limit (5/s, burst 5) lets the burst
// through, then about five calls a second, refuses the rest with a retry
// hint that holds, counts each refusal, and refills after the window. It
// applies per principal: another principal under the same rule has its
// own bucket.
func TestPolicyRateLimit(t *testing.T) {
	// Not parallel: it counts calls served against the clock.
	ci, other := newToken(t), newToken(t)
	secrets := harness.Secrets{ci, other}
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
		Plugins: harness.ExamplePlugins(t),
		Sections: fmt.Sprintf(`auth:
  principals:
    - {name: ci, token_sha256: %s}
    - {name: other, token_sha256: %s}
policy:
  reveal_hidden: true # these tests read the refusal of a hidden name
  rules:
    - principals: [ci, other]
      allow: {tools: [calculate]}
      rate_limit: {rate: 5/s, burst: 5}
    - principals: [ci]
      allow: {tools: [say_hello]}
`, sha256Hex(ci), sha256Hex(other)),
	}))
	g := bins.Start(t, harness.Options{Config: cfg})
	secrets.Watch(t, g)
	ctx := harness.Ctx(t, 2*time.Minute)
	c := g.SessionClient(t, withToken(ci))
	limited := 0
	// call calls calculate once and returns the retry hint of a refusal
	// (0 when served).
	call := func(c *client.Client) time.Duration {
		t.Helper()
		text, isErr := harness.CallTool(ctx, t, c, "calculate", map[string]any{"operation": "add", "a": 1, "b": 2})
		if !isErr && text == "3" {
			return 0
		}
		m := retryRE.FindStringSubmatch(text)
		if !isErr || m == nil {
			t.Fatalf("calculate = %q (isError %v), want 3 or a rate-limit refusal with a retry hint", text, isErr)
		}
		d, err := time.ParseDuration(m[1])
		if err != nil || d <= 0 || d > time.Second {
			t.Fatalf("retry hint %q: want a duration in (0, 1s] (one token at 5/s is 200ms)", m[1])
		}
		limited++
		return d
	}

	// The burst, then a refusal. On a loaded machine a token may refill
	// while the burst is spent, so the bound is burst + 5/s × elapsed.
	start := time.Now()
	served, n := 0, 0
	var retry time.Duration
	for retry == 0 {
		n++
		if retry = call(c); retry == 0 {
			served++
		}
		if n > 100 {
			t.Fatalf("100 calls in a row were served: no limit")
		}
	}
	if max := 5 + int(5*time.Since(start).Seconds()) + 1; served < 5 || served > max {
		t.Errorf("%d calls served before the first refusal after %v, want 5 (the burst) .. %d", served, time.Since(start), max)
	}
	// The other principal has its own bucket; ci's other tool has no limit.
	oc := g.SessionClient(t, withToken(other))
	if d := call(oc); d != 0 {
		t.Errorf("principal other was limited by ci's calls (retry in %v)", d)
	}
	for range 10 {
		if text, isErr := harness.CallTool(ctx, t, c, "say_hello", map[string]any{"name": "x"}); isErr {
			t.Fatalf("say_hello (no limit) = %q", text)
		}
	}
	// The hint holds: after waiting it, a call is served.
	time.Sleep(retry + 20*time.Millisecond)
	if d := call(c); d != 0 {
		t.Errorf("refused again %v after a hint of %v (retry in %v)", retry+20*time.Millisecond, retry, d)
	}

	// The sustained rate: four clients calling as fast as they can for two
	// seconds get about burst + 5/s × elapsed calls through, whatever the
	// speed of the machine (the bucket is drained whenever a call asks).
	time.Sleep(1100 * time.Millisecond) // the bucket refills: a full burst again
	clients := []*client.Client{c}
	for range 3 {
		clients = append(clients, g.SessionClient(t, withToken(ci)))
	}
	var mu sync.Mutex
	servedN, limitedN := 0, 0
	start = time.Now()
	var wg sync.WaitGroup
	for _, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Since(start) < 2*time.Second {
				res, err := harness.CallToolErr(ctx, cl, "calculate", map[string]any{"operation": "add", "a": 1, "b": 2})
				mu.Lock()
				switch {
				case err != nil:
					t.Errorf("calculate: %v", err)
				case !res.IsError:
					servedN++
				case retryRE.MatchString(harness.ResultText(res)):
					limitedN++
				default:
					t.Errorf("calculate: %q", harness.ResultText(res))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	limited += limitedN
	want := 5 + 5*elapsed
	// Tolerance: the last token may come after the last call, and a call in
	// flight when the window opens or closes (at most one per client).
	if float64(servedN) < want-1-float64(len(clients)) || float64(servedN) > want+1 {
		t.Errorf("%d calls served in %.2fs at 5/s with a burst of 5, want %.1f (±%d)", servedN, elapsed, want, len(clients)+1)
	}
	if limitedN == 0 {
		t.Errorf("four clients calling for 2s were never limited")
	}
	t.Logf("sustained: %d served, %d limited in %.2fs (want ≈ %.1f served)", servedN, limitedN, elapsed, want)

	// After the window (1s refills the burst of 5), the burst is back.
	time.Sleep(1100 * time.Millisecond)
	for i := range 5 {
		if d := call(c); d != 0 {
			t.Fatalf("call %d after the bucket refilled was refused (retry in %v)", i+1, d)
		}
	}

	m := g.Scrape(t)
	if got, _ := m.Value("wasmgate_rate_limited_total", map[string]string{"principal": "ci", "kind": "tool"}); got != float64(limited) {
		t.Errorf("wasmgate_rate_limited_total{principal=ci,kind=tool} = %v, want %d", got, limited)
	}
	if got := m.ToolCalls("calculate", "rate_limited"); got != float64(limited) {
		t.Errorf("wasmgate_tool_calls_total{tool=calculate,outcome=rate_limited} = %v, want %d", got, limited)
	}
	if got, _ := m.Value("wasmgate_policy_denials_total", map[string]string{"principal": "ci"}); got != 0 {
		t.Errorf("a rate-limited call counted as a policy denial (%v)", got)
	}
}

// TestPolicyReload: a reload that tightens a rule stops the next call of
// an open session (the same session id) and sends that session
// tools/list_changed, and only the sessions whose view changed; a
// principal whose token file changes is served with the new token only;
// a broken policy edit is refused naming its key and the old rules keep
// applying.
func TestPolicyReload(t *testing.T) {
	t.Parallel()
	ops, dev := newToken(t), newToken(t)
	dev2 := newToken(t)
	secrets := harness.Secrets{ops, dev, dev2}
	e := bins.NewDir(t)
	calc := e.Module("calculator", "examples/plugins/calculator")
	greeter := e.Module("greeter", "examples/plugins/greeter")
	devFile := filepath.Join(e.Path, "dev.token")
	harness.WriteFile(t, devFile, []byte(dev))
	render := func(devTools, when string) []byte {
		return []byte(e.YAML(harness.NoWatch+"  log: {level: debug}\n",
			harness.Item("name: calculator", "path: "+harness.Q(calc)),
			harness.Item("name: greeter", "path: "+harness.Q(greeter)),
		) + fmt.Sprintf(`auth:
  principals:
    - {name: ops, token_sha256: %s}
    - {name: dev, token_file: dev.token}
policy:
  reveal_hidden: true # these tests read the refusal of a hidden name
  rules:
    - principals: [ops]
      allow: {tools: ["*"]}
    - principals: [dev]
      allow: {tools: %s}
      when: %s
`, sha256Hex(ops), devTools, harness.Q(when)))
	}
	harness.WriteFile(t, e.Config, render(`["*"]`, "true"))
	g := bins.Start(t, harness.Options{Config: e.Config})
	secrets.Watch(t, g)
	ctx := harness.Ctx(t, 2*time.Minute)

	dc := g.SessionClient(t, withToken(dev), transport.WithContinuousListening())
	oc := g.SessionClient(t, withToken(ops), transport.WithContinuousListening())
	devNotes, opsNotes := harness.CountNotes(dc), harness.CountNotes(oc)
	sid := dc.GetSessionId()
	harness.WaitTools(ctx, t, dc, visible, "calculate", "say_hello")
	harness.Calc(ctx, t, dc, 2, 3)
	time.Sleep(300 * time.Millisecond) // the GET streams are open by now

	// reload reloads through POST /-/reload, which answers when the
	// reload is done: 200, or 500 with the error.
	reload := func(what string) (ok bool, answer string) {
		t.Helper()
		code, body := g.PostReload(t)
		if code != http.StatusOK && code != http.StatusInternalServerError {
			t.Fatalf("%s: POST /-/reload = %d %s", what, code, body)
		}
		return code == http.StatusOK, body
	}

	// Tighten: dev may call say_hello only.
	harness.WriteFile(t, e.Config, render(`[say_hello]`, "true"))
	if ok, answer := reload("tighten"); !ok {
		t.Fatalf("the tightening reload failed: %s", answer)
	}
	text, isErr := harness.CallTool(ctx, t, dc, "calculate", map[string]any{"operation": "add", "a": 1, "b": 1})
	if !isErr || !strings.Contains(text, deniedByPolicy) {
		t.Errorf("calculate on the open session after tightening = %q (isError %v), want %s", text, isErr, deniedByPolicy)
	}
	if dc.GetSessionId() != sid {
		t.Errorf("the session id changed from %s to %s", sid, dc.GetSessionId())
	}
	harness.WaitTools(ctx, t, dc, visible, "say_hello")
	harness.Calc(ctx, t, oc, 2, 3) // ops is untouched
	time.Sleep(settle)
	if n := devNotes.Count(mcp.MethodNotificationToolsListChanged); n != 1 {
		t.Errorf("dev's session got %d tools/list_changed after the tightening, want 1", n)
	}
	if l := devNotes.Lists(); l[1] != 0 || l[2] != 0 {
		t.Errorf("dev's session got %s list_changed: only its tools changed", l)
	}
	if l := opsNotes.Lists(); l != (harness.Lists{}) {
		t.Errorf("ops's session got %s list_changed: its view did not change", l)
	}

	// A broken edit: the CEL condition does not compile. Refused, named,
	// and the tightened rules still apply (never fall open).
	off := len(g.Stderr())
	harness.WriteFile(t, e.Config, render(`["*"]`, "args.n <"))
	ok, answer := reload("broken")
	if ok {
		t.Fatalf("a policy with a broken CEL condition was applied")
	}
	if !strings.Contains(answer, "policy.rules[1].when") {
		t.Errorf("the reload failure %q does not name policy.rules[1].when", answer)
	}
	if _, ok := g.WaitLog(off, "policy.rules[1].when", 10*time.Second); !ok {
		t.Errorf("the logged reload failure does not name policy.rules[1].when:\n%s", g.StderrSince(off))
	}
	if _, fail := g.Reloads(t); fail != 1 {
		t.Errorf("wasmgate_config_reloads_total{outcome=failure} = %v, want 1", fail)
	}
	if g.LastReloadOK(t) != 0 {
		t.Errorf("wasmgate_config_last_reload_successful is 1 after a failed reload")
	}
	text, isErr = harness.CallTool(ctx, t, dc, "calculate", map[string]any{"operation": "add", "a": 1, "b": 1})
	if !isErr || !strings.Contains(text, deniedByPolicy) {
		t.Errorf("calculate after a broken edit = %q (isError %v), want still %s", text, isErr, deniedByPolicy)
	}
	// An invalid default is refused as well.
	harness.WriteFile(t, e.Config, []byte(strings.Replace(string(render(`["*"]`, "true")), "policy:\n", "policy:\n  default: maybe\n", 1)))
	if ok, answer := reload("bad default"); ok || !strings.Contains(answer, "policy.default") {
		t.Fatalf("policy.default: maybe: reload ok %v, %q", ok, answer)
	}
	harness.Calc(ctx, t, oc, 4, 5)

	// A principal's token file is rewritten: the old token stops working
	// and the new one works, on the next request.
	before := devNotes.Lists()
	harness.WriteFile(t, devFile, []byte(dev2))
	harness.WriteFile(t, e.Config, render(`[say_hello]`, "true"))
	if ok, answer := reload("rotate dev's token"); !ok {
		t.Fatalf("the reload rotating dev's token failed: %s", answer)
	}
	if _, err := harness.CallToolErr(ctx, dc, "say_hello", map[string]any{"name": "x"}); err == nil {
		t.Errorf("the old token still works after its file changed")
	} else {
		secrets.Check(t, "the error for a revoked token", err.Error())
	}
	if code, challenge, _ := challengeOf(t, g.MCPURL, "Bearer "+dev); code != http.StatusUnauthorized || !strings.Contains(challenge, `error="invalid_token"`) {
		t.Errorf("old token after rotation: %d %q, want 401 invalid_token", code, challenge)
	}
	nc := g.SessionClient(t, withToken(dev2))
	if text, isErr := harness.CallTool(ctx, t, nc, "say_hello", map[string]any{"name": "Bo"}); isErr {
		t.Errorf("say_hello with the new token = %q", text)
	}
	time.Sleep(settle)
	if after := devNotes.Lists(); after != before {
		// The view of dev did not change (same rules): no list_changed.
		t.Errorf("dev's session got list_changed (%s -> %s) for a reload that changed only its token", before, after)
	}

	// Loosen again: the open ops session, and new dev sessions, see it.
	harness.WriteFile(t, e.Config, render(`["*"]`, `transport == "http"`))
	if ok, answer := reload("loosen"); !ok {
		t.Fatalf("the loosening reload failed: %s", answer)
	}
	harness.Calc(ctx, t, nc, 6, 7)
}

// TestPolicyStdioPrincipal: the stdio client is transports.stdio.principal
// (default local), with the groups auth.principals gives that name, and
// the rules for it apply; the HTTP side is unaffected.
func TestPolicyStdioPrincipal(t *testing.T) {
	t.Parallel()
	t.Run("default local", func(t *testing.T) {
		cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
			Plugins: harness.ExamplePlugins(t),
			Sections: `policy:
  reveal_hidden: true # these tests read the refusal of a hidden name
  rules:
    - principals: [local]
      allow: {tools: [calculate], prompts: ["*"]}
    - principals: [anonymous]
      allow: {tools: [say_hello]}
`,
		}))
		g := bins.Start(t, harness.Options{Config: cfg, Stdio: true})
		ctx := harness.Ctx(t, time.Minute)
		sc := g.StdioClient(t)
		if got := listView(ctx, t, sc); !got.equal(view{Tools: []string{"calculate"}, Prompts: []string{"greeting_prompt"}}) {
			t.Errorf("the stdio client (local) lists %v", got)
		}
		denials, _ := runExampleCalls(ctx, t, "local", sc, "tool calculate", "prompt greeting_prompt")
		// Anonymous HTTP (loopback, no auth) is the principal anonymous.
		hc := g.SessionClient(t)
		if got := harness.Tools(ctx, t, hc); !slices.Equal(got, []string{"say_hello"}) {
			t.Errorf("the anonymous HTTP client lists %v, want [say_hello]", got)
		}
		m := g.Scrape(t)
		for kind, n := range denials {
			if got, _ := m.Value("wasmgate_policy_denials_total", map[string]string{"principal": "local", "kind": kind}); got != float64(n) {
				t.Errorf("wasmgate_policy_denials_total{principal=local,kind=%s} = %v, want %d", kind, got, n)
			}
		}
	})
	t.Run("configured", func(t *testing.T) {
		tok := newToken(t)
		cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{
			HTTP:    "  stdio:\n    principal: robot\n",
			Plugins: harness.ExamplePlugins(t),
			Sections: fmt.Sprintf(`auth:
  principals:
    - {name: robot, token_sha256: %s, groups: [bots]}
policy:
  reveal_hidden: true # these tests read the refusal of a hidden name
  rules:
    - principals: [group:bots]
      allow: {tools: [say_hello], resources: ["greeter://*"]}
    - principals: [local]
      allow: {tools: ["*"]}
    - principals: [robot]
      allow: {tools: [set-storage]}
      when: 'transport == "http"'
`, sha256Hex(tok)),
		}))
		g := bins.Start(t, harness.Options{Config: cfg, Stdio: true})
		ctx := harness.Ctx(t, time.Minute)
		sc := g.StdioClient(t)
		// set-storage is listed (its when depends on the transport, unknown
		// to a list) but a stdio call of it is denied.
		if got := listView(ctx, t, sc); !got.equal(view{Tools: []string{"say_hello", "set-storage"}, Resources: []string{"greeter://about"}}) {
			t.Errorf("the stdio client (robot) lists %v", got)
		}
		runExampleCalls(ctx, t, "robot", sc, "tool say_hello", "resource greeter://about")
		// Over HTTP the same principal may call set-storage.
		hc := g.SessionClient(t, withToken(tok))
		if text, isErr := harness.CallTool(ctx, t, hc, "set-storage", map[string]any{"key": "a", "value": "b"}); isErr {
			t.Errorf("robot over HTTP: set-storage = %q, want it served (when: transport == \"http\")", text)
		}
	})
}

// TestPolicyBearerPrincipal: transports.http.auth's token is the
// principal bearer, for policy and metrics, and counts as authentication
// for a listener that is not loopback.
func TestPolicyBearerPrincipal(t *testing.T) {
	t.Parallel()
	tok := newToken(t)
	secrets := harness.Secrets{tok}
	cfg := harness.WriteConfig(t, everywhere(t, bins.YAML(harness.Parts{
		HTTP:    "    auth: {bearer_token_env: E2E_LEGACY_TOKEN}\n",
		Plugins: harness.ExamplePlugins(t),
		Sections: `policy:
  reveal_hidden: true # these tests read the refusal of a hidden name
  rules:
    - principals: [bearer]
      allow: {tools: [calculate]}
`,
	})))
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{"E2E_LEGACY_TOKEN=" + tok}})
	secrets.Watch(t, g)
	ctx := harness.Ctx(t, time.Minute)
	c, _ := harness.HTTPClient(t, loopbackURL(g), harness.ProtoSessions, withToken(tok))
	if got := harness.Tools(ctx, t, c); !slices.Equal(got, []string{"calculate"}) {
		t.Errorf("the bearer principal lists %v, want [calculate]", got)
	}
	harness.Calc(ctx, t, c, 1, 2)
	if text, isErr := harness.CallTool(ctx, t, c, "say_hello", map[string]any{"name": "x"}); !isErr || !strings.Contains(text, deniedByPolicy) {
		t.Errorf("say_hello as bearer = %q, want %s", text, deniedByPolicy)
	}
	if v, _ := g.Metric(t, "wasmgate_policy_denials_total", map[string]string{"principal": "bearer", "kind": "tool"}); v != 1 {
		t.Errorf("wasmgate_policy_denials_total{principal=bearer,kind=tool} = %v, want 1", v)
	}
	if code, challenge, _ := challengeOf(t, loopbackURL(g), ""); code != http.StatusUnauthorized || challenge != `Bearer realm="wasmgate"` {
		t.Errorf("no token: %d %q, want 401 with a Bearer challenge", code, challenge)
	}
}
