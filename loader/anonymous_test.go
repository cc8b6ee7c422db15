package loader_test

import (
	"testing"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/loader"
)

// TestAnonymousPrincipal: the name endpoints' access accepts for callers
// without authentication is the one the gateway gives them.
func TestAnonymousPrincipal(t *testing.T) {
	if envelope.Anonymous.Name != loader.AnonymousPrincipal {
		t.Errorf("the gateway calls unauthenticated callers %q, the loader %q", envelope.Anonymous.Name, loader.AnonymousPrincipal)
	}
}
