package sandboxfs

import (
	"io"
	"unsafe"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/sys"
	"golang.org/x/sys/unix"
)

// file is a regular file or directory opened beneath a mount. It acts on
// its descriptor only: unlike wazero's own files it never opens its path
// again (to rewind a directory or change O_APPEND), so nothing is resolved
// twice. Like wazero's files it is used by one module instance at a time.
type file struct {
	fd      int
	flag    experimentalsys.Oflag
	noWrite bool // opened read-only or in a read-only mount
	mountRO bool // in a read-only mount
	closed  bool

	dev   uint64
	ino   sys.Inode
	isDir bool

	// A directory's entries read by getdents64 and not yet returned:
	// dirBuf[dirPos:dirEnd].
	dirBuf         []byte
	dirPos, dirEnd int
}

var _ experimentalsys.PollableFile = (*file)(nil)

func newFile(fd int, flag experimentalsys.Oflag, noWrite, mountRO bool, st *unix.Stat_t) *file {
	return &file{
		fd: fd, flag: flag, noWrite: noWrite, mountRO: mountRO,
		dev: st.Dev, ino: st.Ino, isDir: st.Mode&unix.S_IFMT == unix.S_IFDIR,
	}
}

// Dev implements experimentalsys.File.
func (f *file) Dev() (uint64, experimentalsys.Errno) {
	if f.closed {
		return 0, experimentalsys.EBADF
	}
	return f.dev, 0
}

// Ino implements experimentalsys.File.
func (f *file) Ino() (sys.Inode, experimentalsys.Errno) {
	if f.closed {
		return 0, experimentalsys.EBADF
	}
	return f.ino, 0
}

// IsDir implements experimentalsys.File.
func (f *file) IsDir() (bool, experimentalsys.Errno) {
	if f.closed {
		return false, experimentalsys.EBADF
	}
	return f.isDir, 0
}

// IsAppend implements experimentalsys.File.
func (f *file) IsAppend() bool { return f.flag&experimentalsys.O_APPEND != 0 }

// SetAppend implements experimentalsys.File, with fcntl on the descriptor.
func (f *file) SetAppend(enable bool) experimentalsys.Errno {
	if errno := f.check(false); errno != 0 {
		return errno
	}
	fl, err := unix.FcntlInt(uintptr(f.fd), unix.F_GETFL, 0)
	if err != nil {
		return errnoOf(err)
	}
	if enable {
		fl |= unix.O_APPEND
	} else {
		fl &^= unix.O_APPEND
	}
	if _, err := unix.FcntlInt(uintptr(f.fd), unix.F_SETFL, fl); err != nil {
		return errnoOf(err)
	}
	if enable {
		f.flag |= experimentalsys.O_APPEND
	} else {
		f.flag &^= experimentalsys.O_APPEND
	}
	return 0
}

// IsNonblock implements experimentalsys.PollableFile.
func (f *file) IsNonblock() bool { return f.flag&experimentalsys.O_NONBLOCK != 0 }

// SetNonblock implements experimentalsys.PollableFile. It changes nothing
// for regular files and directories, the only files opened, but the guest
// may ask.
func (f *file) SetNonblock(enable bool) experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	if err := unix.SetNonblock(f.fd, enable); err != nil {
		return errnoOf(err)
	}
	if enable {
		f.flag |= experimentalsys.O_NONBLOCK
	} else {
		f.flag &^= experimentalsys.O_NONBLOCK
	}
	return 0
}

// Poll implements experimentalsys.Pollable: regular files and directories
// are always ready.
func (f *file) Poll(experimentalsys.Pflag, int32) (bool, experimentalsys.Errno) {
	if f.closed {
		return false, experimentalsys.EBADF
	}
	return true, 0
}

// check fails on a closed file, and on a directory unless dirOK.
func (f *file) check(dirOK bool) experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	if f.isDir && !dirOK {
		return experimentalsys.EISDIR
	}
	return 0
}

// checkWrite is check for calls that change the file's contents.
func (f *file) checkWrite() experimentalsys.Errno {
	if errno := f.check(false); errno != 0 {
		return errno
	}
	if f.noWrite {
		return experimentalsys.EBADF
	}
	return 0
}

// Stat implements experimentalsys.File.
func (f *file) Stat() (sys.Stat_t, experimentalsys.Errno) {
	if f.closed {
		return sys.Stat_t{}, experimentalsys.EBADF
	}
	var st unix.Stat_t
	if err := unix.Fstat(f.fd, &st); err != nil {
		return sys.Stat_t{}, errnoOf(err)
	}
	return statOf(&st), 0
}

// Read implements experimentalsys.File.
func (f *file) Read(buf []byte) (int, experimentalsys.Errno) {
	if errno := f.check(false); errno != 0 || len(buf) == 0 {
		return 0, errno
	}
	n, err := retry(func() (int, error) { return unix.Read(f.fd, buf) })
	return max(n, 0), errnoOf(err)
}

// Pread implements experimentalsys.File.
func (f *file) Pread(buf []byte, off int64) (int, experimentalsys.Errno) {
	if errno := f.check(false); errno != 0 || len(buf) == 0 {
		return 0, errno
	}
	if off < 0 {
		return 0, experimentalsys.EINVAL
	}
	n, err := retry(func() (int, error) { return unix.Pread(f.fd, buf, off) })
	return max(n, 0), errnoOf(err)
}

// offset is a file offset. Being an alias, it keeps Seek's signature the one
// experimentalsys.File asks for while go vet no longer mistakes Seek for an
// io.Seeker's.
type offset = int64

// Seek implements experimentalsys.File. A directory can only be rewound
// (offset 0 from the start), which makes Readdir start over and see the
// directory as it is now.
func (f *file) Seek(off offset, whence int) (offset, experimentalsys.Errno) {
	if f.closed {
		return 0, experimentalsys.EBADF
	}
	if whence < io.SeekStart || whence > io.SeekEnd {
		return 0, experimentalsys.EINVAL
	}
	if f.isDir {
		if off != 0 || whence != io.SeekStart {
			return 0, experimentalsys.EISDIR
		}
		f.dirPos, f.dirEnd = 0, 0
	}
	pos, err := unix.Seek(f.fd, off, whence)
	return pos, errnoOf(err)
}

// Write implements experimentalsys.File.
func (f *file) Write(buf []byte) (int, experimentalsys.Errno) {
	if errno := f.checkWrite(); errno != 0 || len(buf) == 0 {
		return 0, errno
	}
	var n int
	for n < len(buf) {
		m, err := retry(func() (int, error) { return unix.Write(f.fd, buf[n:]) })
		if err != nil {
			return n, errnoOf(err)
		}
		if m == 0 {
			return n, experimentalsys.EIO
		}
		n += m
	}
	return n, 0
}

// Pwrite implements experimentalsys.File.
func (f *file) Pwrite(buf []byte, off int64) (int, experimentalsys.Errno) {
	if errno := f.checkWrite(); errno != 0 || len(buf) == 0 {
		return 0, errno
	}
	if off < 0 {
		return 0, experimentalsys.EINVAL
	}
	var n int
	for n < len(buf) {
		m, err := retry(func() (int, error) { return unix.Pwrite(f.fd, buf[n:], off+int64(n)) })
		if err != nil {
			return n, errnoOf(err)
		}
		if m == 0 {
			return n, experimentalsys.EIO
		}
		n += m
	}
	return n, 0
}

// Truncate implements experimentalsys.File.
func (f *file) Truncate(size int64) experimentalsys.Errno {
	if size < 0 {
		return experimentalsys.EINVAL
	}
	if errno := f.checkWrite(); errno != 0 {
		return errno
	}
	_, err := retry(func() (int, error) { return 0, unix.Ftruncate(f.fd, size) })
	return errnoOf(err)
}

// Sync implements experimentalsys.File.
func (f *file) Sync() experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	_, err := retry(func() (int, error) { return 0, unix.Fsync(f.fd) })
	return errnoOf(err)
}

// Datasync implements experimentalsys.File.
func (f *file) Datasync() experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	_, err := retry(func() (int, error) { return 0, unix.Fdatasync(f.fd) })
	return errnoOf(err)
}

// Utimens implements experimentalsys.File. In a read-only mount it fails
// with EROFS: the kernel would let the owner set times through a read-only
// descriptor.
func (f *file) Utimens(atim, mtim int64) experimentalsys.Errno {
	if f.closed {
		return experimentalsys.EBADF
	}
	if f.mountRO {
		return experimentalsys.EROFS
	}
	ts := timespecs(atim, mtim)
	// utimensat(fd, NULL, ts, 0) is futimens(fd, ts); x/sys/unix has no
	// wrapper taking a NULL path.
	_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(f.fd), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
	if e != 0 {
		return errnoOf(e)
	}
	return 0
}

// Close implements experimentalsys.File.
func (f *file) Close() experimentalsys.Errno {
	if f.closed {
		return 0
	}
	f.closed = true
	f.dirBuf = nil
	return errnoOf(unix.Close(f.fd))
}

// retry runs a system call again while it is interrupted by a signal.
func retry(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if err != unix.EINTR {
			return n, err
		}
	}
}
