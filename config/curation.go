package config

// Curation is what of a source's tools the gateway publishes, and under
// which name and description: the same keys on plugins, relay sites and
// upstream servers (tools.include/exclude, overrides).
//
//	tools: {include: ["*"], exclude: ["delete_*"]}
//	overrides:
//	  search: {name: find_ticket, description: "Find a ticket by text"}
//
// Patterns and override keys are the source's own tool names (before its
// prefix); an overridden name is prefixed like any other.
type Curation struct {
	Tools     ToolFilter          `koanf:"tools"`
	Overrides map[string]Override `koanf:"overrides"`
	// Skills selects the source's skills (the skills extension) by
	// name, as Tools selects its tools; a skill left out is neither
	// listed nor are its files readable.
	Skills ToolFilter `koanf:"skills"`
	// Labels are the source's flow labels (flows:, docs/flows.md): what
	// its tools, resources and prompts do. Set, they replace the labels
	// derived from the source's grants; an override's labels replace
	// them for one tool, prompt or resource.
	Labels []string `koanf:"labels"`
	// DefaultLabels are the labels the loader derived from the source's
	// grants (a plugin's allowed_paths, kv_quota and allowed_hosts; a
	// relay site), for when Labels is not set.
	DefaultLabels []string `koanf:"-"`
	// FromAnnotations: a tool without labels of its own or its source's
	// gets them from its MCP annotations (flows.from_annotations, for
	// upstream servers).
	FromAnnotations bool `koanf:"-"`
}

// ToolFilter selects tools by name with shell patterns (path.Match). An
// empty Include means every tool; Exclude wins over Include.
type ToolFilter struct {
	Include []string `koanf:"include"`
	Exclude []string `koanf:"exclude"`
}

// Override replaces what a source says of one tool. Empty fields keep the
// source's own.
type Override struct {
	Name        string           `koanf:"name"`
	Title       string           `koanf:"title"` // MCP's title, what clients show
	Description string           `koanf:"description"`
	Annotations *ToolAnnotations `koanf:"annotations"`
	// Labels replace the source's flow labels for this tool, prompt or
	// resource (the override's key is then a tool or prompt name, or a
	// resource URI or URI template, the source's own).
	Labels []string `koanf:"labels"`
}

// ToolAnnotations are MCP's tool annotations; a nil field keeps the
// source's.
type ToolAnnotations struct {
	Title           string `koanf:"title"`
	ReadOnlyHint    *bool  `koanf:"read_only_hint"`
	DestructiveHint *bool  `koanf:"destructive_hint"`
	IdempotentHint  *bool  `koanf:"idempotent_hint"`
	OpenWorldHint   *bool  `koanf:"open_world_hint"`
}
