package loader

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// maxChangedPaths bounds the paths one burst of changes reports (a
// checkout touching thousands of files reloads once, naming the first).
const maxChangedPaths = 16

// Watcher reports changes to the files a config depends on: the config
// file itself, every plugin module, every dir: folder and the bearer token
// file. It watches their directories, not the files, so every way editors
// save works: writing in place, writing a temporary file and renaming it
// over, deleting and creating, and swapping a symlink (a Kubernetes
// ConfigMap's ..data).
//
// A folder that does not exist yet (a dir: entry, or the folder of a
// module not yet deployed) is waited for from its nearest existing
// parent: creating it, or any folder on the way to it, reloads.
type Watcher struct {
	fs     *fsnotify.Watcher
	logger *slog.Logger

	mu       sync.Mutex
	files    map[string]bool // absolute paths that matter
	wasmDirs map[string]bool // folders whose *.wasm files matter
	treeDirs map[string]bool // folders whose every file matters (skills folders and below)
	cfgDirs  map[string]bool // folders holding the config (symlink swaps)
	watched  map[string]bool
	missing  map[string]bool // folders wanted but absent, watched from a parent
	kick     chan struct{}   // a missing folder appeared: reload once more
	expected map[string]expectation
}

// expectTTL is how long an Expect waits for the write it announced.
const expectTTL = time.Minute

// expectation is content announced by Expect for a file.
type expectation struct {
	sum   [sha256.Size]byte
	until time.Time
}

// NewWatcher starts an fsnotify watcher; Close stops it.
func NewWatcher(logger *slog.Logger) (*Watcher, error) {
	fw, err := fsnotify.NewBufferedWatcher(256)
	if err != nil {
		return nil, fmt.Errorf("start file watcher: %w", err)
	}
	return &Watcher{fs: fw, logger: logger, watched: map[string]bool{}, missing: map[string]bool{}, kick: make(chan struct{}, 1),
		expected: map[string]expectation{}}, nil
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
	wasmDirs, treeDirs := map[string]bool{}, map[string]bool{}
	cfgDirs := map[string]bool{filepath.Dir(abs): true}
	// A symlinked config: also watch where it points.
	if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
		files[real] = true
		cfgDirs[filepath.Dir(real)] = true
	}
	if cfg != nil {
		for _, f := range cfg.WatchFiles() {
			files[f] = true
		}
		for _, d := range cfg.WatchModuleDirs() {
			wasmDirs[d] = true
		}
		for _, t := range cfg.WatchTrees() {
			treeFolders(t, treeDirs)
		}
	}
	want := map[string]bool{}
	for d := range treeDirs {
		want[d] = true
	}
	for f := range files {
		want[filepath.Dir(f)] = true
	}
	for d := range wasmDirs {
		want[d] = true
	}
	// A folder that is not there yet is watched from its nearest existing
	// parent.
	dirs, missing := map[string]bool{}, map[string]bool{}
	for d := range want {
		at := existingAncestor(d)
		dirs[at] = true
		if at != d {
			missing[d] = true
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	appeared := false
	for d := range w.missing {
		if !missing[d] && want[d] {
			appeared = true
		}
	}
	w.files, w.wasmDirs, w.treeDirs, w.cfgDirs, w.missing = files, wasmDirs, treeDirs, cfgDirs, missing
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
	for d := range missing {
		w.logger.Info("waiting for a folder the config names; creating it reloads", "dir", d, "watching", existingAncestor(d))
	}
	if appeared {
		// A folder that was missing is watched now; what was written in
		// it before the watch began is only seen by one more reload.
		select {
		case w.kick <- struct{}{}:
		default:
		}
	}
}

// Expect says that the caller is about to write content to path and
// applies it itself (`wasmgate lock` writes server.lock_file, then
// reloads): a burst of changes made of path alone, holding content once
// it has settled, reloads nothing. Anything else reloads as usual: a
// burst that also changed another file, or path holding other content
// (a later write). The first burst naming path uses the expectation up;
// one that no burst names lapses after expectTTL.
func (w *Watcher) Expect(path string, content []byte) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.expected[path] = expectation{sum: sha256.Sum256(content), until: time.Now().Add(expectTTL)}
}

// expectedOnly reports whether the burst that changed paths is only
// what Expect announced; it uses up the expectations of paths.
func (w *Watcher) expectedOnly(paths []string) bool {
	w.mu.Lock()
	now := time.Now()
	maps.DeleteFunc(w.expected, func(_ string, e expectation) bool { return now.After(e.until) })
	want := make(map[string]expectation, len(paths))
	for _, p := range paths {
		if e, ok := w.expected[p]; ok {
			want[p] = e
			delete(w.expected, p)
		}
	}
	w.mu.Unlock()
	if len(paths) == 0 || len(want) != len(paths) {
		return false
	}
	for p, e := range want {
		data, err := os.ReadFile(p)
		if err != nil {
			return false
		}
		if sha256.Sum256(data) != e.sum {
			return false
		}
	}
	return true
}

// treeFolders adds root and every folder below it (but those whose names
// start with ".") to dirs; a root that does not exist is added alone (it
// is waited for).
func treeFolders(root string, dirs map[string]bool) {
	dirs[root] = true
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if len(dirs) >= maxTreeFolders {
				return filepath.SkipAll
			}
			dirs[p] = true
		}
		return nil
	})
}

// maxTreeFolders bounds the folders watched below skills folders (each
// is an inotify watch).
const maxTreeFolders = 4096

// existingAncestor returns dir if it is an existing folder, else its
// nearest parent that is.
func existingAncestor(dir string) string {
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
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
	if w.treeDirs[dir] && !strings.HasPrefix(base, ".") {
		return true
	}
	// Kubernetes swaps ..data (a symlink to a timestamped folder).
	if w.cfgDirs[dir] && strings.HasPrefix(base, "..") {
		return true
	}
	// A missing folder, or one on the way to it, appeared.
	for m := range w.missing {
		if m == ev.Name || strings.HasPrefix(m, ev.Name+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// Run calls reload after each burst of relevant changes has been quiet for
// debounce, until ctx ends, with the absolute paths that changed in the
// burst, sorted (none when a folder the config waited for appeared and
// only needs one more look). Changes during a reload cause one more. A
// burst that is only what Expect announced does not reload.
func (w *Watcher) Run(ctx context.Context, debounce time.Duration, reload func(ctx context.Context, changed []string)) {
	var timer *time.Timer
	var fire <-chan time.Time
	changed := map[string]bool{}
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
			if len(changed) < maxChangedPaths {
				changed[ev.Name] = true
			}
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
		case <-w.kick:
			if timer == nil {
				timer = time.NewTimer(debounce)
			} else {
				timer.Reset(debounce)
			}
			fire = timer.C
		case <-fire:
			fire = nil
			paths := slices.Sorted(maps.Keys(changed))
			clear(changed)
			if w.expectedOnly(paths) {
				w.logger.Debug("changed as announced; no reload", "paths", paths)
				continue
			}
			reload(ctx, paths)
		}
	}
}
