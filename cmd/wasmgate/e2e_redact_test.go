package main

// redact_secrets (issue 20, item 4): credential-shaped strings in what a
// plugin gets and returns are replaced and counted; a plugin without it is
// untouched.

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func TestRedactSecrets(t *testing.T) {
	t.Parallel()
	const awsKey = "AKIAIOSFODNN7EXAMPLE"
	leaky := newRecordingServer(t, map[string]http.HandlerFunc{"/creds": func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "aws_access_key_id="+awsKey+"\n")
	}})
	greeter := harness.Wasm(t, "examples/plugins/greeter")
	node, script := everything(t)
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: fmt.Sprintf(`  - name: fetch
    path: %s
    allowed_hosts: ["127.0.0.1:%s"]
    redact_secrets: true
  - {name: greeter, path: %s, redact_secrets: true}
  - {name: plain, path: %s, prefix: plain}
`, harness.Wasm(t, "testdata/plugins/fetch"), leaky.Port(), greeter, greeter),
		Sections: fmt.Sprintf("upstreams:\n  - {name: every, command: [%q, %q, stdio], prefix: ev, redact_secrets: true}\n", node, script)}))
	g := bins.Start(t, harness.Options{Config: cfg})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, time.Minute)

	text, isErr := harness.CallTool(ctx, t, c, "fetch", map[string]any{"url": leaky.URL + "/creds"})
	if isErr || strings.Contains(text, awsKey) || !strings.Contains(text, "[redacted aws-access-key]") {
		t.Errorf("fetch of a body holding an AWS key = %q (isError %v), want the key redacted", text, isErr)
	}
	text, _ = harness.CallTool(ctx, t, c, "say_hello", map[string]any{"name": "ghp_0123456789abcdefghijABCDEFGHIJ012345"})
	if strings.Contains(text, "ghp_") || !strings.Contains(text, "[redacted github-token]") {
		t.Errorf("say_hello with a GitHub token as the name = %q, want it redacted before the plugin saw it", text)
	}
	text, _ = harness.CallTool(ctx, t, c, "plain_say_hello", map[string]any{"name": awsKey})
	if !strings.Contains(text, awsKey) {
		t.Errorf("a plugin without redact_secrets = %q, want the text untouched", text)
	}
	// An upstream with redact_secrets: the upstream never sees the key.
	text, _ = harness.CallTool(ctx, t, c, "ev_echo", map[string]any{"message": "key " + awsKey})
	if strings.Contains(text, awsKey) || !strings.Contains(text, "[redacted aws-access-key]") {
		t.Errorf("ev_echo of an AWS key through an upstream with redact_secrets = %q", text)
	}
	for where, want := range map[string]float64{"result": 1, "arguments": 2} {
		var got float64
		for _, p := range []string{"fetch", "greeter", "every"} {
			for _, k := range []string{"aws-access-key", "github-token"} {
				v, _ := g.Metric(t, "wasmgate_secrets_redacted_total", map[string]string{"source": p, "kind": k, "where": where})
				got += v
			}
		}
		if got != want {
			t.Errorf("wasmgate_secrets_redacted_total{where=%q} = %v, want %v", where, got, want)
		}
	}
	if strings.Contains(g.Stderr(), "ghp_0123456789") {
		t.Errorf("the token reached the log:\n%s", g.Stderr())
	}
}
