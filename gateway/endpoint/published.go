package endpoint

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/flow"
	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/intercept"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/policy"
)

// published is what an endpoint serves from one catalog: its selection
// of the catalog's index, and of each session's own view. It is the
// state the endpoint's envelope runs calls on.
type published struct {
	cat   Catalog
	cfg   *loader.Endpoint
	sel   source.Selector // nil: everything
	index *source.Index   // cat.Index() selected
	views sync.Map        // session id -> *source.Index: its overlay, selected
	find  *finder         // the search index (discovery.mode search), else nil
	// hints are the sources' caching hints of each list (cache.go),
	// computed once, on the first list request.
	hintsOnce sync.Once
	hints     [4]abi.CacheHint
	// toolsJSON is each tool's definition as encoding/json writes it
	// in a list, by name (rawTools), encoded once, on the first list.
	toolsOnce sync.Once
	toolsJSON map[string][]byte
	// allTools is rawTools of every tool, in mcp-go's order (by name).
	allTools atomic.Pointer[json.RawMessage]
	// toolViews are the tools/list each principal got (lists.go), by
	// viewKey: *toolView; nViews counts them, viewBytes what they hold
	// of their own.
	toolViews sync.Map
	nViews    atomic.Int32
	viewBytes atomic.Int64
}

var (
	_ envelope.State        = (*published)(nil)
	_ envelope.SessionState = (*published)(nil)
)

func (p *published) Index() *source.Index           { return p.index }
func (p *published) Policy() *policy.Policy         { return p.cat.Policy() }
func (p *published) Stdio() policy.Principal        { return p.cat.Stdio() }
func (p *published) Flows() *flow.Rules             { return p.cat.Flows() }
func (p *published) Interceptors() *intercept.Chain { return p.cat.Interceptors() }
func (p *published) config() *loader.Config         { return p.cat.Conf() }
func (p *published) sources() []source.Source       { return p.cat.Sources() }

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

// selector is an endpoint's selection (loader.Endpoint, its patterns
// compiled by Load): its sources, then tools, resources and prompts by
// exposed name or URI.
type selector struct{ cfg *loader.Endpoint }

// newSelector is cfg's selection; nil (everything) for the default
// endpoint.
func newSelector(cfg loader.Endpoint, custom bool) source.Selector {
	if !custom {
		return nil
	}
	return selector{&cfg}
}

func (s selector) Source(name string) bool { return s.cfg.SourceMatch(name) }

// Tool selects by the endpoint's tools section; a search endpoint never
// publishes a source's tool under a meta-tool's name (CheckReserved
// refuses such a config; a source that lists one later loses it here).
func (s selector) Tool(name string) bool {
	return s.cfg.Tools.Match(name) && !(s.cfg.Discovery.Search() && isMeta(name))
}
func (s selector) Resource(uri string) bool { return s.cfg.Resources.Match(uri) }
func (s selector) Prompt(name string) bool  { return s.cfg.Prompts.Match(name) }
