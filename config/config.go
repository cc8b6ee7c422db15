// Package config holds what every section of gateway.yaml is built from:
// value types written the way people write them (5s, 64MiB), the error
// that names a file and a key, and the Section contract by which each
// package owns the checks of its own part of the file.
//
// A section is a struct that decodes from YAML (koanf tags) and implements
// Section; the loader finds sections by walking its Config, so adding one
// is adding one field. No package here imports the loader.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Error is a validation failure: File, Key and a message that includes
// the bad value.
type Error struct {
	File string
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Msg)
}

// Bad reports one problem with the value at key.
type Bad func(key, format string, args ...any)

// Env is what a section sees while it normalizes itself: where the file
// lives (relative paths resolve against it), how to report problems, and
// where to record the files and folders a reload should watch.
type Env struct {
	File string // absolute path of gateway.yaml
	Bad  Bad

	watchFiles []string
	watchDirs  []string
	watchTrees []string
}

// NewEnv returns an Env for the file at abs that collects problems into
// errs.
func NewEnv(abs string, errs *[]error) *Env {
	return &Env{File: abs, Bad: func(key, format string, args ...any) {
		*errs = append(*errs, &Error{File: abs, Key: key, Msg: fmt.Sprintf(format, args...)})
	}}
}

// Path resolves p (which may start with ~/) against the config's folder.
func (e *Env) Path(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(filepath.Dir(e.File), p)
}

// WatchFile records an absolute file whose change should reload.
func (e *Env) WatchFile(path string) { e.watchFiles = append(e.watchFiles, path) }

// WatchModuleDir records a folder whose *.wasm files should reload.
func (e *Env) WatchModuleDir(dir string) { e.watchDirs = append(e.watchDirs, dir) }

// WatchTree records a folder any file of which, in any folder below it,
// should reload (a skills folder).
func (e *Env) WatchTree(dir string) { e.watchTrees = append(e.watchTrees, dir) }

// WatchedTrees returns what WatchTree recorded.
func (e *Env) WatchedTrees() []string { return e.watchTrees }

// Watched returns what WatchFile and WatchModuleDir recorded.
func (e *Env) Watched() (files, moduleDirs []string) { return e.watchFiles, e.watchDirs }

// Section is one part of gateway.yaml. Normalize fills defaults, resolves
// paths and reports every bad value with its full key (key is where the
// section sits, e.g. "transports").
type Section interface {
	Normalize(key string, env *Env)
}

// Diff reports that the value at key changed from a to b.
type Diff func(key string, a, b any)

// RestartOnly is implemented by sections holding keys that a reload cannot
// change (listeners, say). RestartOnly calls diff for each such key; prev
// is the same section as the serving config has it.
type RestartOnly interface {
	RestartOnly(key string, prev any, diff Diff)
}
