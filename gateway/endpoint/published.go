package endpoint

import (
	"context"
	"path"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/policy"
)

// published is what an endpoint serves from one catalog: its selection
// of the catalog's index, and of each session's own view. It is the
// state the endpoint's envelope runs calls on.
type published struct {
	cat   Catalog
	sel   source.Selector // nil: everything
	index *source.Index   // cat.Index() selected
	views sync.Map        // session id -> *source.Index: its overlay, selected
}

var (
	_ envelope.State        = (*published)(nil)
	_ envelope.SessionState = (*published)(nil)
)

func (p *published) Index() *source.Index     { return p.index }
func (p *published) Policy() *policy.Policy   { return p.cat.Policy() }
func (p *published) Stdio() policy.Principal  { return p.cat.Stdio() }
func (p *published) config() *loader.Config   { return p.cat.Conf() }
func (p *published) sources() []source.Source { return p.cat.Sources() }

// SessionIndex is the index of the session of ctx.
func (p *published) SessionIndex(ctx context.Context) *source.Index {
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		return p.sessionIndex(cs.SessionID())
	}
	return p.index
}

// sessionIndex is what session sees: the endpoint's index, or its
// selection of the session's overlay when a session-scoped instance of
// the session relisted.
func (p *published) sessionIndex(session string) *source.Index {
	if session == "" {
		return p.index
	}
	if v, ok := p.views.Load(session); ok {
		return v.(*source.Index)
	}
	x, _ := p.overlay(session)
	if x != p.index {
		v, _ := p.views.LoadOrStore(session, x) // a relist may have stored a newer one meanwhile
		return v.(*source.Index)
	}
	return x
}

// overlay computes session's view, selected, with what it refused.
func (p *published) overlay(session string) (*source.Index, []error) {
	x, errs := p.cat.Overlay(session)
	if x == p.cat.Index() {
		return p.index, errs
	}
	return x.Select(p.sel), errs
}

// sessionLists is the index of the session of ctx when it has an
// overlay, nil otherwise (it sees the shared lists).
func (p *published) sessionLists(ctx context.Context) *source.Index {
	if x := p.SessionIndex(ctx); x != p.index {
		return x
	}
	return nil
}

// selector is an endpoint's selection (loader.Endpoint): its sources,
// then tools, resources and prompts by exposed name or URI.
type selector struct{ cfg loader.Endpoint }

// newSelector is cfg's selection; nil (everything) for the default
// endpoint.
func newSelector(cfg loader.Endpoint, custom bool) source.Selector {
	if !custom {
		return nil
	}
	return selector{cfg}
}

func (s selector) Source(name string) bool {
	return len(s.cfg.Sources) == 0 || matchAny(s.cfg.Sources, name)
}
func (s selector) Tool(name string) bool    { return selected(s.cfg.Tools, name) }
func (s selector) Resource(uri string) bool { return selected(s.cfg.Resources, uri) }
func (s selector) Prompt(name string) bool  { return selected(s.cfg.Prompts, name) }

func selected(sel loader.Selection, name string) bool {
	return matchAny(sel.Include, name) && !matchAny(sel.Exclude, name)
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if glob(p, name) {
			return true
		}
	}
	return false
}

// glob matches name against pattern: '*' any run of characters, '/'
// included; otherwise path.Match's syntax.
func glob(pattern, name string) bool {
	if !strings.ContainsAny(pattern, "*?[\\") {
		return pattern == name
	}
	if pattern == "*" {
		return true
	}
	// path.Match's '*' stops at '/': match each '/'-free piece of the
	// pattern's stars against any run.
	ok, err := path.Match(strings.ReplaceAll(pattern, "/", "\x00"), strings.ReplaceAll(name, "/", "\x00"))
	return err == nil && ok
}
