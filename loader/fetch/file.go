package fetch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// File reads a module from a local path and watches that path.
type File struct{}

// Check accepts every path: the loader checks the file exists.
func (File) Check(string) error { return nil }

// Fetch reads spec.Source and checks it against spec.SHA256 and, with
// spec.Verify, against the local bundle verify.bundle names.
func (File) Fetch(ctx context.Context, spec Spec) (Module, error) {
	data, err := os.ReadFile(spec.Source)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is in the message already
		}
		return Module{}, fmt.Errorf("%s (%s): read %s: %w", spec.Owner(), spec.Key, spec.Source, err)
	}
	sum := Sum(data)
	if err := CheckPin(spec, sum); err != nil {
		return Module{}, err
	}
	if _, err := CheckSignature(ctx, spec, data, "", nil); err != nil {
		return Module{}, err
	}
	return Module{Data: data, SHA256: sum, Watch: []string{spec.Source}}, nil
}
