// The operations of FS that change the tree.

package sandboxfs

import (
	"io/fs"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
	"golang.org/x/sys/unix"
)

// Mkdir implements experimentalsys.FS.
func (f *FS) Mkdir(p string, perm fs.FileMode) experimentalsys.Errno {
	rel, _, errno := clean(p)
	if errno != 0 {
		return errno
	}
	if f.readOnly {
		return experimentalsys.EROFS
	}
	errno = f.withRoot(func(root int) experimentalsys.Errno {
		return errnoOf(withParent(root, rel, func(dirfd int, name string) error {
			return unix.Mkdirat(dirfd, name, uint32(perm&fs.ModePerm))
		}))
	})
	if errno == experimentalsys.ENOTDIR { // as wazero's DirFS
		errno = experimentalsys.ENOENT
	}
	return errno
}

// Chmod implements experimentalsys.FS: symbolic links are followed beneath
// the mount; only permission bits are set.
func (f *FS) Chmod(p string, perm fs.FileMode) experimentalsys.Errno {
	rel, dirOnly, errno := clean(p)
	if errno != 0 {
		return errno
	}
	if f.readOnly {
		return experimentalsys.EROFS
	}
	return f.withRoot(func(root int) experimentalsys.Errno {
		return errnoOf(withTarget(root, rel, dirOnly, func(fd int) error {
			return unix.Fchmodat(unix.AT_FDCWD, procPath(fd), uint32(perm&fs.ModePerm), 0)
		}))
	})
}

// Rename implements experimentalsys.FS.
func (f *FS) Rename(from, to string) experimentalsys.Errno {
	relFrom, dirFrom, errno := clean(from)
	if errno != 0 {
		return errno
	}
	relTo, dirTo, errno := clean(to)
	if errno != 0 {
		return errno
	}
	if f.readOnly {
		return experimentalsys.EROFS
	}
	if relFrom == relTo {
		return 0
	}
	return f.withRoot(func(root int) experimentalsys.Errno {
		return errnoOf(withParent(root, relFrom, func(fromfd int, fromName string) error {
			if dirFrom || dirTo {
				if err := mustBeDir(fromfd, fromName); err != nil {
					return err
				}
			}
			return withParent(root, relTo, func(tofd int, toName string) error {
				return unix.Renameat(fromfd, fromName, tofd, toName)
			})
		}))
	})
}

// Rmdir implements experimentalsys.FS.
func (f *FS) Rmdir(p string) experimentalsys.Errno {
	rel, _, errno := clean(p)
	if errno != 0 {
		return errno
	}
	if f.readOnly {
		return experimentalsys.EROFS
	}
	return f.withRoot(func(root int) experimentalsys.Errno {
		return errnoOf(withParent(root, rel, func(dirfd int, name string) error {
			return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
		}))
	})
}

// Unlink implements experimentalsys.FS.
func (f *FS) Unlink(p string) experimentalsys.Errno {
	rel, dirOnly, errno := clean(p)
	if errno != 0 {
		return errno
	}
	if f.readOnly {
		return experimentalsys.EROFS
	}
	return f.withRoot(func(root int) experimentalsys.Errno {
		return errnoOf(withParent(root, rel, func(dirfd int, name string) error {
			if dirOnly {
				if err := mustBeDir(dirfd, name); err != nil {
					return err
				}
				return unix.EISDIR
			}
			return unix.Unlinkat(dirfd, name, 0) // EISDIR for a directory
		}))
	})
}

// Link implements experimentalsys.FS: both names are beneath the mount.
// oldPath's last component is not followed, and a symbolic link cannot be
// linked (EPERM): that would make a new link as Symlink would.
func (f *FS) Link(oldPath, newPath string) experimentalsys.Errno {
	relOld, dirOld, errno := clean(oldPath)
	if errno != 0 {
		return errno
	}
	relNew, _, errno := clean(newPath)
	if errno != 0 {
		return errno
	}
	if f.readOnly {
		return experimentalsys.EROFS
	}
	if dirOld {
		relOld += "/"
	}
	return f.withRoot(func(root int) experimentalsys.Errno {
		// Hold the file itself, so that what is checked is what is linked
		// even if its name is replaced meanwhile.
		fd, err := openBeneath(root, relOld, unix.O_PATH|unix.O_NOFOLLOW, 0)
		if err != nil {
			return errnoOf(err)
		}
		defer unix.Close(fd)
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return errnoOf(err)
		}
		if t := st.Mode & unix.S_IFMT; t == unix.S_IFLNK || t == unix.S_IFDIR {
			return experimentalsys.EPERM
		}
		return errnoOf(withParent(root, relNew, func(newfd int, newName string) error {
			// Linking a descriptor's file by its /proc name is what
			// linkat(2) documents for unprivileged callers.
			return unix.Linkat(unix.AT_FDCWD, procPath(fd), newfd, newName, unix.AT_SYMLINK_FOLLOW)
		}))
	})
}

// Symlink implements experimentalsys.FS: it is refused, EROFS in a
// read-only mount and EPERM otherwise (see the package documentation).
func (f *FS) Symlink(oldPath, linkName string) experimentalsys.Errno {
	if f.readOnly {
		return experimentalsys.EROFS
	}
	return experimentalsys.EPERM
}

// Readlink implements experimentalsys.FS.
func (f *FS) Readlink(p string) (string, experimentalsys.Errno) {
	rel, dirOnly, errno := clean(p)
	if errno != 0 {
		return "", errno
	}
	if dirOnly {
		return "", experimentalsys.EINVAL // a directory is not a link
	}
	var target string
	errno = f.withRoot(func(root int) experimentalsys.Errno {
		return errnoOf(withParent(root, rel, func(dirfd int, name string) error {
			for size := 256; ; size *= 2 {
				buf := make([]byte, size)
				n, err := unix.Readlinkat(dirfd, name, buf)
				if err != nil {
					return err
				}
				if n < size {
					target = string(buf[:n])
					return nil
				}
			}
		}))
	})
	return target, errno
}

// Utimens implements experimentalsys.FS: symbolic links are followed
// beneath the mount.
func (f *FS) Utimens(p string, atim, mtim int64) experimentalsys.Errno {
	rel, dirOnly, errno := clean(p)
	if errno != 0 {
		return errno
	}
	if f.readOnly {
		return experimentalsys.EROFS
	}
	ts := timespecs(atim, mtim)
	return f.withRoot(func(root int) experimentalsys.Errno {
		return errnoOf(withTarget(root, rel, dirOnly, func(fd int) error {
			return unix.UtimesNanoAt(unix.AT_FDCWD, procPath(fd), ts[:], 0)
		}))
	})
}

// timespecs converts wazero's times (experimentalsys.UTIME_OMIT to keep one)
// for utimensat.
func timespecs(atim, mtim int64) [2]unix.Timespec {
	conv := func(t int64) unix.Timespec {
		if t == experimentalsys.UTIME_OMIT {
			return unix.Timespec{Nsec: unix.UTIME_OMIT}
		}
		return unix.NsecToTimespec(t)
	}
	return [2]unix.Timespec{conv(atim), conv(mtim)}
}

// statOf converts a stat(2) result.
func statOf(st *unix.Stat_t) sys.Stat_t {
	return sys.Stat_t{
		Dev:   st.Dev,
		Ino:   st.Ino,
		Mode:  fileMode(st.Mode),
		Nlink: uint64(st.Nlink),
		Size:  st.Size,
		Atim:  st.Atim.Nano(),
		Mtim:  st.Mtim.Nano(),
		Ctim:  st.Ctim.Nano(),
	}
}

// fileMode converts st_mode as the os package does.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
