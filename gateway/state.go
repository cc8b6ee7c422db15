package gateway

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"os"

	"github.com/wasmgate/wasmgate/gateway/component"
	"github.com/wasmgate/wasmgate/gateway/transport"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/host"
	"github.com/wasmgate/wasmgate/policy"
	"github.com/wasmgate/wasmgate/state"
)

// stateComponent is the state section: with backend redis, the
// connection to Redis (package state) the plugins' key-value stores and
// the rate limits use once its snapshot serves; with memory, nothing (each
// store and limiter keeps its state in this process, as always). A reload
// that leaves the section and the password unchanged keeps the
// connection (reference counted across snapshots).
type stateComponent struct {
	g     *Gateway
	prev  *stateComponent
	store *state.Store // nil with backend memory
	hash  string       // of the config file
	cfg   *loader.Config
}

func (c *stateComponent) Name() string { return "state" }

var (
	_ component.Reuser[*stateComponent] = (*stateComponent)(nil)
	_ component.Differ[*stateComponent] = (*stateComponent)(nil)
	_ component.Applier                 = (*stateComponent)(nil)
)

func (c *stateComponent) Reuse(prev *stateComponent) { c.prev = prev }

func (c *stateComponent) Provision(ctx context.Context, cfg *loader.Config) error {
	c.cfg = cfg
	c.hash = configHash(cfg.File)
	if !cfg.State.IsRedis() {
		return nil
	}
	pw, err := cfg.State.Redis.Password(state.Key).Read(cfg.File, nil)
	if err != nil {
		return err
	}
	if p := c.prev; p != nil && p.store != nil && p.store.Same(cfg.State, pw.Value()) {
		if c.store = p.store.Retain(); c.store != nil {
			return nil
		}
	}
	var st *state.Store
	st, err = state.Open(ctx, cfg.State, pw.Value(), state.Options{
		Logger: c.g.log, File: cfg.File,
		Health: func(up bool) {
			if cur := c.g.state.Load(); cur != nil && cur == st && c.g.opts.Metrics != nil {
				c.g.opts.Metrics.StateUp.Set(b2f(up))
			}
		},
	})
	c.store = st
	return err
}

// Apply points the key-value stores and the rate limits at this
// snapshot's backend, and announces the replica with its config hash.
func (c *stateComponent) Apply(context.Context) {
	g := c.g
	g.state.Store(c.store)
	g.relay.Share(c.store, g.replicaID)
	if c.store == nil {
		g.limiters.Share(nil)
		g.signer.Share(nil)
	} else {
		g.limiters.Share(c.store)
		g.signer.Share(c.store)
		c.store.OnUpdate(g.deliverUpdate)
		c.store.SetReplica(state.Replica{
			ID: g.replicaID, ConfigHash: c.hash, Version: g.opts.Version, Started: g.started,
		}, func(r *state.Replica) {
			r.MCP, r.Admin = g.status.Listener("http"), g.status.Listener("admin")
		})
	}
	if m := g.opts.Metrics; m != nil {
		m.StateUp.Set(b2f(c.store == nil || c.store.Up()))
		m.ConfigHash.Reset()
		m.ConfigHash.WithLabelValues(c.hash).Set(1)
	}
}

func (c *stateComponent) Cleanup(context.Context) {
	if c.store != nil {
		c.store.Release()
		c.store = nil
	}
}

// Changes names a change of backend, for the status page.
func (c *stateComponent) Changes(p *stateComponent) []string {
	if p == nil || p.cfg == nil || c.cfg == nil || p.cfg.State == c.cfg.State {
		return nil
	}
	return []string{"state: backend " + p.cfg.State.Backend + " -> " + c.cfg.State.Backend}
}

// sharedKV is the store the plugins' key-value stores use now: nil with
// backend memory.
func (g *Gateway) sharedKV() host.Remote {
	if st := g.state.Load(); st != nil {
		return st
	}
	return nil
}

// sharedSessions is the registry of session ids the replicas share: nil
// with backend memory.
func (g *Gateway) sharedSessions() transport.SharedSessions {
	if st := g.state.Load(); st != nil {
		return st
	}
	return nil
}

// stateStatus is the status page's "state" section.
func (g *Gateway) stateStatus() any {
	if st := g.state.Load(); st != nil {
		return st.Status()
	}
	return map[string]string{"backend": "memory"}
}

var _ policy.Shared = (*state.Store)(nil)

// configHash is the first 12 hex digits of the SHA-256 of the config
// file (empty file: of nothing): replicas given one file have one hash.
func configHash(file string) string {
	b, _ := os.ReadFile(file)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

// newReplicaID names this process among the replicas: the host name and
// a random suffix.
func newReplicaID() string {
	host, _ := os.Hostname()
	return host + "-" + rand.Text()[:8]
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
