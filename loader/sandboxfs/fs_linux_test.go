package sandboxfs

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

const secret = "TOPSECRET-0123456789"

// tree is a mount with symbolic links pointing in and out, beside a
// directory outside it holding a secret.
//
//	out/secret.txt                 the canary, never to be read or changed
//	mnt/file.txt                   "file"
//	mnt/sub/inner.txt              "inner"
//	mnt/link-in     -> sub/inner.txt
//	mnt/link-subdir -> sub
//	mnt/link-abs    -> <abs>/out/secret.txt
//	mnt/link-rel    -> ../out/secret.txt
//	mnt/link-dir    -> ../out
//	mnt/sub/up      -> ../../out/secret.txt
//	mnt/dangling    -> ../out/created.txt
//	mnt/proc        -> /proc/self/environ
//	mnt/fifo                       a named pipe
type tree struct {
	base, mnt, out string
}

func newTree(t *testing.T) tree {
	t.Helper()
	base := t.TempDir()
	tr := tree{base: base, mnt: filepath.Join(base, "mnt"), out: filepath.Join(base, "out")}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(tr.mnt, "sub"), 0o755))
	must(os.MkdirAll(tr.out, 0o755))
	must(os.WriteFile(filepath.Join(tr.out, "secret.txt"), []byte(secret), 0o600))
	must(os.WriteFile(filepath.Join(tr.mnt, "file.txt"), []byte("file"), 0o644))
	must(os.WriteFile(filepath.Join(tr.mnt, "sub", "inner.txt"), []byte("inner"), 0o644))
	for link, target := range map[string]string{
		"link-in":     "sub/inner.txt",
		"link-subdir": "sub",
		"link-abs":    filepath.Join(tr.out, "secret.txt"),
		"link-rel":    "../out/secret.txt",
		"link-dir":    "../out",
		"sub/up":      "../../out/secret.txt",
		"dangling":    "../out/created.txt",
		"proc":        "/proc/self/environ",
	} {
		must(os.Symlink(target, filepath.Join(tr.mnt, link)))
	}
	must(syscall.Mkfifo(filepath.Join(tr.mnt, "fifo"), 0o644))
	// Old times, so that a change shows whatever the clock's resolution.
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	must(os.Chtimes(filepath.Join(tr.out, "secret.txt"), old, old))
	must(os.Chtimes(tr.out, old, old))
	return tr
}

// fileState is what must not change of a file outside the mount.
type fileState struct {
	mode    fs.FileMode
	mtime   time.Time
	content string
}

// outside records every file under out.
func (tr tree) outside(t *testing.T) map[string]fileState {
	t.Helper()
	m := map[string]fileState{}
	err := filepath.WalkDir(tr.out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		st := fileState{mode: info.Mode(), mtime: info.ModTime()}
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			st.content = string(b)
		}
		m[p] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkOutside fails if anything outside the mount changed since before.
func (tr tree) checkOutside(t *testing.T, before map[string]fileState) {
	t.Helper()
	after := tr.outside(t)
	for p, st := range after {
		if b, ok := before[p]; !ok {
			t.Errorf("%s was created outside the mount", p)
		} else if b != st {
			t.Errorf("%s changed outside the mount: %+v -> %+v", p, b, st)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s was removed outside the mount", p)
		}
	}
}

func newFS(t *testing.T, dir string, readOnly bool) *FS {
	t.Helper()
	f, err := New(dir, readOnly)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// readAll opens p read-only and reads it whole.
func readAll(fsys *FS, p string) (string, experimentalsys.Errno) {
	f, errno := fsys.OpenFile(p, experimentalsys.O_RDONLY, 0)
	if errno != 0 {
		return "", errno
	}
	defer f.Close()
	var b bytes.Buffer
	buf := make([]byte, 7)
	for {
		n, errno := f.Read(buf)
		b.Write(buf[:n])
		if errno != 0 {
			return b.String(), errno
		}
		if n == 0 {
			return b.String(), 0
		}
	}
}

func wantErrno(t *testing.T, what string, got, want experimentalsys.Errno) {
	t.Helper()
	if got != want {
		t.Errorf("%s: errno %v, want %v", what, got, want)
	}
}

// escapes are paths that leave the mount one way or another.
var escapes = []string{
	"link-abs", "link-rel", "link-dir/secret.txt", "sub/up", "proc",
	"../out/secret.txt", "/../out/secret.txt", "sub/../../out/secret.txt",
	"link-subdir/up", "link-subdir/../link-rel",
}

func TestEscapesRefused(t *testing.T) {
	for _, ro := range []bool{false, true} {
		t.Run(map[bool]string{false: "rw", true: "ro"}[ro], func(t *testing.T) {
			tr := newTree(t)
			before := tr.outside(t)
			fsys := newFS(t, tr.mnt, ro)
			for _, p := range escapes {
				if s, errno := readAll(fsys, p); errno != experimentalsys.EPERM || strings.Contains(s, secret) {
					t.Errorf("read %q: %q, errno %v; want EPERM", p, s, errno)
				}
				if _, errno := fsys.Stat(p); errno != experimentalsys.EPERM {
					t.Errorf("stat %q: errno %v, want EPERM", p, errno)
				}
				if _, errno := fsys.Stat(p + "/"); errno != experimentalsys.EPERM {
					t.Errorf("stat %q: errno %v, want EPERM", p+"/", errno)
				}
			}
			for _, p := range []string{"link-dir/", "link-dir/secret.txt", "../out", "link-dir/./"} {
				if _, errno := fsys.Lstat(p); errno != experimentalsys.EPERM {
					t.Errorf("lstat %q: errno %v, want EPERM", p, errno)
				}
				if _, errno := fsys.Readlink(p); errno == 0 {
					t.Errorf("readlink %q succeeded", p)
				}
			}
			if _, errno := fsys.OpenFile("link-dir", experimentalsys.O_RDONLY|experimentalsys.O_DIRECTORY, 0); errno != experimentalsys.EPERM {
				t.Errorf("open directory link-dir: errno %v, want EPERM", errno)
			}
			// Lstat and Readlink see the links themselves, inside the mount.
			st, errno := fsys.Lstat("link-abs")
			if errno != 0 || st.Mode.Type() != fs.ModeSymlink {
				t.Errorf("lstat link-abs: %v, errno %v; want a symbolic link", st.Mode, errno)
			}
			if target, errno := fsys.Readlink("link-rel"); errno != 0 || target != "../out/secret.txt" {
				t.Errorf("readlink link-rel = %q, errno %v", target, errno)
			}

			// Changes through the links or out of the mount: each is
			// refused before anything happens (EPERM; a read-only mount
			// may refuse with EROFS first).
			refused := func(what string, got experimentalsys.Errno) {
				t.Helper()
				if got != experimentalsys.EPERM && (!ro || got != experimentalsys.EROFS) {
					t.Errorf("%s: errno %v, want EPERM (or EROFS in a read-only mount)", what, got)
				}
			}
			for _, p := range append(escapes, "dangling", "link-dir/created.txt") {
				for _, flag := range []experimentalsys.Oflag{
					experimentalsys.O_WRONLY | experimentalsys.O_TRUNC,
					experimentalsys.O_RDWR | experimentalsys.O_APPEND,
					experimentalsys.O_WRONLY | experimentalsys.O_CREAT,
				} {
					refused(fmt.Sprintf("open %q with %#x", p, flag), openErrno(fsys, p, flag))
				}
				refused("chmod "+p, fsys.Chmod(p, 0o777))
				refused("utimens "+p, fsys.Utimens(p, 0, 0))
				refused("link "+p, fsys.Link(p, "stolen"))
			}
			for _, p := range []string{"link-dir/secret.txt", "../out/secret.txt", "link-dir/new"} {
				refused("unlink "+p, fsys.Unlink(p))
				refused("mkdir "+p, fsys.Mkdir(p, 0o777))
				refused("rmdir "+p, fsys.Rmdir(p))
				refused("rename from "+p, fsys.Rename(p, "stolen"))
				refused("rename to "+p, fsys.Rename("file.txt", p))
				refused("link to "+p, fsys.Link("file.txt", p))
			}
			if !ro {
				wantErrno(t, "symlink", fsys.Symlink("../out/secret.txt", "mine"), experimentalsys.EPERM)
				wantErrno(t, "symlink", fsys.Symlink(filepath.Join(tr.out, "secret.txt"), "mine"), experimentalsys.EPERM)
				wantErrno(t, "symlink", fsys.Symlink("file.txt", "mine"), experimentalsys.EPERM)
				if _, err := os.Lstat(filepath.Join(tr.mnt, "mine")); err == nil {
					t.Error("a symbolic link was created")
				}
				// A hard link to a link would be a new link.
				wantErrno(t, "link to link-in", fsys.Link("link-in", "hard"), experimentalsys.EPERM)
			}
			if _, err := os.Lstat(filepath.Join(tr.mnt, "stolen")); err == nil {
				t.Error("mnt/stolen was created")
			}
			tr.checkOutside(t, before)
		})
	}
}

func TestInsideMount(t *testing.T) {
	tr := newTree(t)
	fsys := newFS(t, tr.mnt, false)
	for p, want := range map[string]string{
		"file.txt": "file", "/file.txt": "file", "sub/inner.txt": "inner",
		"link-in": "inner", "link-subdir/inner.txt": "inner", "sub/../file.txt": "file",
	} {
		if got, errno := readAll(fsys, p); errno != 0 || got != want {
			t.Errorf("read %q = %q, errno %v; want %q", p, got, errno, want)
		}
	}
	if st, errno := fsys.Stat("link-in"); errno != 0 || !st.Mode.IsRegular() || st.Size != 5 {
		t.Errorf("stat link-in = %+v, errno %v", st, errno)
	}
	if st, errno := fsys.Stat("link-subdir/"); errno != 0 || !st.Mode.IsDir() {
		t.Errorf("stat link-subdir/ = %+v, errno %v", st, errno)
	}
	if _, errno := fsys.OpenFile("file.txt/", experimentalsys.O_RDONLY, 0); errno != experimentalsys.ENOTDIR {
		t.Errorf("open file.txt/: errno %v, want ENOTDIR", errno)
	}

	// Create, write, read back, truncate, rename, link, remove.
	f, errno := fsys.OpenFile("sub/new.txt", experimentalsys.O_RDWR|experimentalsys.O_CREAT|experimentalsys.O_EXCL, 0o4777)
	if errno != 0 {
		t.Fatalf("create: %v", errno)
	}
	if n, errno := f.Write([]byte("hello world")); n != 11 || errno != 0 {
		t.Fatalf("write: %d, %v", n, errno)
	}
	if n, errno := f.Pwrite([]byte("W"), 6); n != 1 || errno != 0 {
		t.Fatalf("pwrite: %d, %v", n, errno)
	}
	buf := make([]byte, 5)
	if n, errno := f.Pread(buf, 6); n != 5 || errno != 0 || string(buf) != "World" {
		t.Fatalf("pread: %q, %v", buf[:n], errno)
	}
	if errno := f.Truncate(5); errno != 0 {
		t.Fatalf("truncate: %v", errno)
	}
	if pos, errno := f.Seek(0, io.SeekEnd); pos != 5 || errno != 0 {
		t.Fatalf("seek end: %d, %v", pos, errno)
	}
	pf := f.(experimentalsys.PollableFile)
	if errno := pf.SetNonblock(true); errno != 0 || !pf.IsNonblock() {
		t.Fatalf("set nonblock: %v", errno)
	}
	if ready, errno := pf.Poll(experimentalsys.POLLIN, 0); !ready || errno != 0 {
		t.Fatalf("poll: %v, %v", ready, errno)
	}
	if errno := f.Utimens(1e9, 2e9); errno != 0 {
		t.Fatalf("futimens: %v", errno)
	}
	st, errno := f.Stat()
	if errno != 0 || st.Size != 5 || st.Mtim != 2e9 || st.Mode.Perm() != 0o777&^umask(t) || st.Mode&fs.ModeSetuid != 0 {
		t.Fatalf("stat: %+v (mode %v), %v", st, st.Mode, errno)
	}
	f.Close()
	if b, _ := os.ReadFile(filepath.Join(tr.mnt, "sub", "new.txt")); string(b) != "hello" {
		t.Fatalf("host sees %q", b)
	}
	if errno := fsys.Chmod("sub/new.txt", fs.ModeSetuid|0o640); errno != 0 {
		t.Fatalf("chmod: %v", errno)
	}
	if info, _ := os.Stat(filepath.Join(tr.mnt, "sub", "new.txt")); info.Mode() != 0o640 {
		t.Fatalf("mode after chmod: %v, want -rw-r----- (no setuid)", info.Mode())
	}
	if errno := fsys.Utimens("link-in", experimentalsys.UTIME_OMIT, 3e9); errno != 0 {
		t.Fatalf("utimens through link-in: %v", errno)
	}
	if info, _ := os.Stat(filepath.Join(tr.mnt, "sub", "inner.txt")); info.ModTime().UnixNano() != 3e9 {
		t.Fatalf("mtime after utimens through link-in: %v", info.ModTime())
	}
	for _, step := range []struct {
		what  string
		errno experimentalsys.Errno
	}{
		{"mkdir d", fsys.Mkdir("d", 0o755)},
		{"mkdir d again", fsys.Mkdir("d", 0o755) ^ experimentalsys.EEXIST},
		{"rename", fsys.Rename("sub/new.txt", "d/renamed.txt")},
		{"link", fsys.Link("d/renamed.txt", "d/hard.txt")},
		{"unlink d/ is a directory", fsys.Unlink("d/") ^ experimentalsys.EISDIR},
		{"unlink file/ is not a directory", fsys.Unlink("d/hard.txt/") ^ experimentalsys.ENOTDIR},
		{"rmdir non-empty", fsys.Rmdir("d") ^ experimentalsys.ENOTEMPTY},
		{"unlink", fsys.Unlink("d/renamed.txt")},
	} {
		if step.errno != 0 {
			t.Fatalf("%s: %v", step.what, step.errno)
		}
	}
	if s, errno := readAll(fsys, "d/hard.txt"); s != "hello" || errno != 0 {
		t.Fatalf("read hard link: %q, %v", s, errno)
	}
	wantErrno(t, "unlink d/hard.txt", fsys.Unlink("d/hard.txt"), 0)
	wantErrno(t, "rmdir d", fsys.Rmdir("d/"), 0)
	// Removing a link removes the link, not its target.
	wantErrno(t, "unlink link-rel", fsys.Unlink("link-rel"), 0)
	if _, err := os.Stat(filepath.Join(tr.out, "secret.txt")); err != nil {
		t.Fatal(err)
	}

	// Other kinds of files are refused, and opening a FIFO does not block.
	if _, errno := fsys.OpenFile("fifo", experimentalsys.O_RDONLY, 0); errno != experimentalsys.EPERM {
		t.Errorf("open fifo: errno %v, want EPERM", errno)
	}
}

func umask(t *testing.T) fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
}

func TestReaddir(t *testing.T) {
	tr := newTree(t)
	fsys := newFS(t, tr.mnt, true)
	d, errno := fsys.OpenFile(".", experimentalsys.O_RDONLY|experimentalsys.O_DIRECTORY, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	defer d.Close()
	list := func() map[string]fs.FileMode {
		m := map[string]fs.FileMode{}
		for {
			ents, errno := d.Readdir(3)
			if errno != 0 {
				t.Fatal(errno)
			}
			for _, e := range ents {
				if e.Ino == 0 {
					t.Errorf("%s: no inode", e.Name)
				}
				m[e.Name] = e.Type
			}
			if len(ents) < 3 {
				return m
			}
		}
	}
	got := list()
	want := map[string]fs.FileMode{
		"file.txt": 0, "sub": fs.ModeDir, "fifo": fs.ModeNamedPipe,
		"link-in": fs.ModeSymlink, "link-subdir": fs.ModeSymlink, "link-abs": fs.ModeSymlink,
		"link-rel": fs.ModeSymlink, "link-dir": fs.ModeSymlink, "dangling": fs.ModeSymlink, "proc": fs.ModeSymlink,
	}
	if len(got) != len(want) {
		t.Errorf("readdir = %v, want %v", got, want)
	}
	for name, typ := range want {
		if g, ok := got[name]; !ok || g != typ {
			t.Errorf("readdir: %s = %v (present %v), want %v", name, g, ok, typ)
		}
	}
	// Rewinding reads the directory as it is now.
	if err := os.WriteFile(filepath.Join(tr.mnt, "late.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errno := d.Seek(0, io.SeekStart); errno != 0 {
		t.Fatal(errno)
	}
	if got := list(); len(got) != len(want)+1 {
		t.Errorf("after rewind: %v", slices.Sorted(func(yield func(string) bool) {
			for k := range got {
				if !yield(k) {
					return
				}
			}
		}))
	}
	if _, errno := d.Seek(5, io.SeekStart); errno != experimentalsys.EISDIR {
		t.Errorf("seek directory to 5: errno %v, want EISDIR", errno)
	}
	if _, errno := d.Read(make([]byte, 1)); errno != experimentalsys.EISDIR {
		t.Errorf("read directory: errno %v, want EISDIR", errno)
	}
}

func TestReadOnly(t *testing.T) {
	tr := newTree(t)
	fsys := newFS(t, tr.mnt, true)
	file := filepath.Join(tr.mnt, "file.txt")
	before, _ := os.Stat(file)

	if s, errno := readAll(fsys, "file.txt"); s != "file" || errno != 0 {
		t.Fatalf("read: %q, %v", s, errno)
	}
	if s, errno := readAll(fsys, "link-in"); s != "inner" || errno != 0 {
		t.Fatalf("read link-in: %q, %v", s, errno)
	}
	for _, flag := range []experimentalsys.Oflag{
		experimentalsys.O_WRONLY,
		experimentalsys.O_RDWR,
		experimentalsys.O_WRONLY | experimentalsys.O_APPEND,
		experimentalsys.O_RDONLY | experimentalsys.O_TRUNC,
		experimentalsys.O_RDONLY | experimentalsys.O_CREAT | experimentalsys.O_EXCL,
	} {
		wantErrno(t, "open file.txt", openErrno(fsys, "file.txt", flag), experimentalsys.EROFS)
	}
	wantErrno(t, "create missing", openErrno(fsys, "new.txt", experimentalsys.O_RDONLY|experimentalsys.O_CREAT), experimentalsys.EROFS)
	wantErrno(t, "open existing with O_CREAT", openErrno(fsys, "file.txt", experimentalsys.O_RDONLY|experimentalsys.O_CREAT), 0)
	wantErrno(t, "mkdir", fsys.Mkdir("newdir", 0o777), experimentalsys.EROFS)
	wantErrno(t, "rename", fsys.Rename("file.txt", "moved"), experimentalsys.EROFS)
	wantErrno(t, "unlink", fsys.Unlink("file.txt"), experimentalsys.EROFS)
	wantErrno(t, "rmdir", fsys.Rmdir("sub"), experimentalsys.EROFS)
	wantErrno(t, "link", fsys.Link("file.txt", "hard"), experimentalsys.EROFS)
	wantErrno(t, "symlink", fsys.Symlink("file.txt", "soft"), experimentalsys.EROFS)
	wantErrno(t, "chmod", fsys.Chmod("file.txt", 0o777), experimentalsys.EROFS)
	wantErrno(t, "utimens", fsys.Utimens("file.txt", 0, 0), experimentalsys.EROFS)

	f, errno := fsys.OpenFile("file.txt", experimentalsys.O_RDONLY, 0)
	if errno != 0 {
		t.Fatal(errno)
	}
	defer f.Close()
	if _, errno := f.Write([]byte("x")); errno != experimentalsys.EBADF {
		t.Errorf("write: errno %v, want EBADF", errno)
	}
	if _, errno := f.Pwrite([]byte("x"), 0); errno != experimentalsys.EBADF {
		t.Errorf("pwrite: errno %v, want EBADF", errno)
	}
	wantErrno(t, "truncate", f.Truncate(0), experimentalsys.EBADF)
	wantErrno(t, "futimens", f.Utimens(0, 0), experimentalsys.EROFS)
	wantErrno(t, "set append", f.SetAppend(true), 0)
	if _, errno := f.Write([]byte("x")); errno != experimentalsys.EBADF {
		t.Errorf("write in append mode: errno %v, want EBADF", errno)
	}

	after, _ := os.Stat(file)
	if b, _ := os.ReadFile(file); string(b) != "file" || !after.ModTime().Equal(before.ModTime()) || after.Mode() != before.Mode() {
		t.Errorf("file.txt changed: %q %v %v", b, after.ModTime(), after.Mode())
	}
	ents, _ := os.ReadDir(tr.mnt)
	if len(ents) != 10 {
		t.Errorf("the mount has %d entries, want the 10 it was made with", len(ents))
	}
}

func openErrno(fsys *FS, p string, flag experimentalsys.Oflag) experimentalsys.Errno {
	f, errno := fsys.OpenFile(p, flag, 0o666)
	if errno == 0 {
		f.Close()
	}
	return errno
}

// TestRenameRace swaps a directory with a link out of the mount while other
// goroutines open and stat paths through it: every path is resolved in one
// openat2 call, so none may ever reach the secret.
func TestRenameRace(t *testing.T) {
	tr := newTree(t)
	before := tr.outside(t)
	swap := filepath.Join(tr.mnt, "swap")
	if err := os.MkdirAll(filepath.Join(swap, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(swap, "d", "secret.txt"), []byte("benign"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../out", filepath.Join(swap, "l")); err != nil {
		t.Fatal(err)
	}
	fsys := newFS(t, tr.mnt, false)

	stop := make(chan struct{})
	var renamer, readers sync.WaitGroup
	var renames int
	renamer.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = fsys.Rename("swap/d", "swap/tmp")
			_ = fsys.Rename("swap/l", "swap/d")
			_ = fsys.Rename("swap/d", "swap/l")
			_ = fsys.Rename("swap/tmp", "swap/d")
			renames++
		}
	})
	var secretStat syscall.Stat_t
	if err := syscall.Stat(filepath.Join(tr.out, "secret.txt"), &secretStat); err != nil {
		t.Fatal(err)
	}
	var leaks sync.Map
	for i := range 2 {
		hard := fmt.Sprintf("hard%d", i)
		readers.Go(func() {
			for range 3000 {
				if fsys.Link("swap/d/secret.txt", hard) == 0 {
					var st syscall.Stat_t
					if err := syscall.Lstat(filepath.Join(tr.mnt, hard), &st); err == nil && st.Ino == secretStat.Ino {
						leaks.Store("link", hard)
					}
					_ = fsys.Unlink(hard)
				}
				if s, _ := readAll(fsys, "swap/d/secret.txt"); strings.Contains(s, secret) {
					leaks.Store("read", s)
				}
				if f, errno := fsys.OpenFile("swap/d/secret.txt", experimentalsys.O_WRONLY|experimentalsys.O_APPEND, 0); errno == 0 {
					f.Write([]byte("!"))
					f.Close()
				}
				if st, errno := fsys.Stat("swap/d/secret.txt"); errno == 0 && st.Ino == secretStat.Ino {
					leaks.Store("stat", st)
				}
				_ = fsys.Utimens("swap/d/secret.txt", 0, 0)
				_ = fsys.Chmod("swap/d/secret.txt", 0o644)
			}
		})
	}
	readers.Wait()
	close(stop)
	renamer.Wait()
	if renames < 10 {
		t.Errorf("only %d rounds of renames ran alongside the readers", renames)
	}
	leaks.Range(func(k, v any) bool {
		t.Errorf("%v reached the secret: %v", k, v)
		return true
	})
	tr.checkOutside(t, before)
}

func TestClosed(t *testing.T) {
	tr := newTree(t)
	fsys, err := New(tr.mnt, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := fsys.Close(); err != nil {
		t.Fatal(err)
	}
	if _, errno := readAll(fsys, "file.txt"); errno != experimentalsys.EBADF {
		t.Errorf("read after Close: errno %v, want EBADF", errno)
	}
}

func TestNewErrors(t *testing.T) {
	tr := newTree(t)
	if _, err := New(filepath.Join(tr.mnt, "missing"), false); err == nil {
		t.Error("New of a missing directory succeeded")
	}
	if _, err := New(filepath.Join(tr.mnt, "file.txt"), false); err == nil {
		t.Error("New of a file succeeded")
	}
}

func TestParseAllowedPaths(t *testing.T) {
	got := ParseAllowedPaths(map[string]string{"/srv/b": "/b", "ro:/srv/a": "/a", "ro:/x": "/b"})
	want := []Grant{{Host: "/srv/a", Guest: "/a", ReadOnly: true}, {Host: "/srv/b", Guest: "/b"}, {Host: "/x", Guest: "/b", ReadOnly: true}}
	if !slices.Equal(got, want) {
		t.Errorf("ParseAllowedPaths = %+v, want %+v", got, want)
	}
	if m, err := Open(nil); m != nil || err != nil {
		t.Errorf("Open(nil) = %v, %v", m, err)
	}
	if _, err := Open(map[string]string{"/nonexistent-wasmgate": "/x"}); err == nil || !strings.Contains(err.Error(), "/nonexistent-wasmgate") {
		t.Errorf("Open of a missing directory: %v", err)
	}
}
