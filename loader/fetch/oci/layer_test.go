package oci_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/klauspost/compress/zstd"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/fetch/oci"
	"github.com/wasmgate/wasmgate/loader/fetch/sigstore"
	"github.com/wasmgate/wasmgate/loader/fetch/sigstore/sigstoretest"
)

// entry is one tar entry: a header and, for a file, its bytes.
type entry struct {
	h    tar.Header
	data string
}

func file(name, data string) entry {
	return entry{h: tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data))}, data: data}
}

func dir(name string) entry {
	return entry{h: tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755}}
}

// tarOf is a plain tar of entries, in order.
func tarOf(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := e.h
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gz(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// skillsImage is an OCI image whose layers are layers (gzipped tars,
// types.OCILayer), as oras push makes of a folder.
func skillsImage(t testing.TB, layers ...[]byte) v1.Image {
	t.Helper()
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	for _, l := range layers {
		var err error
		img, err = mutate.Append(img, mutate.Addendum{Layer: static.NewLayer(l, types.OCILayer),
			Annotations: map[string]string{"org.opencontainers.image.title": "skills", "io.deis.oras.content.unpack": "true"}})
		if err != nil {
			t.Fatal(err)
		}
	}
	return img
}

// orasTar is a folder skills/ packed as oras push packs one: the folder
// itself first, then everything under it.
func orasTar(t testing.TB) []byte {
	return gz(t, tarOf(t, dir("skills"), dir("skills/pdf"),
		file("skills/pdf/SKILL.md", "---\nname: pdf\ndescription: PDFs\n---\n# PDF\n"),
		dir("skills/pdf/refs"), file("skills/pdf/refs/FORMS.md", "Fill forms.\n"),
		file("skills/docx/SKILL.md", "---\nname: docx\ndescription: Word\n---\n")))
}

func skillsSpec(source, pin string) fetch.Spec {
	return fetch.Spec{What: "skills", Plugin: "team", Key: "skills[0]", Source: source, SHA256: pin}
}

// TestFetchLayer pulls a skills artifact (a folder packed as oras push
// packs it) by tag and by digest: its files are read from within the
// folder, its SHA256 is the layer's digest; a restarted Fetcher with the
// registry gone finds it in the cache by that pin and by the manifest
// digest; a pin of other bytes is refused naming the key.
func TestFetchLayer(t *testing.T) {
	_, f, cache := setup(t, fetch.Options{})
	reg := harness.NewOCIRegistry(t, nil)
	blob := orasTar(t)
	sum := fetch.Sum(blob)
	digest := reg.Push(t, "skills/team:1", skillsImage(t, blob))
	ctx := context.Background()
	check := func(what string, l *oci.Layer) {
		t.Helper()
		if l.SHA256 != sum || l.Root != "skills" || l.Files() != 3 {
			t.Errorf("%s: sha256 %s, root %q, %d files; want %s, skills, 3", what, l.SHA256, l.Root, l.Files(), sum)
		}
		if b, err := fs.ReadFile(l, "pdf/refs/FORMS.md"); err != nil || string(b) != "Fill forms.\n" {
			t.Errorf("%s: pdf/refs/FORMS.md: %q %v", what, b, err)
		}
		if err := fstest.TestFS(l, "pdf/SKILL.md", "pdf/refs/FORMS.md", "docx/SKILL.md"); err != nil {
			t.Errorf("%s: not a well-behaved fs.FS: %v", what, err)
		}
	}
	for _, src := range []string{reg.Source("skills/team:1"), reg.Source("skills/team@" + digest)} {
		l, err := f.FetchLayer(ctx, skillsSpec(src, ""))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		check(src, l)
	}
	if data, err := os.ReadFile(filepath.Join(cache, "sha256", sum)); err != nil || !bytes.Equal(data, blob) {
		t.Errorf("layer not cached as sha256/%s: %v", sum, err)
	}
	// A plugin fetch of the same image finds no plugin.wasm: the layer's
	// cache link is its own.
	if _, err := f.Fetch(ctx, spec(reg.Source("skills/team:1"), "")); err == nil || !strings.Contains(err.Error(), "no layer holds plugin.wasm") {
		t.Errorf("plugin fetch of a skills artifact: %v", err)
	}

	src := reg.Source("skills/team:1")
	_, err := f.FetchLayer(ctx, skillsSpec(src, strings.Repeat("ab", 32)))
	if want := `skills "team" (skills[0].sha256): ` + src + " has sha256 " + sum + ", pinned " + strings.Repeat("ab", 32); err == nil || err.Error() != want {
		t.Errorf("pin mismatch: %v, want %s", err, want)
	}

	reg.Stop()
	restart := oci.New(fetch.Options{CacheDir: cache})
	for _, s := range []fetch.Spec{skillsSpec(src, sum), skillsSpec(reg.Source("skills/team@"+digest), "")} {
		l, err := restart.FetchLayer(ctx, s)
		if err != nil {
			t.Fatalf("offline %s: %v", s.Source, err)
		}
		check("offline "+s.Source, l)
	}
	if _, err := restart.FetchLayer(ctx, skillsSpec(src, "")); err == nil || !strings.Contains(err.Error(), `skills "team" (skills[0]): `+src+": get manifest: ") {
		t.Errorf("offline by tag, unpinned: %v", err)
	}
}

// TestFetchLayerShapes: a tar at the top (tar -C skills .), plain or
// zstd, is read as is; an image with no tar layer, or two, is refused
// naming its layers.
func TestFetchLayerShapes(t *testing.T) {
	_, f, _ := setup(t, fetch.Options{})
	reg := harness.NewOCIRegistry(t, nil)
	ctx := context.Background()
	flat := tarOf(t, dir("./"), file("./pdf/SKILL.md", "x"), file("./docx/SKILL.md", "y"))
	var zbuf bytes.Buffer
	zw, _ := zstd.NewWriter(&zbuf)
	zw.Write(flat)
	zw.Close()
	for tag, blob := range map[string][]byte{"plain": flat, "zstd": zbuf.Bytes(), "gzip": gz(t, flat)} {
		reg.Push(t, "skills/flat:"+tag, skillsImage(t, blob))
		l, err := f.FetchLayer(ctx, skillsSpec(reg.Source("skills/flat:"+tag), ""))
		if err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		if b, err := fs.ReadFile(l, "docx/SKILL.md"); l.Root != "" || err != nil || string(b) != "y" {
			t.Errorf("%s: root %q, docx/SKILL.md %q %v", tag, l.Root, b, err)
		}
	}

	reg.Push(t, "skills/two:1", skillsImage(t, gz(t, flat), orasTar(t)))
	if _, err := f.FetchLayer(ctx, skillsSpec(reg.Source("skills/two:1"), "")); err == nil || !strings.Contains(err.Error(), "2 tar layers: a skills artifact holds its skills in exactly one") {
		t.Errorf("two tar layers: %v", err)
	}
	reg.Push(t, "skills/wasm:1", harness.WasmImage(t, []byte("\x00asm\x01\x00\x00\x00")))
	if _, err := f.FetchLayer(ctx, skillsSpec(reg.Source("skills/wasm:1"), "")); err == nil || !strings.Contains(err.Error(), "no tar layer: a skills artifact holds its skills in one tar layer (plain, gzip or zstd); layers: "+string(harness.WasmLayerType)) {
		t.Errorf("no tar layer: %v", err)
	}
}

// TestReadLayerRefuses: every entry that is not a file or folder, every
// path leaving the root, an entry twice, and a layer beyond the limits
// is refused, the error naming the entry.
func TestReadLayerRefuses(t *testing.T) {
	lim := oci.Limits{MaxBytes: 100, MaxEntries: 5}
	link := func(name, target string, typ byte) entry {
		return entry{h: tar.Header{Name: name, Linkname: target, Typeflag: typ, Mode: 0o777}}
	}
	for want, entries := range map[string][]entry{
		`entry "../evil/SKILL.md": a path with ".." would leave the layer's root`:                 {file("../evil/SKILL.md", "x")},
		`entry "pdf/../../evil": a path with ".." would leave the layer's root`:                   {file("pdf/../../evil", "x")},
		`entry "pdf/..": a path with ".." would leave the layer's root`:                           {dir("pdf/..")},
		`entry "/etc/passwd": an absolute path`:                                                   {file("/etc/passwd", "x")},
		`entry "pdf/SKILL.md": a symbolic link (to "/etc/passwd"); a skills artifact holds only`:  {link("pdf/SKILL.md", "/etc/passwd", tar.TypeSymlink)},
		`entry "pdf/refs": a symbolic link (to "../../.."); a skills artifact holds only`:         {link("pdf/refs", "../../..", tar.TypeSymlink)},
		`entry "pdf/x": a hard link (to "pdf/SKILL.md"); a skills artifact holds only`:            {file("pdf/SKILL.md", "x"), link("pdf/x", "pdf/SKILL.md", tar.TypeLink)},
		`entry "pdf/tty": a character device; a skills artifact holds only files and folders`:     {{h: tar.Header{Name: "pdf/tty", Typeflag: tar.TypeChar, Devmajor: 5}}},
		`entry "pdf/sda": a block device`:                                                         {{h: tar.Header{Name: "pdf/sda", Typeflag: tar.TypeBlock}}},
		`entry "pdf/fifo": a named pipe`:                                                          {{h: tar.Header{Name: "pdf/fifo", Typeflag: tar.TypeFifo}}},
		`entry "pdf/SKILL.md": the layer holds it twice`:                                          {file("pdf/SKILL.md", "x"), file("pdf/SKILL.md", "y")},
		`entry "pdf/SKILL.md/x": "pdf/SKILL.md" is a file, not a folder`:                          {file("pdf/SKILL.md", "x"), file("pdf/SKILL.md/x", "y")},
		`more than 5 entries (files and folders)`:                                                 {file("a", ""), file("b", ""), file("c", ""), file("d", ""), file("e", ""), file("f", "")},
		`entry "b" (60 bytes): the files add up to more than the 100B limit of a skills artifact`: {file("a", strings.Repeat("x", 60)), file("b", strings.Repeat("y", 60))},
		`entry "a\\b": a backslash or NUL in its name`:                                            {file(`a\b`, "")},
	} {
		_, err := oci.ReadLayer(tarOf(t, entries...), lim)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want %q", err, want)
		}
	}
	// A layer that decompresses far beyond what its files may add up to.
	bomb := gz(t, tarOf(t, file("a", strings.Repeat("\x00", 1<<20))))
	if _, err := oci.ReadLayer(bomb, lim); err == nil || !strings.Contains(err.Error(), `entry "a" (1048576 bytes): the files add up to more than`) {
		t.Errorf("large file: %v", err)
	}
	// Headers beyond what the entries may take.
	bloat := file("a", "x")
	bloat.h.PAXRecords = map[string]string{"comment": strings.Repeat("x", 100<<10)}
	if _, err := oci.ReadLayer(tarOf(t, bloat), lim); err == nil || !strings.Contains(err.Error(), "read tar: decompresses to more than 49352B") {
		t.Errorf("bloated headers: %v", err)
	}
	if _, err := oci.ReadLayer([]byte("not a tar at all, and long enough to be read as a header block..."), lim); err == nil || !strings.Contains(err.Error(), "read tar: ") {
		t.Errorf("not a tar: %v", err)
	}
}

// TestReadLayerRoot: the one folder every entry lies in is the root; a
// layer with two, or with a file at the top, is read from the top.
func TestReadLayerRoot(t *testing.T) {
	lim := oci.Limits{MaxBytes: 1 << 10, MaxEntries: 16}
	for _, c := range []struct {
		entries []entry
		root    string
		files   []string
	}{
		{[]entry{file("skills/pdf/SKILL.md", "x")}, "skills", []string{"pdf/SKILL.md"}},
		{[]entry{file("pdf/SKILL.md", "x")}, "pdf", []string{"SKILL.md"}},
		{[]entry{file("SKILL.md", "x")}, "", []string{"SKILL.md"}},
		{[]entry{file("a/SKILL.md", "x"), file("b/SKILL.md", "y")}, "", []string{"a/SKILL.md", "b/SKILL.md"}},
		{[]entry{dir("./"), dir("./a/"), file("./a//b/SKILL.md", "x"), dir("c")}, "", []string{"a/b/SKILL.md"}},
	} {
		l, err := oci.ReadLayer(tarOf(t, c.entries...), lim)
		if err != nil {
			t.Errorf("%v: %v", c.entries, err)
			continue
		}
		var files []string
		fs.WalkDir(l, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return err
		})
		if l.Root != c.root || !slices.Equal(files, c.files) {
			t.Errorf("%v: root %q, files %v; want %q, %v", c.entries, l.Root, files, c.root, c.files)
		}
	}
}

// TestFetchLayerTampered: a registry serving other bytes for the layer
// than its digest says is refused, and nothing is cached.
func TestFetchLayerTampered(t *testing.T) {
	var on atomic.Bool
	var layer string
	reg := harness.NewOCIRegistry(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if on.Load() && r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/blobs/"+layer) {
				bad := orasTar(t)
				bad[len(bad)/2] ^= 0xff // same length, other bytes
				w.Write(bad)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	_, f, cache := setup(t, fetch.Options{})
	blob := orasTar(t)
	layer = "sha256:" + fetch.Sum(blob)
	digest := reg.Push(t, "skills/team:1", skillsImage(t, blob))
	on.Store(true)
	_, err := f.FetchLayer(context.Background(), skillsSpec(reg.Source("skills/team:1"), ""))
	if err == nil || !strings.Contains(err.Error(), `skills "team" (skills[0]): `) || !strings.Contains(err.Error(), "pull "+digest) || !strings.Contains(err.Error(), "layer "+layer+": ") {
		t.Errorf("tampered layer: %v", err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("refused, yet the cache holds %v", entries)
	}
}

// TestFetchLayerSigned: a skills artifact whose manifest a referrer signs
// (cosign sign) is verified; one unsigned is refused naming the manifest,
// nothing cached; a bundle of the layer's bytes (verify.bundle) verifies
// it too; once verified, a restart with the registry gone loads it from
// the cache by its pin.
func TestFetchLayerSigned(t *testing.T) {
	_, f, cache := setup(t, fetch.Options{})
	reg := harness.NewOCIRegistry(t, nil)
	key := sigstoretest.NewKey(t)
	dirKeys := t.TempDir()
	pub := key.WritePublic(t, dirKeys, "k.pub")
	v, err := sigstore.New(sigstore.Policy{KeyFile: pub})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	blob := orasTar(t)

	unsigned := reg.Push(t, "skills/unsigned:1", skillsImage(t, blob))
	s := skillsSpec(reg.Source("skills/unsigned:1"), "")
	s.Verify = v
	if _, err := f.FetchLayer(ctx, s); err == nil || !strings.Contains(err.Error(), `skills "team" (skills[0].verify): signature check failed: `+s.Source+": no Sigstore bundle among the OCI referrers of "+unsigned) {
		t.Errorf("unsigned: %v", err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("refused, yet the cache holds %v", entries)
	}

	digest := reg.Push(t, "skills/team:1", skillsImage(t, blob))
	attach(t, reg, "skills/team", digest, key.SignDigest(t, "skills/team", strings.TrimPrefix(digest, "sha256:")))
	s = skillsSpec(reg.Source("skills/team:1"), "")
	s.Verify = v
	if _, err := f.FetchLayer(ctx, s); err != nil {
		t.Fatalf("signed manifest: %v", err)
	}

	bundle := filepath.Join(dirKeys, "layer.sigstore.json")
	if err := os.WriteFile(bundle, key.Sign(t, blob), 0o600); err != nil {
		t.Fatal(err)
	}
	vb, err := sigstore.New(sigstore.Policy{KeyFile: pub, Bundle: bundle})
	if err != nil {
		t.Fatal(err)
	}
	s = skillsSpec(reg.Source("skills/unsigned:1"), "")
	s.Verify = vb
	if _, err := f.FetchLayer(ctx, s); err != nil {
		t.Fatalf("verify.bundle of the layer's bytes: %v", err)
	}

	reg.Stop()
	s = skillsSpec(reg.Source("skills/team:1"), fetch.Sum(blob))
	s.Verify = v
	if l, err := oci.New(fetch.Options{CacheDir: cache}).FetchLayer(ctx, s); err != nil || l.Files() != 3 {
		t.Fatalf("offline, signed and pinned: %v", err)
	}
}

// FuzzReadLayer: ReadLayer never panics, and a layer it accepts holds
// only paths within its root, within the limits.
func FuzzReadLayer(f *testing.F) {
	f.Add(tarOf(f, dir("skills"), file("skills/pdf/SKILL.md", "---\nname: pdf\n---\n")))
	f.Add(tarOf(f, file("../x", "a"), file("/etc/passwd", "b")))
	f.Add(tarOf(f, entry{h: tar.Header{Name: "l", Linkname: "../..", Typeflag: tar.TypeSymlink}}))
	f.Add(gz(f, tarOf(f, dir("./"), file("./a/SKILL.md", "x"), file("./a/SKILL.md/b", "y"))))
	lim := oci.Limits{MaxBytes: 4 << 10, MaxEntries: 32}
	f.Fuzz(func(t *testing.T, blob []byte) {
		l, err := oci.ReadLayer(blob, lim)
		if err != nil {
			return
		}
		var files []string
		var total int64
		err = fs.WalkDir(l, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !fs.ValidPath(p) || strings.Contains(p, "\\") {
				t.Fatalf("path %q", p)
			}
			if !d.IsDir() {
				b, err := fs.ReadFile(l, p)
				if err != nil {
					return err
				}
				total += int64(len(b))
				files = append(files, p)
			}
			return nil
		})
		if err != nil || total > lim.MaxBytes || len(files) > lim.MaxEntries || len(files) != l.Files() {
			t.Fatalf("walk: %v; %d files (Files %d), %d bytes", err, len(files), l.Files(), total)
		}
	})
}
