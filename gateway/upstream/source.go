// Source: an upstream as one snapshot serves it (name, prefix, curation,
// status) and its resource subscriptions. Its calls are in call.go, its
// lists in list.go, its requests to the client in forward.go.

package upstream

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
)

// Source is an upstream as one snapshot serves it: that snapshot's spec
// (prefix, curation, timeout) over a server shared by the snapshots that
// leave its connection settings unchanged.
type Source struct {
	spec loader.UpstreamSpec
	srv  *shared
}

var (
	_ source.Source         = (*Source)(nil)
	_ source.Completer      = (*Source)(nil)
	_ source.Kinded         = (*Source)(nil)
	_ source.StatusReporter = (*Source)(nil)
	_ source.SessionEnder   = (*Source)(nil)
)

func (u *Source) Name() string   { return u.spec.Name }
func (u *Source) Key() string    { return u.spec.Key }
func (u *Source) Prefix() string { return u.spec.Prefix }
func (u *Source) Kind() string   { return "upstream" }
func (u *Source) Descriptor() abi.Descriptor {
	if d := u.srv.desc.Load(); d != nil {
		return *d
	}
	return abi.Descriptor{} // start: background, not connected yet
}
func (u *Source) Timeout() time.Duration { return time.Duration(u.spec.Limits.Timeout) }

// Curation is the upstream's tools.include/exclude and overrides, which
// the index applies.
func (u *Source) Curation() *config.Curation { return &u.spec.Curation }

// RedactSecrets is redact_secrets (source.SecretRedactor).
func (u *Source) RedactSecrets() bool { return u.spec.RedactSecrets }

// Status is the upstream's health for the status page.
func (u *Source) Status() source.Status {
	s := u.srv
	st := &source.UpstreamStatus{Session: s.spec.Session, Restarts: int(s.restarts.Load())}
	if s.spec.Stdio() {
		st.Transport, st.Target = "stdio", strings.Join(s.spec.Command, " ")
	} else {
		st.Transport, st.Target = "streamable-http", s.spec.URL
	}
	c := s.main
	c.mu.Lock()
	st.Up, st.LastError = c.up, s.redact(c.lastErr)
	if c.kind != "" {
		st.Transport = c.kind
	}
	c.mu.Unlock()
	if le := s.listErr.Load(); le != nil {
		// Its lists were refused: that is what the operator must see.
		st.LastError = s.redact(*le)
	}
	st.NotificationsDropped = s.notes.dropped.Load()
	st.Stale, st.Idle = s.cached.Load(), s.idle.Load() || (s.demand != nil && s.cached.Load() && !st.Up)
	s.mu.Lock()
	st.Clients = len(s.clients)
	s.mu.Unlock()
	if s.ident != nil {
		st.Identity, st.Users, st.Clients = s.mode(), st.Clients, 0
		st.IdentityFailures = int(s.idFailures.Load())
		if e := s.idLastErr.Load(); e != nil {
			st.LastIdentityError = *e
		}
	}
	return source.Status{Upstream: st}
}

// EndSession closes the per-client upstream session of a downstream one.
func (u *Source) EndSession(_ context.Context, session string) { u.srv.endSession(session) }

// CanComplete reports whether the upstream declared completions.
func (u *Source) CanComplete() bool {
	cli := u.srv.main.current()
	return cli != nil && cli.GetServerCapabilities().Completions != nil
}

// Subscribe subscribes the shared session to the upstream's own URI, once
// (and again after each reconnect); its updates reach the downstream
// sessions subscribed to the exposed URI.
func (u *Source) Subscribe(ctx context.Context, own string) error {
	s := u.srv
	if _, loaded := s.subs.LoadOrStore(own, true); loaded {
		return nil
	}
	cli := s.main.current()
	if cli == nil {
		return nil // subscribed when it connects
	}
	if cli.GetServerCapabilities().Resources == nil || !cli.GetServerCapabilities().Resources.Subscribe {
		return nil
	}
	req := mcp.SubscribeRequest{}
	req.Params.URI = own
	ctx, cancel := context.WithTimeout(ctx, u.Timeout())
	defer cancel()
	if err := cli.Subscribe(ctx, req); err != nil {
		s.subs.Delete(own)
		return fmt.Errorf("upstream %q: resources/subscribe: %v", s.name(), err)
	}
	return nil
}

// resubscribe subscribes a new shared session to what the last one was.
func (s *shared) resubscribe(cli *client.Client) {
	caps := cli.GetServerCapabilities().Resources
	if caps == nil || !caps.Subscribe {
		return
	}
	s.subs.Range(func(k, _ any) bool {
		req := mcp.SubscribeRequest{}
		req.Params.URI = k.(string)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			ctx, cancel := context.WithTimeout(s.ctx, time.Duration(s.spec.Limits.Timeout))
			defer cancel()
			if err := cli.Subscribe(ctx, req); err != nil && s.ctx.Err() == nil {
				s.h.Logger.Warn("upstream: subscribing again after a reconnect failed", "upstream", s.name(), "uri", req.Params.URI, "error", err)
			}
		}()
		return true
	})
}

// downstream is the downstream MCP session of a call's context.
func downstream(ctx context.Context) mcpserver.ClientSession {
	return mcpserver.ClientSessionFromContext(ctx)
}

func exposedURI(prefix, uri string) string { return source.ExposedURI(prefix, uri) }
