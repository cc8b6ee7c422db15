package loader

import (
	"time"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/glob"
	"github.com/wasmgate/wasmgate/loader/fetch"
)

// The discovery modes of an endpoint (endpoints[].discovery.mode).
const (
	// DiscoveryAll lists every tool the endpoint selects (the default).
	DiscoveryAll = "all"
	// DiscoverySearch lists the pinned tools and the two meta-tools,
	// FindTools and CallTool; every other tool is found by a search and
	// called by its own name or through CallTool.
	DiscoverySearch = "search"
)

// The meta-tools of a search endpoint: their names are reserved there.
const (
	FindTools = "find_tools"
	CallTool  = "call_tool"
)

// Bounds of discovery.max_results and of find_tools' limit.
const (
	DefaultMaxResults = 8
	MaxMaxResults     = 50
)

// DefaultRankerTimeout is discovery.ranker.limits.timeout when it is not
// set: a ranker is on the path of every search.
const DefaultRankerTimeout = 250 * time.Millisecond

// Discovery is how an endpoint lets clients find its tools
// (docs/endpoints.md, "Large catalogs").
type Discovery struct {
	// Mode is DiscoveryAll (default) or DiscoverySearch.
	Mode string `koanf:"mode"`
	// Pinned are tool names or globs (exposed names) always listed as
	// themselves in search mode.
	Pinned []string `koanf:"pinned"`
	// MaxResults is find_tools' default limit (DefaultMaxResults; at most
	// MaxMaxResults).
	MaxResults int `koanf:"max_results"`
	// Ranker, when set, is a WASM module that re-ranks the top
	// candidates of each search (docs/plugins.md, "Rankers"). It is
	// fetched, pinned and verified as a plugin is, and gets no grant it
	// is not given.
	Ranker *PluginSpec `koanf:"ranker"`

	pinned *glob.Set // Pinned compiled by normalize
}

// Search reports whether d is search mode.
func (d *Discovery) Search() bool { return d.Mode == DiscoverySearch }

// PinnedMatch reports whether the tool named name is pinned.
func (d *Discovery) PinnedMatch(name string) bool {
	if d.pinned != nil {
		return d.pinned.Match(name)
	}
	set, _ := compileSet(d.Pinned)
	return set.Match(name)
}

// Limit is the number of results find_tools returns when asked for n
// (0: not asked).
func (d *Discovery) Limit(n int) int {
	if n <= 0 {
		n = d.MaxResults
	}
	if n <= 0 {
		n = DefaultMaxResults
	}
	return min(n, MaxMaxResults)
}

// normalize fills the defaults of the discovery section at key and
// checks it.
func (d *Discovery) normalize(key, endpoint string, env *config.Env) {
	switch d.Mode {
	case "":
		d.Mode = DiscoveryAll
	case DiscoveryAll, DiscoverySearch:
	default:
		env.Bad(key+".mode", "%q is no discovery mode: use all (every tool listed, the default) or search (pinned tools, find_tools and call_tool)%s",
			d.Mode, didYouMean(d.Mode, []string{DiscoveryAll, DiscoverySearch}))
	}
	set := checkPatterns(d.Pinned, key+".pinned", env.Bad)
	d.pinned = &set
	switch {
	case d.MaxResults == 0:
		d.MaxResults = DefaultMaxResults
	case d.MaxResults < 1 || d.MaxResults > MaxMaxResults:
		env.Bad(key+".max_results", "%d is out of range (1..%d)", d.MaxResults, MaxMaxResults)
	}
	if d.Mode != DiscoverySearch {
		if len(d.Pinned) > 0 {
			env.Bad(key+".pinned", "pinned tools are for mode: search (in mode: %s every tool is listed); set mode: search or remove pinned", d.Mode)
		}
		if d.Ranker != nil {
			env.Bad(key+".ranker", "a ranker ranks searches: set mode: search or remove ranker")
		}
		return
	}
	if r := d.Ranker; r != nil {
		r.Key = key + ".ranker"
		d.normalizeRanker(r, endpoint, env)
	}
}

// normalizeRanker checks a ranker as a plugin entry is checked, without
// what only a tool source has.
func (d *Discovery) normalizeRanker(r *PluginSpec, endpoint string, env *config.Env) {
	k := r.Key
	switch {
	case r.Path == "":
		env.Bad(k+".path", "missing: the ranker's module (a .wasm file or a URL)")
		return
	case r.Dir != "":
		env.Bad(k+".dir", "a ranker is one module: name it with path")
	case r.Prefix != "":
		env.Bad(k+".prefix", "a ranker publishes no tools; remove prefix")
	case r.Instances != "":
		env.Bad(k+".instances", "a ranker's instances are pooled; remove instances")
	case r.RedactSecrets:
		env.Bad(k+".redact_secrets", "a ranker sees tool definitions and the query only; remove redact_secrets")
	case len(r.Tools.Include) > 0 || len(r.Tools.Exclude) > 0 || len(r.Overrides) > 0:
		env.Bad(k, "a ranker publishes no tools; remove tools and overrides")
	}
	if r.Name == "" {
		r.Name = endpoint + ".ranker"
	}
	if r.Limits.Timeout == 0 {
		r.Limits.Timeout = config.Duration(DefaultRankerTimeout)
	}
	if fetch.Scheme(r.Path) == "" {
		r.Path = env.Path(r.Path)
	}
	r.normalize(env)
	if r.Limits.Concurrency == 0 {
		r.Limits.Concurrency = 4
	}
}
