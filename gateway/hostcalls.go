package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/host"
	"github.com/wasmgate/wasmgate/policy"
)

// The MCP host functions (loader/host) as the gateway serves them: every
// plugin call made for a client carries a callState, through which the
// plugin notifies and asks the client whose request it serves. A plugin's
// *_list_changed makes the gateway read its lists again when the call
// ends and publish them, as a reload does.

// callState is one plugin call as its host functions see it.
type callState struct {
	g       *Gateway
	rt      *pluginRT
	token   any     // the client's progress token; nil when it sent none
	changed [3]bool // lists the plugin said changed (host.List)
}

var _ host.Call = (*callState)(nil)

// newCall is the state of a call made with ctx, which carries the client
// request (abi.WithRequest) and its mcp-go session.
func (p *pluginRT) newCall(ctx context.Context) *callState {
	c := &callState{g: p.g, rt: p}
	var meta struct {
		ProgressToken any `json:"progressToken"`
	}
	if json.Unmarshal(abi.RequestOf(ctx).Meta, &meta) == nil {
		c.token = meta.ProgressToken
	}
	return c
}

func (c *callState) ListChanged(l host.List) {
	if int(l) < len(c.changed) {
		c.changed[l] = true
	}
}

func (c *callState) ResourceUpdated(uri string) {
	c.g.subs.updated(c.g.mcp, exposedURI(c.rt.spec.Prefix, uri))
}

func (c *callState) Progress(ctx context.Context, p host.ProgressParams) error {
	if c.token == nil {
		return nil
	}
	params := map[string]any{"progressToken": c.token, "progress": p.Progress}
	if p.Total != nil {
		params["total"] = *p.Total
	}
	if p.Message != "" {
		params["message"] = p.Message
	}
	return c.g.mcp.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params)
}

func (c *callState) Log(ctx context.Context, m host.LogParams) error {
	level := mcp.LoggingLevel(m.Level)
	switch level {
	case mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
		mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency:
	default:
		return fmt.Errorf("unknown logging level %q", m.Level)
	}
	logger := m.Logger
	if logger == "" {
		logger = c.rt.name
	}
	var data any = m.Data
	if len(m.Data) == 0 {
		data = nil
	}
	return c.g.mcp.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(level, logger, data))
}

// capable checks that the calling client can answer a request needing the
// client capability named what.
func capable(ctx context.Context, what string) error {
	session := server.ClientSessionFromContext(ctx)
	if session == nil {
		return errors.New("no client session")
	}
	if !session.Initialized() {
		return errors.New("the client has not finished initializing")
	}
	ci, ok := session.(server.SessionWithClientInfo)
	if !ok {
		return fmt.Errorf("the client's capabilities are unknown, so it cannot be asked for %s", what)
	}
	caps := ci.GetClientCapabilities()
	var has bool
	switch what {
	case "sampling":
		has = caps.Sampling != nil
	case "elicitation":
		has = caps.Elicitation != nil
	case "roots":
		has = caps.Roots != nil
	}
	if !has {
		return fmt.Errorf("the client does not support %s (it did not declare the capability)", what)
	}
	return nil
}

// answer turns a client's answer (or failure) into what the plugin reads.
func answer(ctx context.Context, method string, v any, err error) (json.RawMessage, error) {
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: the call ended before the client answered (%v)", method, context.Cause(ctx))
		}
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return json.Marshal(v)
}

func (c *callState) CreateMessage(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	if err := capable(ctx, "sampling"); err != nil {
		return nil, err
	}
	req := mcp.CreateMessageRequest{Request: mcp.Request{Method: string(mcp.MethodSamplingCreateMessage)}}
	if err := json.Unmarshal(params, &req.CreateMessageParams); err != nil {
		return nil, fmt.Errorf("invalid sampling request: %v", err)
	}
	if len(req.Messages) == 0 {
		return nil, errors.New("invalid sampling request: no messages")
	}
	res, err := c.g.mcp.RequestSampling(ctx, req)
	return answer(ctx, "sampling/createMessage", res, err)
}

func (c *callState) Elicit(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	if err := capable(ctx, "elicitation"); err != nil {
		return nil, err
	}
	var in struct {
		mcp.ElicitationParams
		Timeout float64 `json:"timeout"` // seconds, as hyper-mcp reads it
	}
	// hyper-mcp's PDK writes the date-time format as date_time.
	params = json.RawMessage(strings.ReplaceAll(string(params), `"format":"date_time"`, `"format":"date-time"`))
	if err := json.Unmarshal(params, &in); err != nil {
		return nil, fmt.Errorf("invalid elicitation request: %v", err)
	}
	if in.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(in.Timeout*float64(time.Second)))
		defer cancel()
	}
	req := mcp.ElicitationRequest{Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)}, Params: in.ElicitationParams}
	res, err := c.g.mcp.RequestElicitation(ctx, req)
	return answer(ctx, "elicitation/create", res, err)
}

func (c *callState) ListRoots(ctx context.Context) (json.RawMessage, error) {
	if err := capable(ctx, "roots"); err != nil {
		return nil, err
	}
	res, err := c.g.mcp.RequestRoots(ctx, mcp.ListRootsRequest{Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
	return answer(ctx, "roots/list", res, err)
}

// relist reads the plugin's lists again with inst (the instance whose
// call said they changed, so the one whose state changed) and publishes
// them to every session, with list_changed for what changed.
func (p *pluginRT) relist(inst *loader.Instance) {
	ctx, cancel := context.WithTimeout(context.Background(), p.Timeout())
	defer cancel()
	info, err := p.plugin.ABI.Describe(ctx, inst)
	if err != nil {
		p.g.log.Warn("plugin said its lists changed, but listing them failed; serving the previous lists", "plugin", p.name, "error", err)
		return
	}
	p.sh.info.Store(&info)
	p.g.relisted(p.sh)
}

// relisted serves a new snapshot indexing sh's lists afresh, if sh still
// serves. It is serialized with reloads, so it never undoes one.
func (g *Gateway) relisted(sh *shared) {
	g.reloadMu.Lock()
	defer g.reloadMu.Unlock()
	g.applyMu.Lock()
	defer g.applyMu.Unlock()
	cur := g.cur.Load()
	if cur == nil || !cur.serves(sh) {
		return
	}
	g.swap(g.derive(cur))
}

func (s *Snapshot) serves(sh *shared) bool {
	for _, p := range s.plugins {
		if p.sh == sh {
			return true
		}
	}
	return false
}

// derive is a snapshot serving what s serves (the same config, plugins,
// identity and policy), not indexed yet. It holds its own references.
func (s *Snapshot) derive() *Snapshot {
	d := &Snapshot{
		Config:     s.Config,
		plugins:    s.plugins,
		tools:      map[string]*toolEntry{},
		resources:  map[string]*resourceEntry{},
		templates:  map[string]*resourceEntry{},
		prompts:    map[string]*promptEntry{},
		owner:      map[string]string{},
		authn:      s.authn,
		authnRefs:  s.authnRefs,
		pol:        s.pol,
		stdio:      s.stdio,
		token:      s.token,
		adminToken: s.adminToken,
		origins:    s.origins,
		drained:    make(chan struct{}),
	}
	for _, p := range d.plugins {
		p.sh.refs.Add(1)
	}
	if d.authnRefs != nil {
		d.authnRefs.Add(1)
	}
	if s.relay != nil {
		d.relay = &relayState{plan: s.relay.plan}
	}
	return d
}

// subscriptions are the resources/subscribe of each session: exposed URI
// by session id.
type subscriptions struct {
	mu sync.Mutex
	m  map[string]map[string]bool
}

func (s *subscriptions) hooks(h *server.Hooks) {
	h.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		session := server.ClientSessionFromContext(ctx)
		if session == nil {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.m[session.SessionID()] == nil {
			s.m[session.SessionID()] = map[string]bool{}
		}
		s.m[session.SessionID()][req.Params.URI] = true
	})
	h.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		session := server.ClientSessionFromContext(ctx)
		if session == nil {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.m[session.SessionID()], req.Params.URI)
	})
	h.AddOnUnregisterSession(func(_ context.Context, session server.ClientSession) {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.m, session.SessionID())
	})
}

// updated sends notifications/resources/updated for uri to the sessions
// subscribed to it.
func (s *subscriptions) updated(srv *server.MCPServer, uri string) {
	var to []string
	s.mu.Lock()
	for id, uris := range s.m {
		if uris[uri] {
			to = append(to, id)
		}
	}
	s.mu.Unlock()
	for _, id := range to {
		_ = srv.SendNotificationToSpecificClient(id, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri})
	}
}

// completer answers completion/complete: a prompt's or a resource
// template's argument is completed by the plugin that provides it, if its
// ABI can (abi.Completer); anything else completes to nothing.
type completer struct{ g *Gateway }

func (c completer) CompletePromptArgument(ctx context.Context, name string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	s, done, err := c.g.begin()
	if err != nil {
		return nil, err
	}
	defer done()
	p, ok := s.prompts[name]
	if !ok || (s.pol != nil && !s.pol.Visible(s.callerOf(ctx).principal, policy.Prompt, name)) {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return complete(ctx, p.src, abi.CompleteRequest{Prompt: p.export, Argument: arg.Name, Value: arg.Value, Arguments: cc.Arguments})
}

func (c completer) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	s, done, err := c.g.begin()
	if err != nil {
		return nil, err
	}
	defer done()
	e, ok := s.templates[uri]
	visible := ok && (s.pol == nil || s.pol.VisibleTemplate(s.callerOf(ctx).principal, uri))
	if !ok {
		e, ok = s.resources[uri]
		visible = ok && (s.pol == nil || s.pol.Visible(s.callerOf(ctx).principal, policy.Resource, uri))
	}
	if !visible {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return complete(ctx, e.src, abi.CompleteRequest{URI: e.res.URI, Argument: arg.Name, Value: arg.Value, Arguments: cc.Arguments})
}

// maxCompletions is how many values completion/complete may return.
const maxCompletions = 100

func complete(ctx context.Context, src Source, req abi.CompleteRequest) (*mcp.Completion, error) {
	p, ok := src.(*pluginRT)
	if !ok {
		return &mcp.Completion{Values: []string{}}, nil
	}
	if _, ok := p.plugin.ABI.(abi.Completer); !ok {
		return &mcp.Completion{Values: []string{}}, nil
	}
	ctx = withRequest(ctx, nil)
	out, f := invoke(ctx, src, func(ctx context.Context) (abi.Completion, error) {
		return p.Complete(ctx, req)
	})
	if f != nil {
		kind, name := "completion for prompt", req.Prompt
		if req.Prompt == "" {
			kind, name = "completion for resource", req.URI
		}
		return nil, errors.New(failureMessage(kind, name, f))
	}
	res := &mcp.Completion{Values: out.Values, HasMore: out.HasMore}
	if out.Total != nil {
		res.Total = *out.Total
	}
	if len(res.Values) > maxCompletions {
		res.Values, res.HasMore = res.Values[:maxCompletions], true
	}
	return res, nil
}

// sessionEnded closes the instances a session had (instances: session).
func (g *Gateway) sessionEnded(ctx context.Context, session server.ClientSession) {
	s := g.cur.Load()
	if s == nil {
		return
	}
	for _, p := range s.plugins {
		p.pool.endSession(ctx, session.SessionID())
	}
}
