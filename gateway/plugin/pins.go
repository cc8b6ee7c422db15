package plugin

import (
	"github.com/wasmgate/wasmgate/gateway/source"
	"github.com/wasmgate/wasmgate/loader/lockfile"
)

var _ source.Pinner = (*Source)(nil)

// Pins is what the lock file pins of the plugin: its module's digest and
// its grants (the host functions its module imports among them).
func (p *Source) Pins() (*lockfile.Source, error) {
	ls := &lockfile.Source{Kind: p.Kind(), Declared: p.Key(), Module: p.plugin.SHA256}
	if err := ls.GrantAll(p.Grants()); err != nil {
		return nil, err
	}
	return ls, nil
}
