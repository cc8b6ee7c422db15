package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// Relay routing across replicas (state.backend redis, docs/scale-out.md).
// A Mesh carries what the relay of each replica needs of the others: who
// holds each site's page and what it registered, and calls forwarded to
// the replica that holds the page. The relay never names Redis; package
// state implements a Mesh over it.

// Mesh is the relay's view of the other replicas.
type Mesh interface {
	// Claim takes site for this replica's page. holder is the replica
	// that keeps it (another live one), "" when this replica has it.
	Claim(ctx context.Context, site string) (holder string, err error)
	// Publish records what this replica's page of site registered
	// (refreshing its ownership); lost reports that another replica
	// holds the site now. A nil reg releases the site, if this
	// replica holds it.
	Publish(ctx context.Context, site string, reg []byte) (lost string, err error)
	// Read returns who holds each of sites and what they registered
	// (sites nobody live holds are absent).
	Read(ctx context.Context, sites []string) (map[string]Held, error)
	// Forward sends a call to the replica owner and waits for its answer
	// or the end of ctx (then the owner is told to cancel). ErrGone: no
	// such replica listens.
	Forward(ctx context.Context, owner string, call []byte) ([]byte, error)
	// Serve answers the calls other replicas forward here with serve,
	// and calls changed when some replica published a change, until ctx
	// ends.
	Serve(ctx context.Context, serve func(ctx context.Context, call []byte) []byte, changed func())
	// Replica is this replica's id.
	Replica() string
	// Closed is closed when the mesh can no longer be used (its
	// connection was released): the relay stops using it.
	Closed() <-chan struct{}
}

// Held is a site's page on some replica: the replica and what the page
// registered (JSON, empty before its first register frame).
type Held struct {
	Owner string
	Reg   []byte
}

// ErrGone is Forward's error when the replica holding the page no longer
// listens (it died or left).
var ErrGone = errors.New("the replica is gone")

// meshEvery is how often the relay refreshes its pages' ownership and
// re-reads the others'; a dead replica's pages vanish at the next read
// once its subscription is gone (a killed process), at worst once the
// ownership TTL of package state (5 s) has passed.
const meshEvery = time.Second

// meshState is the mesh the relay uses now.
type meshState struct {
	m      Mesh
	cancel context.CancelFunc // ends its goroutines
	poke   chan struct{}      // a change was published: read again now
}

// remoteReg is what a site's page on another replica registered.
type remoteReg struct {
	owner string
	raw   string
	reg   registration
}

// wireReg is a registration as replicas exchange it.
type wireReg struct {
	Tools     []ToolDef     `json:"tools,omitempty"`
	Resources []ResourceDef `json:"resources,omitempty"`
	Templates []TemplateDef `json:"templates,omitempty"`
	Prompts   []PromptDef   `json:"prompts,omitempty"`
}

// SetMesh makes the relay share its pages through m (nil: this replica
// alone, as with state.backend memory). Pages connected here are
// published again; the other replicas' pages are read. It never waits
// and never calls Options.OnChange (a component's Apply calls it): the
// previous mesh's goroutines end by themselves (Close waits for them),
// and the forgotten pages of other replicas show in Generation.
func (r *Relay) SetMesh(m Mesh) {
	r.meshMu.Lock()
	defer r.meshMu.Unlock()
	old := r.mesh.Load()
	if old == nil && m == nil || old != nil && old.m == m {
		return
	}
	if old != nil {
		old.cancel()
	}
	r.mesh.Store(nil)
	for _, st := range r.allSites() {
		st.mu.Lock()
		st.remote = nil
		st.mu.Unlock()
	}
	r.gen.Add(1)
	r.mu.Lock()
	closing := r.closing
	r.mu.Unlock()
	if m == nil || closing {
		return
	}
	ctx, cancel := context.WithCancel(r.ctx)
	ms := &meshState{m: m, cancel: cancel, poke: make(chan struct{}, 1)}
	r.mesh.Store(ms)
	r.meshWG.Add(2)
	go func() {
		defer r.meshWG.Done()
		m.Serve(ctx, r.serveRemote, func() {
			select {
			case ms.poke <- struct{}{}:
			default:
			}
		})
	}()
	go func() {
		defer r.meshWG.Done()
		r.meshLoop(ctx, ms)
	}()
}

// stopMesh stops the mesh's goroutines, and waits for those of every
// previous one (Close).
func (r *Relay) stopMesh() {
	r.meshMu.Lock()
	if old := r.mesh.Swap(nil); old != nil {
		old.cancel()
	}
	r.meshMu.Unlock()
	r.meshWG.Wait()
}

func (r *Relay) allSites() []*siteState {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*siteState, 0, len(r.sites))
	for _, n := range r.order {
		if st := r.sites[n]; st != nil {
			out = append(out, st)
		}
	}
	return out
}

// meshLoop refreshes the ownership of this replica's pages and reads the
// others' every meshEvery, and at once when a change is published.
func (r *Relay) meshLoop(ctx context.Context, ms *meshState) {
	t := time.NewTicker(meshEvery)
	defer t.Stop()
	for {
		r.syncMesh(ctx, ms)
		select {
		case <-ctx.Done():
			return
		case <-ms.m.Closed():
			return
		case <-t.C:
		case <-ms.poke:
		}
	}
}

// syncMesh is one round: publish what the local pages registered (their
// heartbeat), then read who holds the other sites. While Redis does not
// answer, the other replicas' pages stay listed as last read (their
// calls fail at once naming state.redis).
func (r *Relay) syncMesh(ctx context.Context, ms *meshState) {
	m := ms.m
	ctx, cancel := context.WithTimeout(ctx, 2*meshEvery)
	defer cancel()
	var others []string
	for _, st := range r.allSites() {
		if st.current() == nil {
			others = append(others, st.name)
			continue
		}
		b, lost, err := st.publish(ctx, m)
		if err == nil && lost != "" && b != nil && st.current() == b {
			b.log.Warn("relay: a page on another replica took the site; disconnecting this one", "replica", lost)
			b.shutdown(closeBusy, "site "+st.name+" is served by a page on replica "+lost)
		}
	}
	if len(others) == 0 {
		return
	}
	held, err := m.Read(ctx, others)
	if err != nil {
		return
	}
	me := m.Replica()
	for _, name := range others {
		st := r.site(name)
		if st == nil {
			continue
		}
		h, ok := held[name]
		if ok && h.Owner == me { // ours, left by a page gone here: release it (or publish a new one's)
			if _, _, err := st.publish(ctx, m); err != nil {
				r.log.Debug("relay: could not release a site across replicas", "site", name, "error", err)
			}
			ok = false
		}
		st.mu.Lock()
		cur := st.remote
		var next *remoteReg
		switch {
		case st.bridge != nil || r.mesh.Load() != ms: // a page connected meanwhile, or another mesh serves
			st.mu.Unlock()
			continue
		case ok && cur != nil && cur.owner == h.Owner && cur.raw == string(h.Reg):
			st.mu.Unlock()
			continue
		case ok:
			next = &remoteReg{owner: h.Owner, raw: string(h.Reg), reg: decodeReg(h.Reg)}
		case cur == nil:
			st.mu.Unlock()
			continue
		}
		st.remote = next
		st.mu.Unlock()
		r.changed(name)
	}
}

func encodeReg(g registration) []byte {
	b, _ := json.Marshal(wireReg{Tools: g.tools, Resources: g.resources, Templates: g.templates, Prompts: g.prompts})
	return b
}

func decodeReg(b []byte) registration {
	var w wireReg
	if len(b) == 0 || json.Unmarshal(b, &w) != nil {
		return registration{}
	}
	return registration{tools: w.Tools, resources: w.Resources, templates: w.Templates, prompts: w.Prompts}
}

// meshClaim takes the site in the mesh for a page authenticated here;
// holder is the other replica that keeps it. Without Redis the page
// serves this replica (local pages keep working).
func (b *bridge) meshClaim() (holder string) {
	ms := b.r.mesh.Load()
	if ms == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(b.r.ctx, 2*meshEvery)
	defer cancel()
	holder, err := ms.m.Claim(ctx, b.st.name)
	if err != nil {
		b.log.Warn("relay: could not claim the site across replicas; the page serves this replica", "error", err)
		return ""
	}
	return holder
}

// meshPublish tells the other replicas what the site's page here
// registered now, or that it left.
func (r *Relay) meshPublish(st *siteState) {
	ms := r.mesh.Load()
	if ms == nil {
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, 2*meshEvery)
	defer cancel()
	if _, _, err := st.publish(ctx, ms.m); err != nil {
		r.log.Warn("relay: could not publish a page's registration to the other replicas", "site", st.name, "error", err)
	}
}

// publish writes what the site's page here registered (its heartbeat),
// or releases the site without one; one at a time per site, so an older
// registration never overwrites a newer one. b is the page, lost the
// replica that took the site from it.
func (st *siteState) publish(ctx context.Context, m Mesh) (b *bridge, lost string, err error) {
	st.pubMu.Lock()
	defer st.pubMu.Unlock()
	st.mu.Lock()
	b, reg := st.bridge, st.reg
	st.mu.Unlock()
	var raw []byte
	if b != nil {
		raw = encodeReg(reg)
	}
	lost, err = m.Publish(ctx, st.name, raw)
	return b, lost, err
}

// remoteCall is a call forwarded to the replica holding the page.
type remoteCall struct {
	Site      string            `json:"site"`
	Method    string            `json:"method"`
	Name      string            `json:"name,omitempty"`
	Arguments json.RawMessage   `json:"arguments,omitempty"`
	URI       string            `json:"uri,omitempty"`
	Template  string            `json:"template,omitempty"`
	Variables map[string]string `json:"variables,omitempty"`
	Prompt    map[string]string `json:"prompt_args,omitempty"`
	// TimeoutMS is what is left of the caller's deadline.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
}

// remoteAnswer is its answer: a result, or a CallError's kind and
// message.
type remoteAnswer struct {
	Result json.RawMessage `json:"result,omitempty"`
	Kind   string          `json:"kind,omitempty"`
	Msg    string          `json:"msg,omitempty"`
}

type servingPeer struct{}

// remote returns the replica holding the site's page when it is not
// here and a mesh shares it; never for a call served for a peer.
func (s *Site) remote(ctx context.Context) (Mesh, string, bool) {
	if ctx.Value(servingPeer{}) != nil {
		return nil, "", false
	}
	s.st.mu.Lock()
	local, rem := s.st.bridge != nil, s.st.remote
	s.st.mu.Unlock()
	if local || rem == nil {
		return nil, "", false
	}
	ms := s.st.r.mesh.Load()
	if ms == nil {
		return nil, "", false
	}
	return ms.m, rem.owner, true
}

// forward sends c to owner and returns the result it answered.
func (s *Site) forward(ctx context.Context, m Mesh, owner string, c remoteCall) (json.RawMessage, error) {
	c.Site = s.conf.Name
	if dl, ok := ctx.Deadline(); ok {
		c.TimeoutMS = max(time.Until(dl).Milliseconds(), 1)
	}
	body, _ := json.Marshal(c)
	out, err := m.Forward(ctx, owner, body)
	switch {
	case ctx.Err() != nil:
		return nil, s.callFailure(ctx, "")
	case errors.Is(err, ErrGone):
		return nil, &CallError{Kind: KindCrash, Msg: fmt.Sprintf("failed: the page of relay site %q is connected to replica %s, which is gone", s.conf.Name, owner)}
	case err != nil:
		return nil, &CallError{Kind: KindCrash, Msg: fmt.Sprintf("failed: relay site %q has its page on replica %s, unreachable: %v", s.conf.Name, owner, err)}
	}
	var a remoteAnswer
	if err := json.Unmarshal(out, &a); err != nil {
		return nil, &CallError{Kind: KindCrash, Msg: fmt.Sprintf("failed: replica %s answered a forwarded call of relay site %q with an invalid answer: %v", owner, s.conf.Name, err)}
	}
	if a.Kind != "" {
		return nil, &CallError{Kind: a.Kind, Msg: a.Msg}
	}
	return a.Result, nil
}

// serveRemote runs a call another replica forwarded to a page of this
// one, as the local Site would, and encodes its answer.
func (r *Relay) serveRemote(ctx context.Context, body []byte) []byte {
	answer := func(res any, err error) []byte {
		var a remoteAnswer
		var ce *CallError
		switch {
		case errors.As(err, &ce):
			a.Kind, a.Msg = ce.Kind, ce.Msg
		case err != nil:
			a.Kind, a.Msg = KindCrash, "failed: "+err.Error()
		default:
			a.Result, _ = json.Marshal(res)
		}
		out, _ := json.Marshal(a)
		return out
	}
	var c remoteCall
	if err := json.Unmarshal(body, &c); err != nil {
		return answer(nil, fmt.Errorf("a forwarded call that is not JSON: %v", err))
	}
	st := r.site(c.Site)
	if st == nil {
		return answer(nil, fmt.Errorf("no relay site %q on this replica (do the replicas run one config?)", c.Site))
	}
	conf, _ := st.settings()
	s := &Site{st: st, conf: conf}
	ctx = context.WithValue(ctx, servingPeer{}, true)
	if c.TimeoutMS > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(c.TimeoutMS)*time.Millisecond)
		defer cancel()
	}
	switch c.Method {
	case methodTool:
		res, err := s.CallTool(ctx, c.Name, c.Arguments)
		return answer(res, err)
	case methodResource:
		var res abi.Resource
		if c.Template != "" {
			tmpl, err := abi.ParseURITemplate(c.Template)
			if err != nil {
				return answer(nil, err)
			}
			res = abi.Resource{Resource: wire.Resource{URI: c.Template}, Template: tmpl}
		} else {
			res = abi.Resource{Resource: wire.Resource{URI: c.URI}}
		}
		contents, err := s.ReadResource(ctx, res, c.URI, c.Variables)
		if err != nil {
			return answer(nil, err)
		}
		return answer(mcp.ReadResourceResult{Contents: contents}, nil)
	case methodPrompt:
		msgs, err := s.GetPrompt(ctx, c.Name, c.Prompt)
		if err != nil {
			return answer(nil, err)
		}
		return answer(mcp.GetPromptResult{Messages: msgs}, nil)
	}
	return answer(nil, fmt.Errorf("a forwarded call of unknown method %q", c.Method))
}
