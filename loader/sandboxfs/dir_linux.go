package sandboxfs

import (
	"encoding/binary"
	"io/fs"
	"unsafe"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"golang.org/x/sys/unix"
)

// Readdir implements experimentalsys.File. It leaves out "." and "..".
func (f *file) Readdir(n int) ([]experimentalsys.Dirent, experimentalsys.Errno) {
	if f.closed || !f.isDir {
		return nil, experimentalsys.EBADF
	}
	var out []experimentalsys.Dirent
	for n <= 0 || len(out) < n {
		if f.dirPos >= f.dirEnd {
			if f.dirBuf == nil {
				f.dirBuf = make([]byte, 8<<10)
			}
			m, err := retry(func() (int, error) { return unix.Getdents(f.fd, f.dirBuf) })
			if err != nil {
				return nil, errnoOf(err)
			}
			if m <= 0 {
				break // end of the directory
			}
			f.dirPos, f.dirEnd = 0, m
		}
		d, ok := f.nextDirent()
		if !ok {
			return nil, experimentalsys.EIO
		}
		if d.Ino == 0 || d.Name == "." || d.Name == ".." {
			continue
		}
		out = append(out, d)
	}
	return out, 0
}

// Layout of struct linux_dirent64.
const (
	direntIno    = unsafe.Offsetof(unix.Dirent{}.Ino)
	direntReclen = unsafe.Offsetof(unix.Dirent{}.Reclen)
	direntType   = unsafe.Offsetof(unix.Dirent{}.Type)
	direntName   = unsafe.Offsetof(unix.Dirent{}.Name)
)

// nextDirent decodes the entry at dirPos and moves past it.
func (f *file) nextDirent() (experimentalsys.Dirent, bool) {
	rec := f.dirBuf[f.dirPos:f.dirEnd]
	if len(rec) < int(direntName) {
		return experimentalsys.Dirent{}, false
	}
	reclen := int(binary.NativeEndian.Uint16(rec[direntReclen:]))
	if reclen <= int(direntName) || reclen > len(rec) {
		return experimentalsys.Dirent{}, false
	}
	f.dirPos += reclen
	name := rec[direntName:reclen]
	for i, c := range name {
		if c == 0 {
			name = name[:i]
			break
		}
	}
	d := experimentalsys.Dirent{Ino: binary.NativeEndian.Uint64(rec[direntIno:]), Name: string(name)}
	switch rec[direntType] {
	case unix.DT_REG:
	case unix.DT_DIR:
		d.Type = fs.ModeDir
	case unix.DT_LNK:
		d.Type = fs.ModeSymlink
	case unix.DT_FIFO:
		d.Type = fs.ModeNamedPipe
	case unix.DT_SOCK:
		d.Type = fs.ModeSocket
	case unix.DT_CHR:
		d.Type = fs.ModeDevice | fs.ModeCharDevice
	case unix.DT_BLK:
		d.Type = fs.ModeDevice
	default:
		// The file system does not say: ask, without following the
		// entry (a single name relative to this directory).
		if st, err := lstatAt(f.fd, d.Name); err == nil {
			d.Type = fileMode(st.Mode).Type()
		} else {
			d.Type = fs.ModeIrregular
		}
	}
	return d, true
}
