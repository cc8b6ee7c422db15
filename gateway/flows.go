package gateway

import (
	"github.com/wasmgate/wasmgate/flow"
)

// flowStore is where flow taints are kept now: in this process, or in
// Redis while state.backend redis serves, so every replica enforces
// what another saw.
func (g *Gateway) flowStore() flow.Store {
	return g.flowMem
}
