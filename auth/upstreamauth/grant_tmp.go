// Temporary stand-in for auth/vault's Grant (written in parallel on branch
// h/vault) so that this branch builds alone. At merge it becomes
//
//	type Grant = vault.Grant
//
// and nothing else here changes.

package upstreamauth

import (
	"time"

	"github.com/wasmgate/wasmgate/config"
)

// Grant is one user's authorization for one upstream, as the vault stores
// it (encrypted).
type Grant struct {
	Upstream, Principal       string
	AccessToken, RefreshToken config.Secret
	TokenType                 string
	Expiry                    time.Time // zero: unknown
	Scopes                    []string
	Subject                   string // who the upstream's AS says the user is, when known (never a token)
	ConnectedAt, RefreshedAt  time.Time
}
