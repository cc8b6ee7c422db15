// The request_state component: server.request_state's key and TTL, read
// for each snapshot and applied to the Signer that seals and opens states.

package roundtrip

import (
	"context"
	"fmt"
	"time"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader"
)

// MinKeyBytes is the shortest key server.request_state accepts.
const MinKeyBytes = 32

// Component is server.request_state of one snapshot.
type Component struct {
	s   *Signer
	key []byte
	ttl time.Duration
}

// Component is a new request-state component of a snapshot being built.
func (s *Signer) Component() *Component { return &Component{s: s} }

func (c *Component) Name() string { return "request_state" }

// Provision reads the key, if the config names one.
func (c *Component) Provision(_ context.Context, cfg *loader.Config) error {
	rs := cfg.Server.RequestState
	c.ttl = time.Duration(rs.TTL)
	ref := rs.Key()
	if !ref.Set() {
		return nil
	}
	sec, err := ref.Read(cfg.File, nil)
	if err != nil {
		return err
	}
	if len(sec.Value()) < MinKeyBytes {
		k := ref.FileKey
		if ref.Env != "" {
			k = ref.EnvKey
		}
		return &config.Error{File: cfg.File, Key: "server.request_state." + k,
			Msg: fmt.Sprintf("the key is %d bytes; give at least %d (for example: openssl rand -hex 32)", len(sec.Value()), MinKeyBytes)}
	}
	c.key = []byte(sec.Value())
	return nil
}

// Apply makes the key and TTL the ones states are sealed and opened with.
func (c *Component) Apply(context.Context) { c.s.Set(c.key, c.ttl) }

func (c *Component) Cleanup(context.Context) {}
