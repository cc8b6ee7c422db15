package abi

import "encoding/json"

// Skill is a skill a source serves (the MCP skills extension,
// io.modelcontextprotocol/skills): the URI of its SKILL.md, its front
// matter as written, and a manifest of its files. Each file is a
// resource of the same source (Descriptor.Resources), readable with
// resources/read.
type Skill struct {
	URI         string          // the SKILL.md's URI, the source's own
	FrontMatter json.RawMessage // a JSON object with name and description
	// Files are every file of the skill, SKILL.md included; nil when
	// Dynamic.
	Files []SkillFile
	// Dynamic: the source generates the skill's content and publishes
	// no digests ("resources": "dynamic").
	Dynamic bool
}

// SkillFile is one file of a skill's manifest.
type SkillFile struct {
	URI    string `json:"uri"`    // the source's own
	Digest string `json:"digest"` // "sha256:" and 64 lowercase hex digits
	Size   int64  `json:"size"`
}
