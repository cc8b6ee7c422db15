package trust

import (
	"errors"
	"fmt"
	"os"

	"github.com/wasmgate/wasmgate/internal/atomicfile"
	"github.com/wasmgate/wasmgate/loader/lockfile"
)

// ReadLock reads and parses the lock file at path; nil, nil when there
// is none.
func ReadLock(path string) (*lockfile.Lock, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return lockfile.Parse(data)
}

// WriteFileAtomic writes data to path through a temporary file in the
// same folder, renamed over it (a watcher sees one complete file).
func WriteFileAtomic(path string, data []byte) error {
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("write the lock file %s: %w", path, err)
	}
	return nil
}
