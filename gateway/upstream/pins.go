package upstream

import (
	"fmt"
	"maps"
	"slices"

	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/lockfile"
)

var _ source.Pinner = (*Source)(nil)

// Pins is what the lock file pins of the upstream (Pins of its spec).
func (u *Source) Pins() (*lockfile.Source, error) { return Pins(u.spec) }

// Pins is what the lock records of the upstream u: its command or URL
// and its grants, all read from the config (so they are checked before
// anything of it runs).
func Pins(u loader.UpstreamSpec) (*lockfile.Source, error) {
	ls := &lockfile.Source{Kind: "upstream", Declared: u.Key}
	if len(u.Command) > 0 {
		ls.Upstream = fmt.Sprintf("%q", u.Command)
	} else {
		ls.Upstream = u.URL
	}
	var sandbox any // none: null
	if sb := u.Sandbox; sb != nil {
		sandbox = map[string]any{"read": lockfile.List(sb.Read), "write": lockfile.List(sb.Write), "network": sb.Network}
	}
	if err := ls.GrantAll(map[string]any{
		"sandbox":  sandbox,
		"env":      lockfile.List(slices.Sorted(maps.Keys(u.Env))), // names only: values may be secrets
		"env_from": lockfile.List(u.EnvFrom),
		"cwd":      u.Cwd,
		"session":  u.Session,
	}); err != nil {
		return nil, err
	}
	return ls, nil
}
