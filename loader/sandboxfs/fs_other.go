//go:build !linux

package sandboxfs

import (
	"errors"
	"runtime"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// FS would be one granted directory. Only Linux has the openat2(2)
// RESOLVE_BENEATH this package confines paths with, so elsewhere no FS
// can be made.
type FS struct {
	experimentalsys.UnimplementedFS
}

// New fails: see FS.
func New(dir string, readOnly bool) (*FS, error) {
	return nil, errors.New("file grants (allowed_paths) need Linux: wasmgate cannot confine a plugin to a directory on " + runtime.GOOS)
}

// Close does nothing.
func (f *FS) Close() error { return nil }
