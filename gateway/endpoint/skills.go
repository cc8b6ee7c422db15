package endpoint

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/policy"
)

// SkillsExtension is the skills extension's identifier (SEP-2640), which
// an endpoint that serves resources declares in its capabilities.
const SkillsExtension = "io.modelcontextprotocol/skills"

// skillsOptions are the server options of the skills extension: its
// declaration and its two methods. resources/directory/read is not
// served (directoryRead is not declared).
func (e *Endpoint) skillsOptions() []server.ServerOption {
	return []server.ServerOption{
		server.WithExtensions(map[string]any{SkillsExtension: map[string]any{}}),
		server.WithMethodHandler("skills/list", e.listSkills),
		server.WithMethodHandler("skills/get", e.getSkill),
	}
}

// skillsList is skills/list's result.
type skillsList struct {
	ResultType string              `json:"resultType"`
	Skills     []source.SkillEntry `json:"skills"`
	TTLMs      int64               `json:"ttlMs"`
	CacheScope string              `json:"cacheScope"`
	NextCursor mcp.Cursor          `json:"nextCursor,omitempty"`
}

// skillGot is skills/get's result.
type skillGot struct {
	ResultType string            `json:"resultType"`
	Skill      source.SkillEntry `json:"skill"`
	TTLMs      int64             `json:"ttlMs"`
	CacheScope string            `json:"cacheScope"`
}

// visibleSkills is what of the endpoint's skills the caller of ctx may
// see: the skills of the session's index whose SKILL.md policy lets it
// read (policy's resource rules, by the SKILL.md's exposed URI).
func (e *Endpoint) visibleSkills(ctx context.Context) (x *source.Index, visible func(*source.Skill) bool, scope string, err error) {
	p := e.cur.Load()
	if p == nil {
		return nil, nil, "", &server.MethodError{Code: mcp.INTERNAL_ERROR, Message: "the endpoint is not serving"}
	}
	x = p.SessionIndex(ctx)
	pol := p.Policy()
	if pol == nil {
		return x, func(*source.Skill) bool { return true }, "public", nil
	}
	who := envelope.CallerOf(ctx, p).Principal
	return x, func(s *source.Skill) bool { return pol.Visible(who, policy.Resource, s.URI) }, "private", nil
}

// listSkills answers skills/list: every skill the caller may see, in one
// page, by URI. The entries are a point in time: ttlMs is 0.
func (e *Endpoint) listSkills(ctx context.Context, _ any, _ json.RawMessage) (any, error) {
	x, visible, scope, err := e.visibleSkills(ctx)
	if err != nil {
		return nil, err
	}
	out := skillsList{ResultType: "complete", Skills: []source.SkillEntry{}, CacheScope: scope}
	for _, u := range x.SkillURIs() {
		if s := x.Skills[u]; visible(s) {
			out.Skills = append(out.Skills, s.Entry)
		}
	}
	return out, nil
}

// getSkill answers skills/get: the entry of the skill whose SKILL.md is
// params.uri, or -32602 when the caller sees no such skill.
func (e *Endpoint) getSkill(ctx context.Context, _ any, params json.RawMessage) (any, error) {
	var req struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(params, &req); err != nil || req.URI == "" {
		return nil, &server.MethodError{Code: mcp.INVALID_PARAMS, Message: "skills/get: params.uri, the URI of a skill's SKILL.md, is required"}
	}
	x, visible, scope, err := e.visibleSkills(ctx)
	if err != nil {
		return nil, err
	}
	s, ok := x.Skills[req.URI]
	if !ok || !visible(s) {
		return nil, &server.MethodError{Code: mcp.INVALID_PARAMS, Message: fmt.Sprintf("No skill is served at %s", req.URI)}
	}
	return skillGot{ResultType: "complete", Skill: s.Entry, CacheScope: scope}, nil
}
