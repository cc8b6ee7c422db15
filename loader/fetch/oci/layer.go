package oci

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader/fetch"
)

// MaxLayerEntries bounds the entries (files and folders) of a skills
// artifact's layer.
const MaxLayerEntries = 4096

// Limits bound what ReadLayer unpacks.
type Limits struct {
	MaxBytes   int64 // the files' total size; 0 means fetch.DefaultMaxSize
	MaxEntries int   // files and folders; 0 means MaxLayerEntries
}

// Layer is the files of a skills artifact's tar layer, as an fs.FS of
// its regular files and folders, paths relative to Root.
type Layer struct {
	// SHA256 is the hex SHA-256 of the layer as stored in the registry
	// (compressed): its digest, which a skills entry's sha256 pins.
	SHA256 string
	// Root is the one folder that held every entry, as `oras push
	// REF skills/` and `tar -cf skills.tar skills/` pack a folder; the
	// files are read from within it. "" when the entries lie at the top.
	Root string

	files map[string][]byte
	dirs  map[string][]string // each folder's children's names, sorted; "." is the root
}

var (
	_ fs.ReadDirFS  = (*Layer)(nil)
	_ fs.ReadFileFS = (*Layer)(nil)
	_ fs.StatFS     = (*Layer)(nil)
)

// FetchLayer gets the skills artifact spec.Source names: an image with
// one tar layer (plain, gzip or zstd) holding folders of skills. The
// layer is to the artifact what a module is to a plugin: spec.SHA256 pins
// its digest (the SHA-256 of its bytes as stored), it is cached by that
// digest (a pinned or cached artifact needs no network), and spec.Verify
// checks its signature (an OCI referrer signing the manifest, as cosign
// sign stores it, or verify.bundle signing the layer's bytes). It is then
// unpacked in memory within the Fetcher's MaxSize and MaxLayerEntries.
func (f *Fetcher) FetchLayer(ctx context.Context, spec fetch.Spec) (*Layer, error) {
	m, err := f.fetch(ctx, spec, pullLayer)
	if err != nil {
		return nil, err
	}
	l, err := ReadLayer(m.Data, Limits{MaxBytes: f.opts.MaxSize, MaxEntries: MaxLayerEntries})
	if err != nil {
		return nil, fmt.Errorf("%s (%s.path): %s: layer sha256:%s: %w", spec.Owner(), spec.Key, spec.Source, m.SHA256, err)
	}
	l.SHA256 = m.SHA256
	return l, nil
}

// skillsLayer downloads the one tar layer of a skills artifact.
func (f *Fetcher) skillsLayer(img v1.Image, m *v1.Manifest) ([]byte, error) {
	var tars []v1.Descriptor
	var types []string
	for _, l := range m.Layers {
		types = append(types, string(l.MediaType))
		if isTar(l.MediaType) {
			tars = append(tars, l)
		}
	}
	switch len(tars) {
	case 1:
		return f.blob(img, tars[0])
	case 0:
		return nil, fmt.Errorf("no tar layer: a skills artifact holds its skills in one tar layer (plain, gzip or zstd); layers: %s", strings.Join(types, ", "))
	}
	return nil, fmt.Errorf("%d tar layers: a skills artifact holds its skills in exactly one (push one folder, such as oras push REF skills/); layers: %s", len(tars), strings.Join(types, ", "))
}

// ReadLayer unpacks a tar layer, plain, gzip or zstd, in memory. Only
// regular files and folders are taken; every other entry (a symbolic or
// hard link, a device, a pipe) refuses the layer, as do an absolute path,
// a path with "..", an entry twice, and more than lim allows. A layer
// whose entries all lie in one folder is read from within it (Root).
func ReadLayer(blob []byte, lim Limits) (*Layer, error) {
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = fetch.DefaultMaxSize
	}
	if lim.MaxEntries <= 0 {
		lim.MaxEntries = MaxLayerEntries
	}
	r, err := decompress(blob)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// Headers take room too: bound what is decompressed on the way.
	maxStream := 2*lim.MaxBytes + int64(lim.MaxEntries+1)*8<<10
	cr := &countingReader{r: io.LimitReader(r, maxStream)}
	tooLong := func(err error) error {
		if cr.n >= maxStream {
			return fmt.Errorf("read tar: decompresses to more than %s", config.ByteSize(maxStream))
		}
		return err
	}
	tr := tar.NewReader(cr)
	files := map[string][]byte{}
	dirs := map[string]bool{}
	var total int64
	entries := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, tooLong(fmt.Errorf("read tar: %w", err))
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		name, err := entryPath(h.Name)
		if err != nil {
			return nil, err
		}
		if name == "." {
			if h.Typeflag != tar.TypeDir {
				return nil, fmt.Errorf("entry %q: not a folder, but it names the layer's root", h.Name)
			}
			continue
		}
		if entries++; entries > lim.MaxEntries {
			return nil, fmt.Errorf("more than %d entries (files and folders)", lim.MaxEntries)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if _, ok := files[name]; ok || dirs[name] {
				return nil, fmt.Errorf("entry %q: the layer holds it twice", h.Name)
			}
			dirs[name] = true
		case tar.TypeReg: // archive/tar reads the old TypeRegA as TypeReg
			if _, ok := files[name]; ok || dirs[name] {
				return nil, fmt.Errorf("entry %q: the layer holds it twice", h.Name)
			}
			if h.Size < 0 || total+h.Size > lim.MaxBytes {
				return nil, fmt.Errorf("entry %q (%d bytes): the files add up to more than the %s limit of a skills artifact", h.Name, h.Size, config.ByteSize(lim.MaxBytes))
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				return nil, tooLong(fmt.Errorf("read %q: %w", h.Name, err))
			}
			total += int64(len(data))
			files[name] = data
		default:
			return nil, fmt.Errorf("entry %q: %s; a skills artifact holds only files and folders", h.Name, entryType(h))
		}
	}
	return newLayer(files, dirs)
}

// entryPath is the tar entry name as a path relative to the layer's root
// ("." for the root itself), or why it cannot be one.
func entryPath(name string) (string, error) {
	switch {
	case name == "":
		return "", errors.New("an entry without a name")
	case strings.HasPrefix(name, "/"):
		return "", fmt.Errorf("entry %q: an absolute path; a skills artifact's entries are relative to its root", name)
	case strings.ContainsAny(name, "\\\x00"):
		return "", fmt.Errorf("entry %q: a backslash or NUL in its name", name)
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return "", fmt.Errorf("entry %q: a path with \"..\" would leave the layer's root", name)
		}
	}
	return path.Clean(name), nil
}

// entryType says what a tar entry that is neither a file nor a folder is.
func entryType(h *tar.Header) string {
	switch h.Typeflag {
	case tar.TypeSymlink:
		return fmt.Sprintf("a symbolic link (to %q)", h.Linkname)
	case tar.TypeLink:
		return fmt.Sprintf("a hard link (to %q)", h.Linkname)
	case tar.TypeChar:
		return "a character device"
	case tar.TypeBlock:
		return "a block device"
	case tar.TypeFifo:
		return "a named pipe"
	}
	return fmt.Sprintf("an entry of type %q", h.Typeflag)
}

// newLayer indexes files and dirs (paths relative to the layer's root)
// from within the one folder all lie in, if they do.
func newLayer(files map[string][]byte, dirs map[string]bool) (*Layer, error) {
	l := &Layer{files: files, dirs: map[string][]string{".": nil}}
	tops := map[string]bool{}
	for p := range files {
		tops[strings.SplitN(p, "/", 2)[0]] = true
	}
	for p := range dirs {
		tops[strings.SplitN(p, "/", 2)[0]] = true
	}
	if len(tops) == 1 {
		for top := range tops {
			if _, isFile := files[top]; !isFile {
				l.Root = top
			}
		}
	}
	if l.Root != "" {
		l.files = map[string][]byte{}
		for p, data := range files {
			l.files[strings.TrimPrefix(p, l.Root+"/")] = data
		}
		within := map[string]bool{}
		for p := range dirs {
			if p != l.Root {
				within[strings.TrimPrefix(p, l.Root+"/")] = true
			}
		}
		dirs = within
	}
	children := map[string]map[string]bool{".": {}}
	add := func(p string) error {
		for p != "." {
			dir, base := path.Dir(p), path.Base(p)
			if _, ok := l.files[dir]; ok {
				return fmt.Errorf("entry %q: %q is a file, not a folder", path.Join(l.Root, p), path.Join(l.Root, dir))
			}
			if children[dir] == nil {
				children[dir] = map[string]bool{}
			}
			children[dir][base] = true
			p = dir
		}
		return nil
	}
	for p := range l.files {
		if err := add(p); err != nil {
			return nil, err
		}
	}
	for p := range dirs {
		if err := add(p); err != nil {
			return nil, err
		}
		if children[p] == nil {
			children[p] = map[string]bool{}
		}
	}
	for dir, names := range children {
		l.dirs[dir] = slices.Sorted(maps.Keys(names))
	}
	return l, nil
}

// Files is how many files the layer holds.
func (l *Layer) Files() int { return len(l.files) }

// Open opens a file or folder of the layer.
func (l *Layer) Open(name string) (fs.File, error) {
	fi, err := l.stat("open", name)
	if err != nil {
		return nil, err
	}
	if fi.dir {
		return &openDir{info: fi, l: l, name: name}, nil
	}
	return &openFile{info: fi, r: bytes.NewReader(l.files[name])}, nil
}

// Stat describes a file or folder of the layer.
func (l *Layer) Stat(name string) (fs.FileInfo, error) {
	fi, err := l.stat("stat", name)
	if err != nil {
		return nil, err
	}
	return fi, nil
}

// ReadFile returns a copy of a file's bytes.
func (l *Layer) ReadFile(name string) ([]byte, error) {
	fi, err := l.stat("read", name)
	if err != nil {
		return nil, err
	}
	if fi.dir {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a folder")}
	}
	return bytes.Clone(l.files[name]), nil
}

// ReadDir lists a folder, by name.
func (l *Layer) ReadDir(name string) ([]fs.DirEntry, error) {
	fi, err := l.stat("readdir", name)
	if err != nil {
		return nil, err
	}
	if !fi.dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a folder")}
	}
	return l.entries(name), nil
}

func (l *Layer) entries(dir string) []fs.DirEntry {
	names := l.dirs[dir]
	out := make([]fs.DirEntry, 0, len(names))
	for _, n := range names {
		fi, _ := l.stat("readdir", path.Join(dir, n))
		out = append(out, fs.FileInfoToDirEntry(fi))
	}
	return out
}

func (l *Layer) stat(op, name string) (*fileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	if data, ok := l.files[name]; ok {
		return &fileInfo{name: path.Base(name), size: int64(len(data))}, nil
	}
	if _, ok := l.dirs[name]; ok {
		return &fileInfo{name: path.Base(name), dir: true}, nil
	}
	return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
}

type fileInfo struct {
	name string
	size int64
	dir  bool
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.size }
func (fi *fileInfo) ModTime() time.Time { return time.Time{} }
func (fi *fileInfo) IsDir() bool        { return fi.dir }
func (fi *fileInfo) Sys() any           { return nil }
func (fi *fileInfo) Mode() fs.FileMode {
	if fi.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

type openFile struct {
	info *fileInfo
	r    *bytes.Reader
}

func (f *openFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *openFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *openFile) Close() error               { return nil }

type openDir struct {
	info *fileInfo
	l    *Layer
	name string
	read int
}

func (d *openDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *openDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a folder")}
}
func (d *openDir) Close() error { return nil }

// ReadDir lists the folder's entries, n at a time (all when n <= 0).
func (d *openDir) ReadDir(n int) ([]fs.DirEntry, error) {
	all := d.l.entries(d.name)[d.read:]
	if n <= 0 {
		d.read += len(all)
		return all, nil
	}
	if len(all) == 0 {
		return nil, io.EOF
	}
	all = all[:min(n, len(all))]
	d.read += len(all)
	return all, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}
