package main

// File grants (allowed_paths) cannot be escaped: the fsescape fixture
// (testdata/plugins/fsescape) tries every way out of its mounts with Go's
// os package, through the real gateway, and the test checks on the host
// that nothing outside was read or written.

import (
	"crypto/rand"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// fsTree is a snapshot of a directory tree: per path, its type and mode,
// modification time and (for regular files and links) content or target.
type fsTree map[string]string

func snapshot(t *testing.T, root string) fsTree {
	t.Helper()
	tree := fsTree{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		s := fmt.Sprintf("%v %d", info.Mode(), info.ModTime().UnixNano())
		switch {
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s += " " + string(b)
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			s += " -> " + target
		}
		tree[p] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func (before fsTree) diff(t *testing.T, root, what string) {
	t.Helper()
	after := snapshot(t, root)
	for p, s := range after {
		if b, ok := before[p]; !ok {
			t.Errorf("%s: %s was created: %s", what, p, s)
		} else if b != s {
			t.Errorf("%s: %s changed: %q -> %q", what, p, b, s)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s: %s was removed", what, p)
		}
	}
}

func TestFileGrantsCannotBeEscaped(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	out := filepath.Join(base, "out") // never granted
	rw := filepath.Join(base, "rw")   // granted read-write at /data
	ro := filepath.Join(base, "ro")   // granted read-only at /ro
	secret := "SECRET-" + rand.Text()
	envCanary := "ENVCANARY-" + rand.Text()
	mustDo := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{out, filepath.Join(rw, "sub"), filepath.Join(ro, "sub")} {
		mustDo(os.MkdirAll(d, 0o755))
	}
	mustDo(os.WriteFile(filepath.Join(out, "secret.txt"), []byte(secret), 0o644))
	mustDo(os.WriteFile(filepath.Join(rw, "file.txt"), []byte("hello"), 0o644))
	mustDo(os.WriteFile(filepath.Join(rw, "sub", "inner.txt"), []byte("inner"), 0o644))
	mustDo(os.WriteFile(filepath.Join(ro, "file.txt"), []byte("readonly"), 0o644))
	// Links the host left in the mounts (in the read-write one they stand
	// for links the plugin would have made, had Symlink not refused).
	for _, dir := range []string{rw, ro} {
		for link, target := range map[string]string{
			"link-in":  "file.txt",
			"link-abs": filepath.Join(out, "secret.txt"),
			"link-rel": "../out/secret.txt",
			"link-dir": "../out",
			"sub/up":   "../../out/secret.txt",
			"dangling": "../out/created.txt",
			"proc":     "/proc/self/environ",
			"env-rel":  strings.Repeat("../", 20) + "proc/self/environ",
			"passwd":   "/etc/passwd",
		} {
			mustDo(os.Symlink(target, filepath.Join(dir, link)))
		}
	}
	// Old times, so that any change shows.
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, p := range []string{filepath.Join(out, "secret.txt"), out, ro, filepath.Join(ro, "file.txt"), filepath.Join(rw, "file.txt")} {
		mustDo(os.Chtimes(p, old, old))
	}
	outBefore := snapshot(t, out)
	roBefore := snapshot(t, ro)
	baseEntries := func() string {
		ents, err := os.ReadDir(base)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return strings.Join(names, " ")
	}
	baseBefore := baseEntries()

	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: fmt.Sprintf(`  - name: fsescape
    path: %s
    limits: {timeout: 10s}
    allowed_paths: {%q: /data, %q: /ro}
`, harness.Wasm(t, "testdata/plugins/fsescape"), rw, "ro:"+ro)}))
	g := bins.Start(t, harness.Options{Config: cfg, Env: []string{"FSESCAPE_CANARY=" + envCanary}})
	c := g.SessionClient(t)
	ctx := harness.Ctx(t, 120*time.Second)

	var outputs []string
	call := func(t *testing.T, tool string, args map[string]any) (string, bool) {
		t.Helper()
		text, isErr := harness.CallTool(ctx, t, c, tool, args)
		outputs = append(outputs, text)
		return text, isErr
	}
	// refused calls tool, which must fail; with want, its error must name
	// that errno.
	refused := func(t *testing.T, want, tool string, args map[string]any) {
		t.Helper()
		text, isErr := call(t, tool, args)
		if !isErr {
			t.Errorf("%s %v succeeded: %q", tool, args, text)
		} else if want != "" && !strings.Contains(text, "("+want+")") {
			t.Errorf("%s %v: %q, want %s", tool, args, text, want)
		}
	}
	works := func(t *testing.T, want, tool string, args map[string]any) {
		t.Helper()
		text, isErr := call(t, tool, args)
		if isErr || (want != "" && text != want) {
			t.Errorf("%s %v = %q (isError %v), want %q", tool, args, text, isErr, want)
		}
	}
	p := func(path string) map[string]any { return map[string]any{"path": path} }
	ft := func(from, to string) map[string]any { return map[string]any{"from": from, "to": to} }
	wr := func(path, data string, flags ...string) map[string]any {
		return map[string]any{"path": path, "data": data, "flags": append([]string{}, flags...)}
	}

	t.Run("create links", func(t *testing.T) {
		for target, link := range map[string]string{
			"../../../../proc/self/environ":  "/data/env",
			"../out/secret.txt":              "/data/s",
			filepath.Join(out, "secret.txt"): "/data/a",
			"/etc/passwd":                    "/data/pw",
			"file.txt":                       "/data/in", // even inside: see docs/plugins.md
		} {
			refused(t, "EPERM", "symlink", map[string]any{"target": target, "path": link})
			refused(t, "ENOENT", "read", p(link))
			refused(t, "EROFS", "symlink", map[string]any{"target": target, "path": "/ro/l"})
		}
	})
	t.Run("read through links", func(t *testing.T) {
		for _, m := range []string{"/data", "/ro"} {
			for _, l := range []string{"link-abs", "link-rel", "link-dir/secret.txt", "sub/up", "proc", "env-rel", "passwd"} {
				refused(t, "EPERM", "read", p(m+"/"+l))
				refused(t, "EPERM", "stat", p(m+"/"+l))
			}
			refused(t, "EPERM", "list", p(m+"/link-dir"))
			refused(t, "EPERM", "lstat", p(m+"/link-dir/secret.txt"))
			// The link itself is in the mount: its own metadata and target
			// text are visible, not what it points to.
			works(t, "../out/secret.txt", "readlink", p(m+"/link-rel"))
			if text, _ := call(t, "lstat", p(m+"/link-abs")); !strings.HasPrefix(text, "L") {
				t.Errorf("lstat %s/link-abs = %q, want a symbolic link", m, text)
			}
		}
	})
	t.Run("write through links", func(t *testing.T) {
		for _, l := range []string{"link-abs", "link-rel", "sub/up", "dangling", "link-dir/created.txt", "link-dir/secret.txt"} {
			path := "/data/" + l
			refused(t, "EPERM", "write", wr(path, "pwned", "trunc"))
			refused(t, "EPERM", "write", wr(path, "pwned", "create"))
			refused(t, "EPERM", "write", wr(path, "pwned", "append"))
			refused(t, "EPERM", "truncate", map[string]any{"path": path, "size": 0})
			refused(t, "EPERM", "chtimes", map[string]any{"path": path, "mtime": 0})
			refused(t, "", "chmod", map[string]any{"path": path, "mode": "777"})
		}
		refused(t, "EPERM", "mkdir", p("/data/link-dir/newdir"))
		refused(t, "EPERM", "remove", p("/data/link-dir/secret.txt"))
		refused(t, "EPERM", "rename", ft("/data/link-dir/secret.txt", "/data/stolen"))
		refused(t, "EPERM", "rename", ft("/data/file.txt", "/data/link-dir/planted"))
		refused(t, "EPERM", "link", ft("/data/link-dir/secret.txt", "/data/stolen"))
		refused(t, "EPERM", "link", ft("/data/file.txt", "/data/link-dir/planted"))
		// A hard link to a link would be a new link.
		refused(t, "EPERM", "link", ft("/data/link-rel", "/data/hard"))
	})
	t.Run("dot-dot", func(t *testing.T) {
		// Go cleans these paths itself: they name no mount.
		for _, path := range []string{"/data/../out/secret.txt", "/data/sub/../../out/secret.txt", "/ro/../out/secret.txt", "/etc/passwd", "/proc/self/environ"} {
			refused(t, "", "read", p(path))
			refused(t, "", "write", wr(path, "pwned", "create"))
		}
		// Raw path_open relative to a directory reaches the host as is.
		for _, a := range []map[string]any{
			{"dir": "/data", "path": "../out/secret.txt"},
			{"dir": "/data/sub", "path": "../../out/secret.txt"},
			{"dir": "/data", "path": "sub/../../out/secret.txt"},
			{"dir": "/ro", "path": "../out/secret.txt"},
			{"dir": "/data", "path": "../out/planted.txt", "data": "pwned"},
			{"dir": "/data/sub", "path": "../../out/planted.txt", "data": "pwned"},
		} {
			refused(t, "EPERM", "raw", a)
		}
		refused(t, "EPERM", "raw", map[string]any{"dir": "/data", "path": "link-rel"})
		refused(t, "EPERM", "raw", map[string]any{"dir": "/ro/sub", "path": "up"})
		refused(t, "EPERM", "raw", map[string]any{"dir": "/data", "path": "dangling", "data": "pwned"})
	})
	t.Run("read-only mount", func(t *testing.T) {
		refused(t, "EROFS", "write", wr("/ro/file.txt", "pwned"))
		refused(t, "EROFS", "write", wr("/ro/file.txt", "pwned", "append"))
		refused(t, "EROFS", "write", wr("/ro/file.txt", "", "trunc"))
		refused(t, "EROFS", "write", wr("/ro/new.txt", "pwned", "create"))
		refused(t, "EROFS", "write", wr("/ro/new.txt", "pwned", "create", "excl"))
		refused(t, "EROFS", "truncate", map[string]any{"path": "/ro/file.txt", "size": 0})
		refused(t, "EROFS", "mkdir", p("/ro/d"))
		refused(t, "EROFS", "rename", ft("/ro/file.txt", "/ro/moved"))
		refused(t, "EROFS", "remove", p("/ro/file.txt"))
		refused(t, "EROFS", "remove", p("/ro/sub"))
		refused(t, "EROFS", "remove", p("/ro/link-rel"))
		refused(t, "EROFS", "chtimes", map[string]any{"path": "/ro/file.txt", "mtime": 0})
		refused(t, "EROFS", "link", ft("/ro/file.txt", "/ro/hard"))
		refused(t, "EROFS", "raw", map[string]any{"dir": "/ro", "path": "file.txt", "data": "pwned"})
		// Across mounts.
		refused(t, "", "rename", ft("/ro/file.txt", "/data/moved"))
		refused(t, "", "link", ft("/ro/file.txt", "/data/hard"))
		refused(t, "", "rename", ft("/data/file.txt", "/ro/planted"))
		// Go's os.Chmod on wasip1 only checks that the file exists (WASI
		// has no chmod): it succeeds and changes nothing, which the
		// snapshot below checks.
		works(t, "changed", "chmod", map[string]any{"path": "/ro/file.txt", "mode": "777"})
	})
	t.Run("allowed", func(t *testing.T) {
		works(t, "hello", "read", p("/data/file.txt"))
		works(t, "readonly", "read", p("/ro/file.txt"))
		// A link inside a mount to a file of the same mount is followed.
		works(t, "readonly", "read", p("/ro/link-in"))
		works(t, "hello", "read", p("/data/link-in"))
		works(t, "wrote 1 bytes", "write", wr("/data/link-in", "j"))
		works(t, "jello", "read", p("/data/file.txt"))
		// (WASI has no permission bits: Go makes up -rw------- for files.)
		if text, isErr := call(t, "stat", p("/ro/link-in")); isErr || !strings.HasPrefix(text, "-") || !strings.HasSuffix(text, " 8") {
			t.Errorf("stat /ro/link-in = %q, want a regular file of 8 bytes", text)
		}
		works(t, "file.txt", "readlink", p("/ro/link-in"))
		works(t, "inner", "raw", map[string]any{"dir": "/data", "path": "sub/inner.txt"})
		works(t, "inner", "raw", map[string]any{"dir": "/data/sub", "path": "inner.txt"})

		works(t, "wrote 3 bytes", "write", wr("/data/new.txt", "abc", "create", "excl"))
		works(t, "wrote 3 bytes", "write", wr("/data/new.txt", "def", "append"))
		works(t, "abcdef", "read", p("/data/new.txt"))
		works(t, "truncated", "truncate", map[string]any{"path": "/data/new.txt", "size": 4})
		works(t, "made", "mkdir", p("/data/d"))
		works(t, "renamed", "rename", ft("/data/new.txt", "/data/d/new.txt"))
		works(t, "linked", "link", ft("/data/d/new.txt", "/data/d/hard.txt"))
		works(t, "hard.txt\nnew.txt", "list", p("/data/d"))
		works(t, "changed", "chtimes", map[string]any{"path": "/data/d/hard.txt", "mtime": 1234567890})
		info, err := os.Stat(filepath.Join(rw, "d", "new.txt"))
		if b, _ := os.ReadFile(filepath.Join(rw, "d", "new.txt")); err != nil || string(b) != "abcd" || info.ModTime().Unix() != 1234567890 {
			t.Errorf("the host sees rw/d/new.txt as %q, %v (%v)", b, info, err)
		}
		works(t, "removed", "remove", p("/data/d/new.txt"))
		works(t, "removed", "remove", p("/data/d/hard.txt"))
		works(t, "removed", "remove", p("/data/d"))
		refused(t, "ENOTEMPTY", "remove", p("/data/sub"))
		// Removing a link removes the link only.
		works(t, "removed", "remove", p("/data/link-rel"))
	})

	for _, o := range outputs {
		for _, leak := range []string{secret, envCanary, "root:x:0:0"} {
			if strings.Contains(o, leak) {
				t.Errorf("a plugin output carries %q: %q", leak, o)
			}
		}
	}
	outBefore.diff(t, out, "outside the mounts")
	roBefore.diff(t, ro, "in the read-only mount")
	if got := baseEntries(); got != baseBefore {
		t.Errorf("beside the mounts: %q, was %q", got, baseBefore)
	}
	if _, err := os.Stat(filepath.Join(rw, "stolen")); err == nil {
		t.Errorf("rw/stolen exists")
	}
}
