package ops

// EndpointStatus is one endpoint the gateway publishes (the endpoints
// section; without one, "default"): where it is served, what it selects
// from and publishes, who may use it and its sessions now.
type EndpointStatus struct {
	Name          string   `json:"name"`
	Path          string   `json:"path"`
	Title         string   `json:"title,omitempty"`
	Sources       []string `json:"sources"` // as configured; empty: every source
	Access        []string `json:"access"`  // principals, "group:<name>"; empty: everyone policy lets in
	Tools         int      `json:"tools"`
	Discovery     string   `json:"discovery"` // discovery.mode: all or search
	Indexed       int      `json:"indexed"`   // tools in the search index (mode search)
	Resources     int      `json:"resources"` // static resources and templates
	Prompts       int      `json:"prompts"`
	Sessions      int      `json:"sessions"` // Streamable HTTP
	StdioSessions int      `json:"stdio_sessions"`
}
