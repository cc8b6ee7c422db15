// Package atomicfile replaces a file whole: a reader (or a watcher) sees
// the old contents or the new, never a part.
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file in path's folder
// (".<name>.*"), synced, given mode perm and renamed over path. On any
// error path is as it was and the temporary file is removed. Errors are
// the os package's: a *os.PathError names the temporary file, not path.
func Write(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr, os.Chmod(f.Name(), perm)); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return nil
}
