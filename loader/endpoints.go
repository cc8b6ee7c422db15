package loader

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/wasmgate/wasmgate/auth/authconfig"
	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/glob"
	"github.com/wasmgate/wasmgate/internal/spell"
)

// DefaultEndpoint is the name of the one endpoint a config without an
// endpoints section serves: every source, at transports.http.path.
const DefaultEndpoint = "default"

// AnonymousPrincipal is who an HTTP caller is when no authentication is
// configured (the gateway's envelope.Anonymous).
const AnonymousPrincipal = "anonymous"

// Endpoints is the endpoints section: the curated MCP servers one
// gateway publishes, each with its own path, catalog and audience
// (docs/endpoints.md). Empty: one endpoint, DefaultEndpoint.
type Endpoints []Endpoint

// Endpoint is one entry of endpoints.
type Endpoint struct {
	// Name is unique; the label in metrics, audit, traces and the
	// status page.
	Name string `koanf:"name"`
	// Path is its Streamable HTTP path on transports.http (unique;
	// default /mcp/<name>).
	Path string `koanf:"path"`
	// Title is its serverInfo title, Instructions its initialize
	// instructions.
	Title        string `koanf:"title"`
	Instructions string `koanf:"instructions"`
	// Sources are source names or globs (default: every source).
	Sources []string `koanf:"sources"`
	// Tools, Resources and Prompts select by exposed name (a resource by
	// URI, a template by its URI template), after each source's prefix
	// and overrides.
	Tools     Selection `koanf:"tools"`
	Resources Selection `koanf:"resources"`
	Prompts   Selection `koanf:"prompts"`
	// Access is who may use it (default: everyone policy lets in).
	Access Access `koanf:"access"`
	// Discovery is how clients find its tools: every tool listed (mode
	// all, the default) or a search (mode search).
	Discovery Discovery `koanf:"discovery"`
	// Lists overrides the top-level lists section's caching hints for
	// this endpoint's list results.
	Lists Lists `koanf:"lists"`

	// Key is where it is declared ("endpoints[0]"); for the default
	// endpoint, "transports.http.path".
	Key string `koanf:"-"`

	// sources is Sources compiled by Normalize (nil: SourceMatch
	// compiles them on each call).
	sources *glob.Set
}

// SourceMatch reports whether the endpoint publishes what the source
// named name publishes: Sources is empty (every source) or one of its
// names or globs matches name.
func (e *Endpoint) SourceMatch(name string) bool {
	if len(e.Sources) == 0 {
		return true
	}
	if e.sources != nil {
		return e.sources.Match(name)
	}
	set, _ := compileSet(e.Sources)
	return set.Match(name)
}

// Selection is an include/exclude pair of globs (internal/glob: '*' any
// run of characters, '/' included, '?' one character, '\' quotes the
// next): a name is selected when it matches an include and no exclude.
// Include nil means ["*"] (Normalize writes it so); an empty list
// selects nothing.
type Selection struct {
	Include []string `koanf:"include"`
	Exclude []string `koanf:"exclude"`

	// m is Include and Exclude compiled by Normalize (nil: Match
	// compiles them on each call).
	m *selector
}

type selector struct{ include, exclude glob.Set }

// Match reports whether the selection selects name: a tool's or a
// prompt's exposed name, a resource's URI, a resource template's URI
// template as written (storage://{key}). It is cheap on a Selection
// from Load; on one built by hand it compiles the patterns on each call
// (Compile first, to call it often).
func (s Selection) Match(name string) bool {
	m := s.m
	if m == nil {
		m, _ = s.compile()
	}
	return m.include.Match(name) && !m.exclude.Match(name)
}

// Compile compiles s's patterns, so that Match costs only the matching;
// the error names the first bad pattern.
func (s *Selection) Compile() error {
	m, err := s.compile()
	if err != nil {
		return err
	}
	s.m = m
	return nil
}

// compile compiles what it can of s; the error is the first bad
// pattern's.
func (s *Selection) compile() (*selector, error) {
	include := s.Include
	if include == nil {
		include = []string{"*"}
	}
	in, err := compileSet(include)
	ex, err2 := compileSet(s.Exclude)
	if err == nil {
		err = err2
	}
	return &selector{include: in, exclude: ex}, err
}

// compileSet compiles every pattern it can of ss; the error is the first
// bad one's.
func compileSet(ss []string) (glob.Set, error) {
	var set glob.Set
	var first error
	for _, s := range ss {
		g, err := glob.Compile(s)
		if err != nil {
			if first == nil {
				first = fmt.Errorf("%q: %w", s, err)
			}
			continue
		}
		set = append(set, g)
	}
	return set, first
}

// checkPatterns compiles ss (at key) and reports each bad pattern.
func checkPatterns(ss []string, key string, bad config.Bad) glob.Set {
	var set glob.Set
	for i, s := range ss {
		g, err := glob.Compile(s)
		if err != nil {
			bad(fmt.Sprintf("%s[%d]", key, i), "%q is not a valid pattern: %v", s, err)
			continue
		}
		set = append(set, g)
	}
	return set
}

// Access is who may use an endpoint: a principal named in Principals or
// in one of Groups. Both empty: everyone policy lets in.
type Access struct {
	Principals []string `koanf:"principals"`
	Groups     []string `koanf:"groups"`
}

// Open reports whether a lets everyone in.
func (a Access) Open() bool { return len(a.Principals) == 0 && len(a.Groups) == 0 }

// Allows reports whether a lets in the principal name with groups.
func (a Access) Allows(name string, groups []string) bool {
	if a.Open() || slices.Contains(a.Principals, name) {
		return true
	}
	for _, g := range groups {
		if slices.Contains(a.Groups, g) {
			return true
		}
	}
	return false
}

// Normalize fills each endpoint's defaults and checks what it can alone:
// names (present, valid, unique), paths (well formed, unique) and every
// pattern. What depends on other sections is Config.checkEndpoints.
func (es Endpoints) Normalize(key string, env *config.Env) {
	names, paths := map[string]string{}, map[string]string{}
	for i := range es {
		e := &es[i]
		e.Key = fmt.Sprintf("%s[%d]", key, i)
		switch {
		case e.Name == "":
			env.Bad(e.Key+".name", "missing: every endpoint needs a name (it labels metrics, audit lines and the status page)")
		case !config.ValidName(e.Name):
			env.Bad(e.Key+".name", "%q: use letters, digits, '_', '-' or '.' (1-64 characters)", e.Name)
		default:
			if prev, ok := names[e.Name]; ok {
				env.Bad(e.Key+".name", "duplicate endpoint name %q (also %s)", e.Name, prev)
			} else {
				names[e.Name] = e.Key
			}
		}
		if e.Path == "" && e.Name != "" && config.ValidName(e.Name) {
			e.Path = "/mcp/" + e.Name
		}
		if e.Path != "" {
			if err := checkEndpointPath(e.Path); err != nil {
				env.Bad(e.Key+".path", "%q: %v", e.Path, err)
			} else if prev, ok := paths[e.Path]; ok {
				env.Bad(e.Key+".path", "%q is also the path of %s; every endpoint needs its own path", e.Path, prev)
			} else {
				paths[e.Path] = e.Key
			}
		}
		if len(e.Sources) > 0 {
			set := checkPatterns(e.Sources, e.Key+".sources", env.Bad)
			e.sources = &set
		}
		for _, s := range []struct {
			key string
			sel *Selection
		}{{"tools", &e.Tools}, {"resources", &e.Resources}, {"prompts", &e.Prompts}} {
			if s.sel.Include == nil {
				s.sel.Include = []string{"*"}
			}
			k := e.Key + "." + s.key
			s.sel.m = &selector{
				include: checkPatterns(s.sel.Include, k+".include", env.Bad),
				exclude: checkPatterns(s.sel.Exclude, k+".exclude", env.Bad),
			}
		}
		e.Discovery.normalize(e.Key+".discovery", e.Name, env)
		e.Lists.Normalize(e.Key+".lists", env)
		for j, p := range e.Access.Principals {
			if p == "" || strings.TrimSpace(p) != p {
				env.Bad(fmt.Sprintf("%s.access.principals[%d]", e.Key, j), "%q: want a principal's name", p)
			}
		}
		for j, g := range e.Access.Groups {
			if g == "" || strings.TrimSpace(g) != g {
				env.Bad(fmt.Sprintf("%s.access.groups[%d]", e.Key, j), "%q: want a group's name", g)
			}
		}
	}
}

// checkEndpointPath says what is wrong with p as an endpoint's path: it
// is a pattern of the MCP listener's mux, matched exactly.
func checkEndpointPath(p string) error {
	switch {
	case !strings.HasPrefix(p, "/"):
		return fmt.Errorf("must start with /")
	case p == "/":
		return fmt.Errorf("the root would take every path of the listener; want a path such as /mcp/dev")
	case strings.HasSuffix(p, "/"):
		return fmt.Errorf("must not end with /")
	case strings.ContainsAny(p, "{}?#*% \t\r\n"):
		return fmt.Errorf("may not hold {, }, ?, #, *, %% or spaces (it is matched exactly, as written)")
	case path.Clean(p) != p:
		return fmt.Errorf("not a clean path (no //, . or .. segments): clients would be redirected to %s", path.Clean(p))
	}
	return nil
}

// EndpointList is the endpoints c serves: its endpoints section, or
// without one the default endpoint (every source at
// transports.http.path, titled by nothing beyond server.name).
func (c *Config) EndpointList() []Endpoint {
	if len(c.Endpoints) > 0 {
		return c.Endpoints
	}
	star, _ := glob.Compile("*")
	all := func() Selection {
		return Selection{Include: []string{"*"}, m: &selector{include: glob.Set{star}}}
	}
	return []Endpoint{{
		Name: DefaultEndpoint, Path: c.Transports.HTTP.Path, Key: "transports.http.path",
		Tools: all(), Resources: all(), Prompts: all(), Discovery: Discovery{Mode: DiscoveryAll, MaxResults: DefaultMaxResults},
	}}
}

// StdioEndpoint is the endpoint the stdio transport serves:
// transports.stdio.endpoint, else the first endpoint.
func (c *Config) StdioEndpoint() string {
	if e := c.Transports.Stdio.Endpoint; e != "" {
		return e
	}
	return c.EndpointList()[0].Name
}

// checkEndpoints checks what endpoints share with other sections: their
// paths against the relay's, the OAuth metadata's and the admin
// listener's, their sources against the names of plugins, upstreams and
// relay sites, their access against the principals and groups auth
// knows, and transports.stdio.endpoint against their names.
func (c *Config) checkEndpoints(env *config.Env) {
	if s := c.Transports.Stdio.Endpoint; s != "" {
		var names []string
		for _, e := range c.EndpointList() {
			names = append(names, e.Name)
		}
		if !slices.Contains(names, s) {
			env.Bad("transports.stdio.endpoint", "%q names no endpoint (%s)%s", s, list("endpoints", names), didYouMean(s, names))
		}
	}
	if len(c.Endpoints) == 0 {
		return // the default endpoint at transports.http.path: checked as it always was
	}
	relay := c.Relay.Path
	paths := map[string]string{}
	for _, e := range c.Endpoints {
		paths[e.Path] = e.Key
	}
	for _, e := range c.Endpoints {
		p, k := e.Path, e.Key+".path"
		if p == "" || checkEndpointPath(p) != nil {
			continue // reported by Normalize
		}
		card, isCard := strings.CutSuffix(p, ServerCardSuffix)
		switch {
		case p == CatalogPath:
			env.Bad(k, "%q is where the catalog of the endpoints' server cards is served; choose another path", p)
		case isCard && paths[card] != "":
			env.Bad(k, "%q is where the server card of %s (%s) is served; choose another path", p, paths[card], card)
		case p == relay || strings.HasPrefix(p, relay+"/"):
			env.Bad(k, "%q is under relay.path %q, where the browser relay serves; give the endpoint a path outside it", p, relay)
		case p == authconfig.MetadataPath || strings.HasPrefix(p, authconfig.MetadataPath+"/"):
			env.Bad(k, "%q is under %s, where the OAuth protected-resource metadata is served; choose another path", p, authconfig.MetadataPath)
		case p == OAuthPath || strings.HasPrefix(p, OAuthPath+"/"):
			env.Bad(k, "%q is under %s, where the gateway serves its OAuth connect pages, callback and client metadata (auth.user_oauth); choose another path", p, OAuthPath)
		case AdminPath(p):
			env.Bad(k, "%q is a path of the admin listener (/metrics, /healthz, /readyz, /api/status, /-/…); choose another path", p)
		}
	}
	c.checkEndpointSources(env)
	c.checkEndpointAccess(env)
}

// Where the MCP listener serves the server cards of the endpoints and
// their catalog (package servercard): an endpoint's path may be neither.
const (
	ServerCardSuffix = "/server-card"
	CatalogPath      = "/.well-known/ai-catalog.json"
)

// checkEndpointSources reports each sources entry that matches no
// plugin, upstream or relay site.
func (c *Config) checkEndpointSources(env *config.Env) {
	var names []string
	for _, p := range c.Plugins {
		names = append(names, p.Name)
	}
	for _, s := range c.Relay.Sites {
		names = append(names, s.Name)
	}
	for _, u := range c.Upstreams {
		names = append(names, u.Name)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, e := range c.Endpoints {
		for j, s := range e.Sources {
			g, err := glob.Compile(s)
			if err != nil {
				continue // reported by Normalize
			}
			if !slices.ContainsFunc(names, g.Match) {
				env.Bad(fmt.Sprintf("%s.sources[%d]", e.Key, j), "%q matches no source (%s)%s", s,
					list("plugins, upstreams and relay sites", names), didYouMean(s, names))
			}
		}
	}
}

// checkEndpointAccess reports each access entry that names no principal
// or group auth knows. With auth.jwt, access tokens bring names and
// groups no file lists: every name is accepted then, as policy rules
// accept any (a name no caller has matches no caller).
func (c *Config) checkEndpointAccess(env *config.Env) {
	if c.Auth.JWT != nil {
		return
	}
	var principals, groups []string
	for _, p := range c.Auth.Principals {
		principals = append(principals, p.Name)
		groups = append(groups, p.Groups...)
	}
	if c.Transports.HTTP.Auth.Set() {
		principals = append(principals, LegacyPrincipal)
	}
	if !c.Auth.Enabled() && !c.Transports.HTTP.Auth.Set() {
		principals = append(principals, AnonymousPrincipal)
	}
	principals = append(principals, c.Transports.Stdio.Principal)
	slices.Sort(principals)
	principals = slices.Compact(principals)
	slices.Sort(groups)
	groups = slices.Compact(groups)
	for _, e := range c.Endpoints {
		for j, p := range e.Access.Principals {
			if p == "" || strings.TrimSpace(p) != p || slices.Contains(principals, p) {
				continue
			}
			hint := didYouMean(p, principals)
			switch {
			case strings.HasPrefix(p, "group:"):
				hint = fmt.Sprintf("; for a group write access.groups: [%s]", strings.TrimPrefix(p, "group:"))
			case p == "*":
				hint = "; leave access out to let everyone in"
			}
			env.Bad(fmt.Sprintf("%s.access.principals[%d]", e.Key, j), "%q is no principal (%s; without auth.jwt no other name can call)%s",
				p, list("principals", principals), hint)
		}
		for j, g := range e.Access.Groups {
			if g == "" || strings.TrimSpace(g) != g || slices.Contains(groups, g) {
				continue
			}
			env.Bad(fmt.Sprintf("%s.access.groups[%d]", e.Key, j), "%q is the group of no principal (%s; without auth.jwt no other group can call)%s",
				g, list("groups of auth.principals", groups), didYouMean(g, groups))
		}
	}
}

// list names what there is, for an error: "plugins: a, b" or "plugins:
// none"; at most 10 names.
func list(what string, names []string) string {
	switch {
	case len(names) == 0:
		return what + ": none"
	case len(names) > 10:
		return fmt.Sprintf("%s: %s, … (%d in all)", what, strings.Join(names[:10], ", "), len(names))
	}
	return what + ": " + strings.Join(names, ", ")
}

// didYouMean is "; did you mean x?" for the name of known nearest to s,
// or "".
func didYouMean(s string, known []string) string {
	if near := spell.Nearest(s, known); near != "" {
		return "; did you mean " + near + "?"
	}
	return ""
}
