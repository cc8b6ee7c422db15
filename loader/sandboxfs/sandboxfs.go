// Package sandboxfs gives a plugin the directories its allowed_paths grant,
// and nothing outside them.
//
// Each grant is mounted in the guest as an [experimentalsys.FS] whose every
// path resolves beneath the granted host directory, whatever symbolic links
// or ".." components it contains: on Linux each operation resolves its path
// with openat2(2) and RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS from a
// descriptor of the directory, then acts with the *at system calls on a
// parent directory resolved the same way. A path that would leave the
// directory fails with EPERM. Chmod, Utimens and Link act on an O_PATH
// descriptor of the file resolved that way, named through the gateway's own
// /proc/self/fd. wazero's own DirFS joins strings and lets
// the kernel follow symbolic links anywhere, which is why it is not used.
//
// What a grant allows:
//
//   - Regular files and directories beneath the mount can be opened, read,
//     listed and stat'ed; in a read-write mount also created, written,
//     truncated, renamed, removed, hard-linked (both names beneath the
//     mount) and have their times set. Other kinds of files (FIFOs,
//     sockets, devices) cannot be opened (EPERM): opening or reading them
//     could block the gateway.
//   - Symbolic links already in the mount are followed when their target,
//     resolved step by step, stays beneath the mount: a relative link
//     between two files of the mount works. A link whose target is
//     absolute, or climbs out of the mount with "..", fails with EPERM, and
//     /proc-style "magic" links are never followed. Readlink and Lstat see
//     any link (its target text and its own metadata, not the target's).
//   - Creating a symbolic link is refused (EPERM) in every mount: a link
//     made inside the mount could later be moved (with rename) so that its
//     relative target points outside, and host programs working in the
//     directory would follow it. Hard-linking a symbolic link, which makes
//     a new one, is refused too.
//   - A read-only mount ("ro:" prefix) refuses every change with EROFS:
//     opening for writing, O_CREAT of a missing file, O_TRUNC, mkdir,
//     rename, unlink, rmdir, link, symlink, chmod and setting times. Its
//     files are opened read-only, so writing or truncating through a
//     descriptor fails with EBADF.
//   - Modes given to create, mkdir or chmod keep their permission bits
//     (0o777) only: no set-user-ID, set-group-ID or sticky bit.
//
// A hard link that the host placed in the mount is the same file as its
// other names, wherever they are: the sandbox cannot tell it apart, so do not
// grant directories holding hard links to files the plugin must not see.
//
// The confinement rests on Linux's RESOLVE_BENEATH (Linux 5.6 or later): on
// other systems, and older kernels, [Open] refuses any grant with an error
// rather than mount an escapable directory.
package sandboxfs

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/experimental/sysfs"
)

// ReadOnlyPrefix marks a read-only grant's host directory in allowed_paths.
const ReadOnlyPrefix = "ro:"

// Grant is one host directory mounted in the guest.
type Grant struct {
	Host     string // directory on the host
	Guest    string // absolute path the guest sees it at
	ReadOnly bool
}

// ParseAllowedPaths turns an allowed_paths map (host directory, prefixed
// with "ro:" when read-only, to guest path) into grants sorted by guest
// path.
func ParseAllowedPaths(allowed map[string]string) []Grant {
	grants := make([]Grant, 0, len(allowed))
	for host, guest := range allowed {
		g := Grant{Host: host, Guest: guest}
		if h, ok := strings.CutPrefix(host, ReadOnlyPrefix); ok {
			g.Host, g.ReadOnly = h, true
		}
		grants = append(grants, g)
	}
	slices.SortFunc(grants, func(a, b Grant) int {
		return cmp.Or(cmp.Compare(a.Guest, b.Guest), cmp.Compare(a.Host, b.Host))
	})
	return grants
}

// Mounts are the file systems of a plugin's grants. They are safe for
// concurrent use by every instance of the plugin, and must be closed once
// no instance uses them any more.
type Mounts struct {
	fss []*FS
	cfg wazero.FSConfig
}

// Open opens the directories of an allowed_paths map. It returns nil
// Mounts, which grant nothing, for an empty map.
func Open(allowed map[string]string) (*Mounts, error) {
	if len(allowed) == 0 {
		return nil, nil
	}
	m := &Mounts{}
	cfg := wazero.NewFSConfig()
	for _, g := range ParseAllowedPaths(allowed) {
		fs, err := New(g.Host, g.ReadOnly)
		if err != nil {
			_ = m.Close()
			return nil, fmt.Errorf("mount %q at %q: %w", g.Host, g.Guest, err)
		}
		m.fss = append(m.fss, fs)
		cfg = cfg.(sysfs.FSConfig).WithSysFSMount(fs, g.Guest)
	}
	m.cfg = cfg
	return m, nil
}

// Configure returns mc with the mounts as its file system. With nil Mounts
// it returns mc unchanged (no file system at all).
func (m *Mounts) Configure(mc wazero.ModuleConfig) wazero.ModuleConfig {
	if m == nil {
		return mc
	}
	return mc.WithFSConfig(m.cfg)
}

// Close closes every mount's directory. It does nothing on nil Mounts.
func (m *Mounts) Close() error {
	if m == nil {
		return nil
	}
	var errs []error
	for _, fs := range m.fss {
		errs = append(errs, fs.Close())
	}
	return errors.Join(errs...)
}

var _ experimentalsys.FS = (*FS)(nil)
