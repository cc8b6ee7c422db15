package upstreamauth

import "github.com/wasmgate/wasmgate/auth/vault"

// Grant is one user's authorization for one upstream, as the vault
// stores it (encrypted).
type Grant = vault.Grant
