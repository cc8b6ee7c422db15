// Package abitest has what the tests of ABI adapters share: a fake module
// that answers exports with fixed outputs.
package abitest

import (
	"context"

	"github.com/wasmgate/wasmgate/loader/abi"
)

// Module is an abi.Instance whose exports return fixed outputs and record
// the input of the last call of each.
type Module struct {
	Exports map[string]string
	Input   map[string]string
}

// Has reports whether the module has export.
func (m *Module) Has(export string) bool { _, ok := m.Exports[export]; return ok }

// Call returns export's fixed output, or a KindError CallError for an
// export the module does not have.
func (m *Module) Call(_ context.Context, export string, input []byte) ([]byte, error) {
	out, ok := m.Exports[export]
	if !ok {
		return nil, &abi.CallError{Export: export, Kind: abi.KindError, Msg: "no export " + export}
	}
	if m.Input == nil {
		m.Input = map[string]string{}
	}
	m.Input[export] = string(input)
	return []byte(out), nil
}
