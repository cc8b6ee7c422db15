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
