package loader

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watcher reports changes to the files a config depends on: the config
// file itself, every plugin module, every dir: folder and the bearer token
// files. It watches their directories, not the files, so every way editors
// save works: writing in place, writing a temporary file and renaming it
// over, deleting and creating, and swapping a symlink (a Kubernetes
// ConfigMap's ..data).
type Watcher struct {
	fs     *fsnotify.Watcher
	logger *slog.Logger

	mu       sync.Mutex
	files    map[string]bool // absolute paths that matter
	wasmDirs map[string]bool // folders whose *.wasm files matter
	cfgDirs  map[string]bool // folders holding the config (symlink swaps)
	watched  map[string]bool
}

// NewWatcher starts an fsnotify watcher; Close stops it.
func NewWatcher(logger *slog.Logger) (*Watcher, error) {
	fw, err := fsnotify.NewBufferedWatcher(256)
	if err != nil {
		return nil, fmt.Errorf("start file watcher: %w", err)
	}
	return &Watcher{fs: fw, logger: logger, watched: map[string]bool{}}, nil
}

// Close stops watching.
func (w *Watcher) Close() error { return w.fs.Close() }

// Track replaces what is watched with what configPath and cfg depend on.
// cfg may be nil (the config did not load): then only the config file is
// watched, so fixing it triggers a reload.
func (w *Watcher) Track(configPath string, cfg *Config) {
	abs, err := filepath.Abs(configPath)
	if err != nil {
		abs = configPath
	}
	files := map[string]bool{abs: true}
	wasmDirs := map[string]bool{}
	cfgDirs := map[string]bool{filepath.Dir(abs): true}
	// A symlinked config: also watch where it points.
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		files[real] = true
		cfgDirs[filepath.Dir(real)] = true
	}
	if cfg != nil {
		for _, p := range cfg.Plugins {
			files[p.Path] = true
		}
		for _, d := range cfg.dirs {
			wasmDirs[d] = true
		}
		for _, f := range []string{cfg.Transports.HTTP.Auth.BearerTokenFile, cfg.Admin.Auth.BearerTokenFile} {
			if f != "" {
				files[f] = true
			}
		}
	}
	dirs := map[string]bool{}
	for f := range files {
		dirs[filepath.Dir(f)] = true
	}
	for d := range wasmDirs {
		dirs[d] = true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files, w.wasmDirs, w.cfgDirs = files, wasmDirs, cfgDirs
	for d := range w.watched {
		if !dirs[d] {
			_ = w.fs.Remove(d)
			delete(w.watched, d)
		}
	}
	for d := range dirs {
		if w.watched[d] {
			continue
		}
		if err := w.fs.Add(d); err != nil {
			w.logger.Warn("cannot watch folder; changes in it will not reload", "dir", d, "error", err)
			continue
		}
		w.watched[d] = true
	}
}

func (w *Watcher) relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.files[ev.Name] {
		return true
	}
	dir, base := filepath.Split(ev.Name)
	dir = filepath.Clean(dir)
	if w.wasmDirs[dir] && strings.HasSuffix(base, ".wasm") && !strings.HasPrefix(base, ".") {
		return true
	}
	// Kubernetes swaps ..data (a symlink to a timestamped folder).
	if w.cfgDirs[dir] && strings.HasPrefix(base, "..") {
		return true
	}
	return false
}

// Run calls reload after each burst of relevant changes has been quiet for
// debounce, until ctx ends. Changes during a reload cause one more.
func (w *Watcher) Run(ctx context.Context, debounce time.Duration, reload func(ctx context.Context)) {
	var timer *time.Timer
	var fire <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			if !w.relevant(ev) {
				continue
			}
			w.logger.Debug("file changed", "path", ev.Name, "op", ev.Op.String())
			if timer == nil {
				timer = time.NewTimer(debounce)
			} else {
				timer.Reset(debounce)
			}
			fire = timer.C
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			w.logger.Warn("file watcher error", "error", err)
		case <-fire:
			fire = nil
			reload(ctx)
		}
	}
}
