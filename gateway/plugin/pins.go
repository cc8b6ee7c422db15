package plugin

import (
	"maps"
	"slices"

	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader/lockfile"
)

var _ source.Pinner = (*Source)(nil)

// Pins is what the lock file pins of the plugin: its module's digest and
// its grants (the host functions its module imports among them).
func (p *Source) Pins() (*lockfile.Source, error) {
	ls := &lockfile.Source{Kind: p.Kind(), Declared: p.Key(), Module: p.plugin.SHA256}
	g := p.Grants()
	for _, k := range slices.Sorted(maps.Keys(g)) {
		if err := ls.Grant(k, g[k]); err != nil {
			return nil, err
		}
	}
	return ls, nil
}
