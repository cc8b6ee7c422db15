package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/relay"
)

// The browser relay (package relay) as the gateway serves it: each site
// of relay.sites is a Source indexed with the plugins. What a site
// provides changes while the gateway runs (a page registers, or leaves);
// the relay says so through relayChanged, which derives a new snapshot
// from the serving one, sharing its plugins, and swaps it in, so that
// sessions get list_changed as on a reload.

// relayState is what a snapshot holds of the relay: the plan its sites
// come from, the relay generation it indexed, and what could not be
// published per site (a name another source provides).
type relayState struct {
	plan     *relay.Plan
	gen      uint64
	problems map[string][]string
}

// newRelay is the relay of a new Gateway.
func (g *Gateway) newRelay() *relay.Relay {
	return relay.New(relay.Options{Logger: g.log, Metrics: g.opts.Metrics, OnChange: g.relayChanged})
}

// buildRelay plans the relay section of s's config (tokens read, checks
// that involve other sections) and indexes the sites after the plugins.
// What a page registered never fails a build: a name a plugin already
// provides is left out and reported to the page.
func (g *Gateway) buildRelay(s *Snapshot) error {
	cfg := s.Config
	h := cfg.Transports.HTTP
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &loader.ConfigError{File: cfg.File, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	if len(cfg.Relay.Sites) > 0 && !h.On() {
		bad("relay.sites", "the relay serves on the MCP HTTP listener: enable transports.http")
	}
	if cfg.Relay.Path == h.Path {
		bad("relay.path", "%q is transports.http.path; give the relay its own path", cfg.Relay.Path)
	}
	plan, err := g.relay.Prepare(cfg.File, cfg.Relay, relay.Listener{Addr: h.Listen})
	if err != nil {
		errs = append(errs, err)
	} else {
		for _, site := range plan.Sites() {
			for _, p := range s.plugins {
				if p.name == site.Name() {
					bad(site.Key()+".name", "%q is also the name of %s; metrics label both as plugin %q", site.Name(), p.spec.Key, site.Name())
				}
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	s.relay = &relayState{plan: plan}
	g.indexSites(s)
	return nil
}

// indexSites indexes what every site of s's plan provides now.
func (g *Gateway) indexSites(s *Snapshot) {
	s.relay.gen = g.relay.Generation()
	s.relay.problems = map[string][]string{}
	for _, site := range s.relay.plan.Sites() {
		for _, err := range s.index(relaySource{site}) {
			s.relay.problems[site.Name()] = append(s.relay.problems[site.Name()], err.Error())
			g.log.Warn("relay: not published", "site", site.Name(), "problem", err)
		}
	}
}

// applyRelay makes s's relay plan current, after s serves. If a page
// registered while s was being built, s is indexed again.
func (g *Gateway) applyRelay(s *Snapshot) {
	if s.relay == nil {
		return
	}
	g.relay.Apply(s.relay.plan)
	if g.relay.Generation() != s.relay.gen {
		g.swap(g.derive(s))
	}
}

// relayChanged is the relay's OnChange: a site's set changed, so the
// serving snapshot is indexed again. It returns what of the site could
// not be published.
func (g *Gateway) relayChanged(site string) []string {
	g.applyMu.Lock()
	defer g.applyMu.Unlock()
	cur := g.cur.Load()
	if cur == nil || cur.relay == nil {
		return nil
	}
	s := g.derive(cur)
	g.swap(s)
	return s.relay.problems[site]
}

// derive is a snapshot serving what cur serves (the same config, plugins,
// identity and relay plan) with every source indexed afresh: after a page
// registered or left, or a plugin's lists changed. Call with applyMu.
func (g *Gateway) derive(cur *Snapshot) *Snapshot {
	s := cur.derive()
	for _, src := range s.sources() {
		for _, err := range s.index(src) { // indexed without error when cur was built
			g.log.Warn("plugin lists: not published", "problem", err)
		}
	}
	if s.relay != nil {
		g.indexSites(s)
	}
	return s
}

// relayComponent disconnects the relay's pages at shutdown (going away),
// after the MCP listeners have drained the calls they forward.
func (g *Gateway) relayComponent() component {
	return component{
		name:  "browser relay",
		start: func(context.Context) error { return nil },
		stop:  func(ctx context.Context) { g.relay.Close(ctx) },
	}
}

// relaySource is a relay site as a Source: its failures become Failures.
type relaySource struct{ *relay.Site }

func (r relaySource) CallTool(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	res, err := r.Site.CallTool(ctx, tool, args)
	return res, relayFailure(err)
}

func (r relaySource) ReadResource(ctx context.Context, res abi.Resource, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
	c, err := r.Site.ReadResource(ctx, res, uri, vars)
	return c, relayFailure(err)
}

func (r relaySource) GetPrompt(ctx context.Context, prompt string, args map[string]string) ([]mcp.PromptMessage, error) {
	m, err := r.Site.GetPrompt(ctx, prompt, args)
	return m, relayFailure(err)
}

// relayFailure maps a relay.CallError's kind to a Failure.
func relayFailure(err error) error {
	var fk interface{ FailureKind() string }
	if err == nil || !errors.As(err, &fk) {
		return err
	}
	kind := FailCrash
	switch fk.FailureKind() {
	case relay.KindError:
		kind = FailError
	case relay.KindTimeout:
		kind = FailTimeout
	case relay.KindCancelled:
		kind = FailCancelled
	}
	return &Failure{Kind: kind, Msg: err.Error()}
}

// sourceKind names what kind of source src is in messages.
func sourceKind(src Source) string {
	if _, ok := src.(relaySource); ok {
		return "relay site"
	}
	return "plugin"
}
