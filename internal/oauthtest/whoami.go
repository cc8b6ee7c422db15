package oauthtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Whoami is a test upstream: a real mcp-go Streamable HTTP server whose
// tool whoami answers who the bearer token says the caller is.
//
// initialize, tools/list and the other methods are served without a
// token (the gateway lists an upstream's tools without a user);
// tools/call needs a bearer JWT signed by a key of the issuer's JWKS,
// unexpired, with the configured audience, else 401 with a
// WWW-Authenticate challenge.
type Whoami struct {
	// URL is the MCP endpoint (http://127.0.0.1:port/mcp).
	URL string

	issuer   string
	audience string
	keys     jose.JSONWebKeySet

	mu   sync.Mutex
	seen []string // every Authorization header value received
}

// WhoamiAnswer is what the whoami tool answers.
type WhoamiAnswer struct {
	Sub   string   `json:"sub"`
	Aud   []string `json:"aud"`
	Scope string   `json:"scope,omitempty"`
	Iss   string   `json:"iss"`
}

type claimsKey struct{}

type whoamiClaims struct {
	jwt.Claims
	Scope string `json:"scope,omitempty"`
}

// StartWhoami starts the upstream on a free port, trusting the keys at
// issuerJWKSURL (fetched once, now) and requiring audience.
func StartWhoami(t testing.TB, issuerJWKSURL, audience string) *Whoami {
	t.Helper()
	w := &Whoami{audience: audience}
	// Hydra, just started on a busy machine, may close the first
	// connections: try for a while before failing.
	var resp *http.Response
	var err error
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err = http.Get(issuerJWKSURL); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("whoami: fetching the JWKS: %v", err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&w.keys); err != nil {
		t.Fatalf("whoami: decoding the JWKS: %v", err)
	}
	s := server.NewMCPServer("whoami", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("whoami", mcp.WithDescription("Who the upstream sees: the bearer token's sub, aud, scope and iss.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			c, ok := ctx.Value(claimsKey{}).(*whoamiClaims)
			if !ok {
				return mcp.NewToolResultError("no verified token"), nil
			}
			return mcp.NewToolResultJSON(WhoamiAnswer{Sub: c.Subject, Aud: c.Audience, Scope: c.Scope, Iss: c.Issuer})
		})
	inner := server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
		if c := r.Context().Value(claimsKey{}); c != nil {
			return context.WithValue(ctx, claimsKey{}, c)
		}
		return ctx
	}))
	mux := http.NewServeMux()
	mux.Handle("/mcp", w.guard(inner))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	w.URL = srv.URL + "/mcp"
	return w
}

// Seen is every Authorization header value the upstream has received.
func (w *Whoami) Seen() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.seen...)
}

// guard records Authorization headers and checks the bearer of every
// tools/call.
func (w *Whoami) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		authz := r.Header.Get("Authorization")
		if authz != "" {
			w.mu.Lock()
			w.seen = append(w.seen, authz)
			w.mu.Unlock()
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(rw, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(rw, "reading the body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg) // batches and responses: no method, no token needed
		if authz != "" || msg.Method == "tools/call" {
			c, err := w.verify(authz)
			if err != nil {
				rw.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="invalid_token", error_description=%q`, err.Error()))
				http.Error(rw, "unauthorized: "+err.Error(), http.StatusUnauthorized)
				return
			}
			r = r.WithContext(context.WithValue(r.Context(), claimsKey{}, c))
		}
		next.ServeHTTP(rw, r)
	})
}

func (w *Whoami) verify(authz string) (*whoamiClaims, error) {
	raw, ok := strings.CutPrefix(authz, "Bearer ")
	if !ok || raw == "" {
		return nil, fmt.Errorf("a bearer token is required")
	}
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.RS256, jose.ES256, jose.EdDSA})
	if err != nil {
		return nil, fmt.Errorf("not a JWT")
	}
	c := new(whoamiClaims)
	if err := tok.Claims(w.keys, c); err != nil {
		return nil, fmt.Errorf("signature not verified by the issuer's keys")
	}
	if err := c.ValidateWithLeeway(jwt.Expected{AnyAudience: jwt.Audience{w.audience}, Time: time.Now()}, 5*time.Second); err != nil {
		return nil, fmt.Errorf("claims: %v", err)
	}
	return c, nil
}
