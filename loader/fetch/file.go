package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// File reads a module from a local path and watches that path.
type File struct{}

// Fetch reads spec.Source and checks it against spec.SHA256.
func (File) Fetch(_ context.Context, spec Spec) (Module, error) {
	data, err := os.ReadFile(spec.Source)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is in the message already
		}
		return Module{}, fmt.Errorf("plugin %q (%s): read %s: %w", spec.Plugin, spec.Key, spec.Source, err)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	if spec.SHA256 != "" && spec.SHA256 != hash {
		return Module{}, fmt.Errorf("plugin %q (%s.sha256): %s has sha256 %s, pinned %s", spec.Plugin, spec.Key, spec.Source, hash, spec.SHA256)
	}
	return Module{Data: data, SHA256: hash, Watch: []string{spec.Source}}, nil
}
