//go:build wasip1

// Command fsescape is a test fixture: a plugin that tries to leave the
// directories allowed_paths grants it, with the file operations of Go's os
// package (each a WASI call the gateway serves). Its tools are the
// primitives an attack is made of; the end-to-end test (cmd/wasmgate,
// e2e_files_test.go) strings them into escapes (create a link out of a
// read-write mount and read or write through it, follow a link already in
// a read-only mount, climb out with "..", write to a read-only mount by
// every means) and into the uses a grant must keep allowing.
//
// Every tool takes guest paths. It outputs what it read or did, or fails
// with the error and its errno's name, e.g.
// "open /data/l: operation not permitted (EPERM)".
//
//	read     {path}               the file's content (os.ReadFile)
//	write    {path, data, flags}  os.OpenFile with flags from "create",
//	                              "excl", "trunc", "append" (none: an existing
//	                              file, written from its start), then Write
//	truncate {path, size}         os.Truncate
//	mkdir    {path}               os.Mkdir
//	rename   {from, to}           os.Rename
//	remove   {path}               os.Remove (a file or an empty directory)
//	chmod    {path, mode}         os.Chmod (mode: octal digits)
//	chtimes  {path, mtime}        os.Chtimes (mtime: Unix seconds)
//	symlink  {target, path}       os.Symlink
//	link     {from, to}           os.Link
//	readlink {path}               os.Readlink
//	stat     {path}, lstat {path} "<mode> <size>"
//	list     {path}               the entries' names, one a line
//	raw      {dir, path, data}    path_open of path relative to directory
//	                              dir's descriptor, bypassing the lexical
//	                              cleaning Go does (so "../x" reaches the
//	                              host as is), then read it, or write data
//	                              when data is set
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
)

func main() {}

var tools = []struct{ name, desc, schema string }{
	{"read", "Reads a file", `{"path":{"type":"string"}}`},
	{"write", "Opens a file with flags and writes data", `{"path":{"type":"string"},"data":{"type":"string"},"flags":{"type":"array","items":{"type":"string"}}}`},
	{"truncate", "Truncates a file", `{"path":{"type":"string"},"size":{"type":"number"}}`},
	{"mkdir", "Makes a directory", `{"path":{"type":"string"}}`},
	{"rename", "Renames", `{"from":{"type":"string"},"to":{"type":"string"}}`},
	{"remove", "Removes a file or an empty directory", `{"path":{"type":"string"}}`},
	{"chmod", "Changes a file's mode", `{"path":{"type":"string"},"mode":{"type":"string"}}`},
	{"chtimes", "Sets a file's times", `{"path":{"type":"string"},"mtime":{"type":"number"}}`},
	{"symlink", "Makes a symbolic link", `{"target":{"type":"string"},"path":{"type":"string"}}`},
	{"link", "Makes a hard link", `{"from":{"type":"string"},"to":{"type":"string"}}`},
	{"readlink", "Reads a symbolic link", `{"path":{"type":"string"}}`},
	{"stat", "Stats a path", `{"path":{"type":"string"}}`},
	{"lstat", "Stats a path without following a link", `{"path":{"type":"string"}}`},
	{"list", "Lists a directory", `{"path":{"type":"string"}}`},
	{"raw", "Opens a path relative to a directory with path_open", `{"dir":{"type":"string"},"path":{"type":"string"},"data":{"type":"string"}}`},
}

//go:wasmexport tools_information
func toolsInformation() int32 {
	var ts []wasmgate.Tool
	for _, t := range tools {
		ts = append(ts, wasmgate.Tool{Name: t.name, Description: t.desc, InputSchema: wasmgate.Schema(`{"type":"object","properties":` + t.schema + `}`)})
	}
	return wasmgate.Information(ts)
}

type args struct {
	Path   string   `json:"path"`
	Data   *string  `json:"data"`
	Flags  []string `json:"flags"`
	Size   int64    `json:"size"`
	From   string   `json:"from"`
	To     string   `json:"to"`
	Mode   string   `json:"mode"`
	Mtime  int64    `json:"mtime"`
	Target string   `json:"target"`
	Dir    string   `json:"dir"`
}

// run decodes the arguments, runs op and outputs its result, or fails
// with its error and errno name.
func run(op func(a args) (string, error)) int32 {
	var a args
	if err := wasmgate.Args(&a); err != nil {
		return wasmgate.Fail(err)
	}
	out, err := op(a)
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return wasmgate.Fail(fmt.Errorf("%w (%s)", err, errnoName(errno)))
		}
		return wasmgate.Fail(err)
	}
	return wasmgate.Text(out)
}

func errnoName(e syscall.Errno) string {
	names := map[syscall.Errno]string{
		syscall.EPERM: "EPERM", syscall.EROFS: "EROFS", syscall.EBADF: "EBADF",
		syscall.ENOENT: "ENOENT", syscall.EEXIST: "EEXIST", syscall.EISDIR: "EISDIR",
		syscall.ENOTDIR: "ENOTDIR", syscall.ENOSYS: "ENOSYS", syscall.EACCES: "EACCES",
		syscall.EINVAL: "EINVAL", syscall.ENOTEMPTY: "ENOTEMPTY", syscall.ELOOP: "ELOOP",
		syscall.ENOTCAPABLE: "ENOTCAPABLE", syscall.EXDEV: "EXDEV", syscall.EIO: "EIO",
	}
	if n, ok := names[e]; ok {
		return n
	}
	return "errno " + strconv.Itoa(int(e))
}

//go:wasmexport read
func read() int32 {
	return run(func(a args) (string, error) {
		b, err := os.ReadFile(a.Path)
		return string(b), err
	})
}

//go:wasmexport write
func write() int32 {
	return run(func(a args) (string, error) {
		flag := os.O_WRONLY
		for _, f := range a.Flags {
			switch f {
			case "create":
				flag |= os.O_CREATE
			case "excl":
				flag |= os.O_EXCL
			case "trunc":
				flag |= os.O_TRUNC
			case "append":
				flag |= os.O_APPEND
			default:
				return "", fmt.Errorf("unknown flag %q", f)
			}
		}
		f, err := os.OpenFile(a.Path, flag, 0o644)
		if err != nil {
			return "", err
		}
		data := ""
		if a.Data != nil {
			data = *a.Data
		}
		n, err := f.WriteString(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return fmt.Sprintf("wrote %d bytes", n), err
	})
}

//go:wasmexport truncate
func truncate() int32 {
	return run(func(a args) (string, error) { return "truncated", os.Truncate(a.Path, a.Size) })
}

//go:wasmexport mkdir
func mkdir() int32 {
	return run(func(a args) (string, error) { return "made", os.Mkdir(a.Path, 0o755) })
}

//go:wasmexport rename
func rename() int32 {
	return run(func(a args) (string, error) { return "renamed", os.Rename(a.From, a.To) })
}

//go:wasmexport remove
func remove() int32 {
	return run(func(a args) (string, error) { return "removed", os.Remove(a.Path) })
}

//go:wasmexport chmod
func chmod() int32 {
	return run(func(a args) (string, error) {
		m, err := strconv.ParseUint(a.Mode, 8, 32)
		if err != nil {
			return "", err
		}
		return "changed", os.Chmod(a.Path, os.FileMode(m))
	})
}

//go:wasmexport chtimes
func chtimes() int32 {
	return run(func(a args) (string, error) {
		t := time.Unix(a.Mtime, 0)
		return "changed", os.Chtimes(a.Path, t, t)
	})
}

//go:wasmexport symlink
func symlink() int32 {
	return run(func(a args) (string, error) { return "linked", os.Symlink(a.Target, a.Path) })
}

//go:wasmexport link
func link() int32 {
	return run(func(a args) (string, error) { return "linked", os.Link(a.From, a.To) })
}

//go:wasmexport readlink
func readlink() int32 {
	return run(func(a args) (string, error) { return os.Readlink(a.Path) })
}

func describe(fi os.FileInfo, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%v %d", fi.Mode(), fi.Size()), nil
}

//go:wasmexport stat
func stat() int32 {
	return run(func(a args) (string, error) { return describe(os.Stat(a.Path)) })
}

//go:wasmexport lstat
func lstat() int32 {
	return run(func(a args) (string, error) { return describe(os.Lstat(a.Path)) })
}

//go:wasmexport list
func list() int32 {
	return run(func(a args) (string, error) {
		ents, err := os.ReadDir(a.Path)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return strings.Join(names, "\n"), err
	})
}

//go:wasmimport wasi_snapshot_preview1 path_open
func pathOpen(dirfd int32, dirflags uint32, path unsafe.Pointer, pathLen uint32, oflags uint32, rightsBase, rightsInheriting uint64, fdflags uint32, fd unsafe.Pointer) uint32

const (
	lookupSymlinkFollow = 1
	oflagCreat          = 1
	oflagTrunc          = 8
	rightFDRead         = 1 << 1
	rightFDWrite        = 1 << 6
)

//go:wasmexport raw
func raw() int32 {
	return run(func(a args) (string, error) {
		dir, err := os.Open(a.Dir)
		if err != nil {
			return "", err
		}
		defer dir.Close()
		var oflags uint32
		var rights uint64 = rightFDRead
		if a.Data != nil {
			oflags = oflagCreat | oflagTrunc
			rights |= rightFDWrite
		}
		p := []byte(a.Path)
		if len(p) == 0 {
			return "", errors.New("empty path")
		}
		var fd int32
		if e := pathOpen(int32(dir.Fd()), lookupSymlinkFollow, unsafe.Pointer(&p[0]), uint32(len(p)), oflags, rights, rights, 0, unsafe.Pointer(&fd)); e != 0 {
			return "", &os.PathError{Op: "path_open", Path: a.Path, Err: syscall.Errno(e)}
		}
		f := os.NewFile(uintptr(fd), a.Path)
		defer f.Close()
		if a.Data != nil {
			n, err := f.WriteString(*a.Data)
			return fmt.Sprintf("wrote %d bytes", n), err
		}
		b, err := io.ReadAll(f)
		return string(b), err
	})
}
