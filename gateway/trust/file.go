package trust

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write the lock file: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(f.Name(), 0o644)); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write the lock file %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write the lock file %s: %w", path, err)
	}
	return nil
}
