package loader

import (
	"fmt"

	"github.com/wasmgate/wasmgate/config"
)

// DefaultEndpoint is the name of the one endpoint a config without an
// endpoints section serves: every source, at transports.http.path.
const DefaultEndpoint = "default"

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

	// Key is where it is declared ("endpoints[0]"); for the default
	// endpoint, "transports.http.path".
	Key string `koanf:"-"`
}

// Selection is an include/exclude pair of globs ('*' any run of
// characters): a name is selected when it matches an include (default
// "*") and no exclude.
type Selection struct {
	Include []string `koanf:"include"`
	Exclude []string `koanf:"exclude"`
}

// Access is who may use an endpoint: a principal named in Principals or
// in one of Groups. Both empty: everyone policy lets in.
type Access struct {
	Principals []string `koanf:"principals"`
	Groups     []string `koanf:"groups"`
}

// Open reports whether a lets everyone in.
func (a Access) Open() bool { return len(a.Principals) == 0 && len(a.Groups) == 0 }

// Normalize fills each endpoint's defaults and checks what it can alone;
// what depends on other sections is Config.checkEndpoints.
func (es Endpoints) Normalize(key string, env *config.Env) {
	for i := range es {
		e := &es[i]
		e.Key = fmt.Sprintf("%s[%d]", key, i)
		if e.Path == "" && e.Name != "" {
			e.Path = "/mcp/" + e.Name
		}
		for _, s := range []*Selection{&e.Tools, &e.Resources, &e.Prompts} {
			if s.Include == nil {
				s.Include = []string{"*"}
			}
		}
	}
}

// EndpointList is the endpoints c serves: its endpoints section, or
// without one the default endpoint (every source at
// transports.http.path, titled by nothing beyond server.name).
func (c *Config) EndpointList() []Endpoint {
	if len(c.Endpoints) > 0 {
		return c.Endpoints
	}
	all := []string{"*"}
	return []Endpoint{{
		Name: DefaultEndpoint, Path: c.Transports.HTTP.Path, Key: "transports.http.path",
		Tools: Selection{Include: all}, Resources: Selection{Include: all}, Prompts: Selection{Include: all},
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
