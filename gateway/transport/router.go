package transport

import (
	"net/http"
	"strings"
	"sync"

	"github.com/wasmgate/wasmgate/auth"
	"github.com/wasmgate/wasmgate/gateway/servercard"
)

// Router is the MCP listener's handler: each endpoint's path, its
// protected-resource metadata, and the handlers mounted beside them (the
// browser relay), replaced whole when endpoints come and go (a reload)
// while requests are served. A path no endpoint serves gets 404, as
// an endpoint removed does from then on.
type Router struct {
	mu     sync.RWMutex
	routes map[string]Served
	meta   http.Handler // the root metadata path's: the first endpoint's
	mounts map[string]http.Handler
	// catalog serves servercard.CatalogPath (SetCatalog); nil: 404.
	catalog http.Handler
}

// NewRouter routes nothing until Set.
func NewRouter() *Router { return &Router{routes: map[string]Served{}} }

// Set routes each endpoint's path (first: the one whose metadata the
// root metadata path serves) and mounts, a prefix each ending in "/".
func (rt *Router) Set(first string, routes map[string]Served, mounts map[string]http.Handler) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.routes, rt.mounts, rt.meta = routes, mounts, nil
	if f, ok := routes[first]; ok {
		rt.meta = f.Metadata
	}
}

// SetCatalog serves h at servercard.CatalogPath, the catalog of the
// endpoints' server cards.
func (rt *Router) SetCatalog(h http.Handler) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.catalog = h
}

// Route is the endpoint served at path.
func (rt *Router) Route(path string) (Served, bool) {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	s, ok := rt.routes[path]
	return s, ok
}

func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	rt.mu.RLock()
	s, ok := rt.routes[p]
	meta := rt.meta
	var mount http.Handler
	if !ok {
		if p == auth.MetadataPath {
			mount = meta
		} else if rest, found := strings.CutPrefix(p, auth.MetadataPath); found {
			if e, ok := rt.routes[rest]; ok {
				mount = e.Metadata
			}
		} else if p == servercard.CatalogPath && rt.catalog != nil {
			mount = rt.catalog
		} else if ep, found := strings.CutSuffix(p, servercard.Suffix); found {
			if e, ok := rt.routes[ep]; ok && e.Card != nil {
				mount = e.Card
			}
		}
		for prefix, h := range rt.mounts {
			if mount == nil && strings.HasPrefix(p, prefix) {
				mount = h
			}
		}
	}
	rt.mu.RUnlock()
	switch {
	case ok:
		s.MCP.ServeHTTP(w, r)
	case mount != nil:
		mount.ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}
