package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// Failure kinds of a CallError, as the gateway maps them to outcomes.
const (
	KindError     = "error"     // the page reported an error; Msg is shown as is
	KindTimeout   = "timeout"   // call_timeout passed
	KindCancelled = "cancelled" // the MCP client cancelled
	KindCrash     = "crash"     // no page, the page left, or it broke the protocol
)

// CallError is a failed call to a site. Except for KindError, Msg
// continues a sentence that starts with what was called
// (`tool "demo_calculate" ` + Msg), as gateway.Failure's does.
type CallError struct {
	Kind string
	Msg  string
}

func (e *CallError) Error() string { return e.Msg }

// FailureKind is "error", "timeout", "cancelled" or "crash".
func (e *CallError) FailureKind() string { return e.Kind }

// siteState is the live state of one configured site: its applied
// settings and token, the authenticated page (bridge) if any, and what
// that page registered.
type siteState struct {
	r    *Relay
	name string

	mu     sync.Mutex
	conf   SiteConfig
	token  []byte
	bridge *bridge
	reg    registration
	// since is when bridge connected or, without one, when the site
	// was applied or its last page left; refusal the last connection it
	// refused (status.go).
	since   time.Time
	refusal *Refusal

	nonces nonceCache

	pubMu sync.Mutex // serializes publish (mesh.go)
	// remote is the site's page on another replica, as the mesh last
	// read it (nil: none, or no mesh); only without a page here.
	remote *remoteReg
}

// registration is what a page registered, under its own names.
type registration struct {
	tools     []ToolDef
	resources []ResourceDef
	templates []TemplateDef
	// refused is what of the page's frame the relay refused itself (a
	// resource outside the site's namespace), for the status page.
	refused []string
	prompts []PromptDef
}

func (g registration) empty() bool {
	return len(g.tools)+len(g.resources)+len(g.templates)+len(g.prompts) == 0
}

func newSiteState(r *Relay, name string) *siteState {
	return &siteState{r: r, name: name, since: time.Now()}
}

// settings returns the applied settings and token.
func (st *siteState) settings() (SiteConfig, []byte) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.conf, st.token
}

// current returns the authenticated page, or nil.
func (st *siteState) current() *bridge {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.bridge
}

// served is what the site's page registered: the one here, else the
// one on another replica.
func (st *siteState) served() registration {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.bridge == nil && st.remote != nil {
		return st.remote.reg
	}
	return st.reg
}

// apply installs new settings. The page stays connected unless its
// protocol or origin is no longer what the site allows.
func (st *siteState) apply(conf SiteConfig, token []byte) {
	st.mu.Lock()
	prev := st.conf
	st.conf, st.token = conf, token
	b := st.bridge
	st.mu.Unlock()
	if b == nil {
		return
	}
	switch {
	case prev.Protocol != "" && prev.Protocol != conf.Protocol:
		b.shutdown(closeSettingsChanged, "the site's protocol changed")
	case !originAllowed(conf.AllowedOrigins, b.origin):
		b.shutdown(closeSettingsChanged, "the page's origin is no longer allowed")
	default:
		b.conn.SetReadLimit(int64(conf.MaxFrame))
	}
}

// shutdown disconnects the site's page and any handshake in progress.
func (st *siteState) shutdown(code websocket.StatusCode, reason string) {
	st.r.mu.Lock()
	var bs []*bridge
	for b := range st.r.live {
		if b.st == st {
			bs = append(bs, b)
		}
	}
	st.r.mu.Unlock()
	for _, b := range bs {
		b.shutdown(code, reason)
	}
}

// claim makes b the site's page; false when another page has it.
func (st *siteState) claim(b *bridge) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.bridge != nil {
		return false
	}
	st.bridge = b
	st.reg = registration{}
	st.remote = nil
	st.since = time.Now()
	return true
}

// release forgets b and what it registered; it reports whether the site
// had a registered set that is now gone, and whether b was its page.
func (st *siteState) release(b *bridge) (hadSet, was bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.bridge != b {
		return false, false
	}
	st.bridge = nil
	st.since = time.Now()
	hadSet = !st.reg.empty()
	st.reg = registration{}
	return hadSet, true
}

// register replaces what b registered; false when b is not the site's
// page (any more).
func (st *siteState) register(b *bridge, reg registration) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.bridge != b {
		return false
	}
	st.reg = reg
	return true
}

// Site is one site of a Plan as a tool source: the settings it was
// planned with over the site's live state. It has the methods of
// gateway.Source. Its Prefix is "": the site's prefix is already part of
// the names its Descriptor returns (joined by config.PrefixedName, as for
// every source: "demo_" or "demo" and "calculate" are "demo_calculate"),
// and calls take those names. Resource URIs are the page's own.
type Site struct {
	st   *siteState
	conf SiteConfig
}

func (s *Site) Name() string           { return s.conf.Name }
func (s *Site) Key() string            { return s.conf.Key }
func (s *Site) Prefix() string         { return "" }
func (s *Site) Timeout() time.Duration { return time.Duration(s.conf.CallTimeout) }

// Connected reports whether a page serves the site now, here or (with
// state.backend redis) on another replica.
func (s *Site) Connected() bool {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	return s.st.bridge != nil || s.st.remote != nil
}

// Descriptor is what the site provides now: the wu_* catalog for a
// wu-legacy site, else what its page registered (nothing without a page).
func (s *Site) Descriptor() abi.Descriptor {
	if s.conf.Protocol == ProtocolWULegacy {
		return legacyDescriptor(s.conf.Prefix)
	}
	reg := s.st.served()
	var d abi.Descriptor
	for _, t := range reg.tools {
		d.Tools = append(d.Tools, wire.Tool{Name: config.PrefixedName(s.conf.Prefix, t.Name), Description: t.Description, InputSchema: t.InputSchema})
	}
	for _, r := range reg.resources {
		d.Resources = append(d.Resources, abi.Resource{Resource: wire.Resource{URI: r.URI, Name: r.Name, Description: r.Description, MimeType: r.MimeType}})
	}
	for _, r := range reg.templates {
		tmpl, err := abi.ParseURITemplate(r.URITemplate)
		if err != nil {
			continue // checked at registration
		}
		d.Resources = append(d.Resources, abi.Resource{Resource: wire.Resource{URI: r.URITemplate, Name: r.Name, Description: r.Description, MimeType: r.MimeType}, Template: tmpl})
	}
	for _, p := range reg.prompts {
		wp := wire.Prompt{Name: config.PrefixedName(s.conf.Prefix, p.Name), Description: p.Description}
		for _, a := range p.Arguments {
			wp.Arguments = append(wp.Arguments, wire.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		d.Prompts = append(d.Prompts, wp)
	}
	return d
}

// own turns an exposed name back into the page's.
func (s *Site) own(name string) string {
	return strings.TrimPrefix(name, config.NamePrefix(s.conf.Prefix))
}

// CallTool forwards a tool call to the page. A handler that threw is a
// result with isError and its message.
func (s *Site) CallTool(ctx context.Context, tool string, args json.RawMessage) (*mcp.CallToolResult, error) {
	if m, owner, ok := s.remote(ctx); ok {
		raw, err := s.forward(ctx, m, owner, remoteCall{Method: methodTool, Name: tool, Arguments: args})
		if err != nil {
			return nil, err
		}
		res, perr := mcp.ParseCallToolResult(&raw)
		if perr != nil {
			return nil, s.invalid(perr)
		}
		return res, nil
	}
	if s.conf.Protocol == ProtocolWULegacy {
		return s.callLegacy(ctx, s.own(tool), args)
	}
	b, err := s.page()
	if err != nil {
		return nil, err
	}
	rep, err := b.call(ctx, s, func(id uint64) any {
		return &callFrame{Type: typeCall, ID: id, Method: methodTool, Name: s.own(tool), Arguments: args}
	})
	if err != nil {
		return nil, err
	}
	if rep.err != nil {
		return mcp.NewToolResultError(rep.err.Message), nil
	}
	res, perr := mcp.ParseCallToolResult(&rep.result)
	if perr != nil {
		return nil, s.invalid(perr)
	}
	return res, nil
}

// ReadResource forwards a resources/read to the page.
func (s *Site) ReadResource(ctx context.Context, r abi.Resource, uri string, vars map[string]string) ([]mcp.ResourceContents, error) {
	if m, owner, ok := s.remote(ctx); ok {
		c := remoteCall{Method: methodResource, URI: uri}
		if r.Template != nil {
			c.Template, c.Variables = r.URI, vars
		}
		raw, err := s.forward(ctx, m, owner, c)
		if err != nil {
			return nil, err
		}
		res, perr := mcp.ParseReadResourceResult(&raw)
		if perr != nil {
			return nil, s.invalid(perr)
		}
		return res.Contents, nil
	}
	b, err := s.page()
	if err != nil {
		return nil, err
	}
	rep, err := b.call(ctx, s, func(id uint64) any {
		f := &callFrame{Type: typeCall, ID: id, Method: methodResource, URI: uri}
		if r.Template != nil {
			f.Template, f.Variables = r.URI, vars
		}
		return f
	})
	if err != nil {
		return nil, err
	}
	if rep.err != nil {
		return nil, &CallError{Kind: KindError, Msg: rep.err.Message}
	}
	res, perr := mcp.ParseReadResourceResult(&rep.result)
	if perr != nil {
		return nil, s.invalid(perr)
	}
	return res.Contents, nil
}

// GetPrompt forwards a prompts/get to the page.
func (s *Site) GetPrompt(ctx context.Context, prompt string, args map[string]string) ([]mcp.PromptMessage, error) {
	if m, owner, ok := s.remote(ctx); ok {
		raw, err := s.forward(ctx, m, owner, remoteCall{Method: methodPrompt, Name: prompt, Prompt: args})
		if err != nil {
			return nil, err
		}
		res, perr := mcp.ParseGetPromptResult(&raw)
		if perr != nil {
			return nil, s.invalid(perr)
		}
		return res.Messages, nil
	}
	b, err := s.page()
	if err != nil {
		return nil, err
	}
	rep, err := b.call(ctx, s, func(id uint64) any {
		return &callFrame{Type: typeCall, ID: id, Method: methodPrompt, Name: s.own(prompt), Arguments: args}
	})
	if err != nil {
		return nil, err
	}
	if rep.err != nil {
		return nil, &CallError{Kind: KindError, Msg: rep.err.Message}
	}
	res, perr := mcp.ParseGetPromptResult(&rep.result)
	if perr != nil {
		return nil, s.invalid(perr)
	}
	for _, m := range res.Messages {
		if m.Role != mcp.RoleUser && m.Role != mcp.RoleAssistant {
			return nil, s.invalid(fmt.Errorf("role %q (want user or assistant)", m.Role))
		}
	}
	return res.Messages, nil
}

func (s *Site) page() (*bridge, error) {
	b := s.st.current()
	if b == nil {
		return nil, &CallError{Kind: KindCrash, Msg: fmt.Sprintf("failed: no page is connected to relay site %q", s.conf.Name)}
	}
	return b, nil
}

func (s *Site) invalid(err error) error {
	return &CallError{Kind: KindCrash, Msg: fmt.Sprintf("failed: the page of relay site %q answered with an invalid result: %v", s.conf.Name, err)}
}

// callFailure is the CallError of a call that did not get an answer.
func (s *Site) callFailure(ctx context.Context, why string) error {
	switch {
	case why != "":
		return &CallError{Kind: KindCrash, Msg: fmt.Sprintf("failed: the page of relay site %q disconnected before answering (%s)", s.conf.Name, why)}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &CallError{Kind: KindTimeout, Msg: fmt.Sprintf("timed out after %s (relay site %q, %s.call_timeout)", s.conf.CallTimeout, s.conf.Name, s.conf.Key)}
	}
	return &CallError{Kind: KindCancelled, Msg: "was cancelled"}
}

// Problems is what the relay refused of the page's last registration (a
// resource outside the site's namespace), for the status page
// (source.ProblemReporter).
func (s *Site) Problems() []string {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	return slices.Clone(s.st.reg.refused)
}

// RedactSecrets is the site's redact_secrets (source.SecretRedactor).
func (s *Site) RedactSecrets() bool { return s.conf.RedactSecrets }

// Curation is the site's tools: and overrides: over the names its
// Descriptor returns, which carry the site's prefix already: each
// pattern, override key and new name is the configured one under the
// prefix (config.PrefixedName), so the index matches and renames the
// published names; nil when the site curates nothing.
func (s *Site) Curation() *config.Curation {
	c := s.conf.Curation
	if c.Empty() && c.Labels == nil && c.DefaultLabels == nil {
		return nil
	}
	pre := func(n string) string { return config.PrefixedName(s.conf.Prefix, n) }
	out := &config.Curation{Overrides: make(map[string]config.Override, len(c.Overrides)),
		Labels: c.Labels, DefaultLabels: c.DefaultLabels}
	for _, p := range c.Tools.Include {
		out.Tools.Include = append(out.Tools.Include, pre(p))
	}
	for _, p := range c.Tools.Exclude {
		out.Tools.Exclude = append(out.Tools.Exclude, pre(p))
	}
	for own, o := range c.Overrides {
		if o.Name != "" {
			o.Name = pre(o.Name)
		}
		out.Overrides[pre(own)] = o
	}
	return out
}
