package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/policy"
)

// benchToken is the bearer token of the principal the policy benchmarks
// call as.
const benchToken = "bench-token-0123456789abcdef0123456789abcdef"

// benchPolicyYAML is what `make bench-policy` measures: a principal with
// a token among two, three rules (one with a CEL condition on the
// transport and the arguments, and its own rate limit), a gateway-wide
// rate limit (both too high to refuse), and audit lines to a file.
func benchPolicyYAML(dir string) string {
	sum := sha256.Sum256([]byte(benchToken))
	return fmt.Sprintf(`auth:
  principals:
    - {name: ops, token_sha256: %q}
    - {name: bench, token_sha256: %q, groups: [load]}
policy:
  default: deny
  rate_limit: {rate: 1000000/s}
  rules:
    - principals: [ops]
      allow: {tools: ["*"], resources: ["*"], prompts: ["*"]}
    - principals: [group:load]
      allow: {tools: [calculate]}
      when: 'transport == "http" && args.a < 1000'
      rate_limit: {rate: 1000000/s, burst: 1000000}
    - principals: ["*"]
      deny: {tools: ["set-*"]}
audit:
  file: %q
`, hex.EncodeToString(bytes.Repeat([]byte{0xab}, 32)), hex.EncodeToString(sum[:]), filepath.Join(dir, "audit.log"))
}

// BenchmarkCallToolSerialPolicy is BenchmarkCallToolSerial with what
// identity and policy add to every HTTP call: authenticating the bearer
// token (as the HTTP guard does), the policy decision with its CEL
// condition, both rate limits, and an audit line written to a file.
// Compare the two:
//
//	go test -run '^$' -bench 'CallToolSerial' -count 6 ./gateway
func BenchmarkCallToolSerialPolicy(b *testing.B) {
	g := newTestGatewayWith(b, benchPolicyYAML(b.TempDir()))
	h := g.Endpoint("default").Envelope().ToolHandler("calculate")
	req := calcRequest()
	hr := httptest.NewRequest("POST", "http://127.0.0.1/mcp", nil)
	hr.Header.Set("Authorization", "Bearer "+benchToken)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		c, err := authenticate(g.cur.Load(), hr)
		if err != nil || c.Principal.Name != "bench" {
			b.Fatalf("authenticate: %v %+v", err, c)
		}
		res, err := h(envelope.WithCaller(ctx, c), req)
		if err != nil || res.IsError {
			b.Fatalf("call failed: %v %+v", err, res)
		}
	}
}

// BenchmarkPolicyOverhead is the identity and policy work of one call
// alone, without the call: authenticate, decide, take from the rate
// limits, write the audit line.
func BenchmarkPolicyOverhead(b *testing.B) {
	g := newTestGatewayWith(b, benchPolicyYAML(b.TempDir()))
	s := g.cur.Load()
	hr := httptest.NewRequest("POST", "http://127.0.0.1/mcp", nil)
	hr.Header.Set("Authorization", "Bearer "+benchToken)
	args := map[string]any{"operation": "add", "a": 5.0, "b": 3.0}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c, err := authenticate(s, hr)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		cctx := envelope.WithCaller(ctx, c)
		if _, msg := g.Endpoint("default").Envelope().Authorize(cctx, s, policy.Tool, "calculate", args); msg != "" {
			b.Fatalf("refused: %s", msg)
		}
		g.audit.Observe(cctx, &envelope.Call{Caller: c, Kind: "tool", Name: "calculate", Outcome: "ok", Start: start, Took: time.Since(start), Args: args})
	}
}

// BenchmarkPolicyOverheadParallel is BenchmarkPolicyOverhead from 16
// goroutines at once, as 16 HTTP clients make calls: the locks of the
// rate limiters and the audit file are shared.
func BenchmarkPolicyOverheadParallel(b *testing.B) {
	g := newTestGatewayWith(b, benchPolicyYAML(b.TempDir()))
	s := g.cur.Load()
	args := map[string]any{"operation": "add", "a": 5.0, "b": 3.0}
	b.ReportAllocs()
	b.SetParallelism(8)
	b.RunParallel(func(pb *testing.PB) {
		hr := httptest.NewRequest("POST", "http://127.0.0.1/mcp", nil)
		hr.Header.Set("Authorization", "Bearer "+benchToken)
		ctx := context.Background()
		for pb.Next() {
			c, err := authenticate(s, hr)
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			cctx := envelope.WithCaller(ctx, c)
			if _, msg := g.Endpoint("default").Envelope().Authorize(cctx, s, policy.Tool, "calculate", args); msg != "" {
				b.Fatalf("refused: %s", msg)
			}
			g.audit.Observe(cctx, &envelope.Call{Caller: c, Kind: "tool", Name: "calculate", Outcome: "ok", Start: start, Took: time.Since(start), Args: args})
		}
	})
}

// authenticate is what the HTTP transport does with hr's bearer token.
func authenticate(s *Snapshot, hr *http.Request) (envelope.Caller, error) {
	p, err := s.parts.id.authn.Authenticate(hr)
	if err != nil {
		return envelope.Caller{}, err
	}
	return envelope.Caller{Principal: policy.Principal(p), Transport: envelope.TransportHTTP, JWT: p.Claims != nil}, nil
}
