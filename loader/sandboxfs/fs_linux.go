package sandboxfs

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
	"golang.org/x/sys/unix"
)

// FS is one granted directory. It implements wazero's experimentalsys.FS;
// paths are relative to the directory (a leading "/" is ignored).
type FS struct {
	experimentalsys.UnimplementedFS

	dir      string
	readOnly bool
	// root is an O_PATH descriptor of dir. Every operation borrows it
	// through Control, so Close cannot free the descriptor number (for the
	// kernel to reuse for another directory) while an operation uses it.
	root *os.File
}

// resolveFlags confine every guest path to the mount: no component may
// leave it (".." at its top, an absolute symbolic link, a relative one
// climbing out), and /proc's magic links are never followed.
const resolveFlags = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS

// New opens dir as a mount, read-only if readOnly.
func New(dir string, readOnly bool) (*FS, error) {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	// Check now that the kernel has openat2 with RESOLVE_BENEATH (Linux
	// 5.6), rather than fail the guest's first file operation.
	probe, err := unix.Openat2(fd, ".", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: resolveFlags})
	if err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("openat2 with RESOLVE_BENEATH (Linux 5.6 or later) is needed to confine file grants: %w", err)
	}
	_ = unix.Close(probe)
	return &FS{dir: dir, readOnly: readOnly, root: os.NewFile(uintptr(fd), dir)}, nil
}

// String is the host directory, as wazero's DirFS.
func (f *FS) String() string { return f.dir }

// Close closes the directory. Operations still running finish first;
// later ones fail with EBADF.
func (f *FS) Close() error { return f.root.Close() }

// withRoot runs op with the root descriptor held open.
func (f *FS) withRoot(op func(root int) experimentalsys.Errno) experimentalsys.Errno {
	rc, err := f.root.SyscallConn()
	if err != nil {
		return experimentalsys.EBADF
	}
	var errno experimentalsys.Errno
	if err := rc.Control(func(fd uintptr) { errno = op(int(fd)) }); err != nil {
		return experimentalsys.EBADF
	}
	return errno
}

// clean turns a path from wazero into one relative to the mount: "." is
// the mount itself. dirOnly reports a trailing slash (the path must name a
// directory). A path climbing out lexically ("../x") is refused outright.
func clean(p string) (rel string, dirOnly bool, errno experimentalsys.Errno) {
	trimmed := strings.TrimLeft(p, "/")
	rel = path.Clean(trimmed)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false, experimentalsys.EPERM
	}
	return rel, rel != "." && strings.HasSuffix(trimmed, "/"), 0
}

// errnoOf maps a system call error to the guest's errno. EXDEV, which
// openat2 reports for a path escaping the mount, becomes EPERM: wasip1 has
// no EXDEV in wazero's set, and the operation is simply not permitted.
func errnoOf(err error) experimentalsys.Errno {
	if err == unix.EXDEV {
		return experimentalsys.EPERM
	}
	return experimentalsys.UnwrapOSError(err)
}

// openBeneath opens p beneath dirfd. It retries EAGAIN, which openat2
// returns when a concurrent rename or mount might have let ".." escape, and
// EINTR.
func openBeneath(dirfd int, p string, flags int, mode uint32) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Mode: uint64(mode), Resolve: resolveFlags}
	for range 128 {
		fd, err := unix.Openat2(dirfd, p, &how)
		if err != unix.EAGAIN && err != unix.EINTR {
			return fd, err
		}
	}
	return -1, unix.EAGAIN
}

// withParent resolves the directory holding p's last component beneath
// root and runs op with it and that component's name. The name is never
// "..", so an *at call that does not follow its last component stays
// within the mount.
func withParent(root int, rel string, op func(dirfd int, name string) error) error {
	dir, name := path.Split(rel)
	if dir == "" {
		return op(root, name)
	}
	dirfd, err := openBeneath(root, dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	return op(dirfd, name)
}

// withTarget resolves p, following symbolic links beneath root, to an
// O_PATH descriptor and runs op with it.
func withTarget(root int, rel string, dirOnly bool, op func(fd int) error) error {
	if dirOnly {
		rel += "/"
	}
	fd, err := openBeneath(root, rel, unix.O_PATH, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return op(fd)
}

// procPath names what an O_PATH descriptor refers to, for the calls (chmod,
// utimensat) that cannot act on one directly. The host resolves it through
// its own /proc; nothing of the guest's path is looked up again.
func procPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// OpenFile implements experimentalsys.FS.
func (f *FS) OpenFile(p string, flag experimentalsys.Oflag, perm fs.FileMode) (experimentalsys.File, experimentalsys.Errno) {
	rel, dirOnly, errno := clean(p)
	if errno != 0 {
		return nil, errno
	}
	acc := flag & (experimentalsys.O_RDONLY | experimentalsys.O_RDWR | experimentalsys.O_WRONLY)
	createIfMissing := false
	if f.readOnly {
		switch {
		case acc != experimentalsys.O_RDONLY && flag&experimentalsys.O_DIRECTORY != 0:
			return nil, experimentalsys.EISDIR
		case acc != experimentalsys.O_RDONLY, flag&experimentalsys.O_TRUNC != 0,
			flag&(experimentalsys.O_CREAT|experimentalsys.O_EXCL) == experimentalsys.O_CREAT|experimentalsys.O_EXCL:
			return nil, experimentalsys.EROFS
		case flag&experimentalsys.O_CREAT != 0:
			// Open the file if it exists; creating it is refused below.
			flag &^= experimentalsys.O_CREAT
			createIfMissing = true
		}
	}
	name := rel
	if dirOnly {
		name += "/"
	}
	var file *file
	errno = f.withRoot(func(root int) experimentalsys.Errno {
		// O_NONBLOCK: opening a FIFO must not block; such files are
		// refused below anyway.
		var mode uint32 // openat2 wants none without O_CREAT
		if flag&experimentalsys.O_CREAT != 0 {
			mode = uint32(perm & fs.ModePerm)
		}
		fd, err := openBeneath(root, name, openFlags(flag)|unix.O_NONBLOCK|unix.O_NOCTTY, mode)
		if err != nil {
			switch {
			case createIfMissing && err == unix.ENOENT:
				return experimentalsys.EROFS
			case err == unix.ENXIO:
				// A socket, a FIFO without a reader, a device without
				// a driver: refused below anyway.
				return experimentalsys.EPERM
			}
			return errnoOf(err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			_ = unix.Close(fd)
			return errnoOf(err)
		}
		if t := st.Mode & unix.S_IFMT; t != unix.S_IFREG && t != unix.S_IFDIR {
			_ = unix.Close(fd)
			return experimentalsys.EPERM
		}
		if flag&experimentalsys.O_NONBLOCK == 0 {
			if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, openFlags(flag)&unix.O_APPEND); err != nil {
				_ = unix.Close(fd)
				return errnoOf(err)
			}
		}
		file = newFile(fd, flag, f.readOnly || acc == experimentalsys.O_RDONLY, f.readOnly, &st)
		return 0
	})
	if errno != 0 {
		return nil, errno
	}
	return file, 0
}

// openFlags converts wazero's open flags to Linux's.
func openFlags(flag experimentalsys.Oflag) int {
	var fl int
	switch flag & (experimentalsys.O_RDONLY | experimentalsys.O_RDWR | experimentalsys.O_WRONLY) {
	case experimentalsys.O_RDWR:
		fl = unix.O_RDWR
	case experimentalsys.O_WRONLY:
		fl = unix.O_WRONLY
	default:
		fl = unix.O_RDONLY
	}
	for _, m := range [...]struct {
		from experimentalsys.Oflag
		to   int
	}{
		{experimentalsys.O_APPEND, unix.O_APPEND},
		{experimentalsys.O_CREAT, unix.O_CREAT},
		{experimentalsys.O_DIRECTORY, unix.O_DIRECTORY},
		{experimentalsys.O_DSYNC, unix.O_DSYNC},
		{experimentalsys.O_EXCL, unix.O_EXCL},
		{experimentalsys.O_NOFOLLOW, unix.O_NOFOLLOW},
		{experimentalsys.O_NONBLOCK, unix.O_NONBLOCK},
		{experimentalsys.O_RSYNC, unix.O_RSYNC},
		{experimentalsys.O_SYNC, unix.O_SYNC},
		{experimentalsys.O_TRUNC, unix.O_TRUNC},
	} {
		if flag&m.from != 0 {
			fl |= m.to
		}
	}
	return fl
}

// Stat implements experimentalsys.FS: symbolic links are followed beneath
// the mount.
func (f *FS) Stat(p string) (sys.Stat_t, experimentalsys.Errno) {
	rel, dirOnly, errno := clean(p)
	if errno != 0 {
		return sys.Stat_t{}, errno
	}
	var st unix.Stat_t
	errno = f.withRoot(func(root int) experimentalsys.Errno {
		return errnoOf(withTarget(root, rel, dirOnly, func(fd int) error { return unix.Fstat(fd, &st) }))
	})
	if errno != 0 {
		return sys.Stat_t{}, errno
	}
	return statOf(&st), 0
}

// Lstat implements experimentalsys.FS. With a trailing slash the path must
// be a directory, and a final symbolic link is followed (as lstat(2) does).
func (f *FS) Lstat(p string) (sys.Stat_t, experimentalsys.Errno) {
	rel, dirOnly, errno := clean(p)
	if errno != 0 {
		return sys.Stat_t{}, errno
	}
	if dirOnly {
		return f.Stat(p)
	}
	var st unix.Stat_t
	errno = f.withRoot(func(root int) experimentalsys.Errno {
		return errnoOf(withParent(root, rel, func(dirfd int, name string) error {
			return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		}))
	})
	if errno != 0 {
		return sys.Stat_t{}, errno
	}
	return statOf(&st), 0
}

// lstatAt is fstatat without following name.
func lstatAt(dirfd int, name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	return st, err
}

// mustBeDir is the check a trailing slash asks for on calls that do not
// follow the last component: it names a directory (not a link to one).
func mustBeDir(dirfd int, name string) error {
	st, err := lstatAt(dirfd, name)
	if err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return unix.ENOTDIR
	}
	return nil
}
