package fetch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Cache keeps fetched modules on disk, each in a file named by the
// SHA-256 of its bytes (dir/sha256/<hex>), and small link files naming
// the module an immutable reference resolved to, such as an OCI manifest
// digest (dir/<kind>/sha256/<hex> holding the module's hex SHA-256). A
// module read back is checked against its name, so a damaged file is
// fetched again. Files are written to a temporary name and renamed, so
// gateways sharing the folder never read half a file. The zero Cache (no
// folder) keeps nothing.
type Cache struct {
	dir string
}

// NewCache returns a Cache in dir, created when first written; "" keeps
// nothing.
func NewCache(dir string) Cache { return Cache{dir: dir} }

// Dir is the cache's folder, or "".
func (c Cache) Dir() string { return c.dir }

// Module returns the cached module whose hex SHA-256 is sum.
func (c Cache) Module(sum string) ([]byte, bool) {
	if c.dir == "" || !isHexSHA256(sum) {
		return nil, false
	}
	p := filepath.Join(c.dir, "sha256", sum)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	if Sum(data) != sum {
		_ = os.Remove(p) // damaged: fetch it again
		return nil, false
	}
	return data, true
}

// PutModule stores data, whose hex SHA-256 is sum.
func (c Cache) PutModule(data []byte, sum string) error {
	if c.dir == "" {
		return nil
	}
	return c.write(filepath.Join(c.dir, "sha256"), sum, data)
}

// Link returns the hex SHA-256 of the module that the reference of the
// given kind and digest ("sha256:<hex>") resolved to.
func (c Cache) Link(kind, digest string) (string, bool) {
	p, ok := c.linkPath(kind, digest)
	if !ok {
		return "", false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", false
	}
	sum := strings.TrimSpace(string(b))
	if !isHexSHA256(sum) {
		return "", false
	}
	return sum, true
}

// PutLink records that the reference of kind and digest resolved to the
// module whose hex SHA-256 is sum.
func (c Cache) PutLink(kind, digest, sum string) error {
	p, ok := c.linkPath(kind, digest)
	if !ok {
		return nil
	}
	return c.write(filepath.Dir(p), filepath.Base(p), []byte(sum+"\n"))
}

func (c Cache) linkPath(kind, digest string) (string, bool) {
	hex, ok := strings.CutPrefix(digest, "sha256:")
	if c.dir == "" || !ok || !isHexSHA256(hex) || kind == "" || kind == "sha256" || strings.ContainsAny(kind, `/\.`) {
		return "", false
	}
	return filepath.Join(c.dir, kind, "sha256", hex), true
}

// write stores data as dir/name through a temporary file.
func (c Cache) write(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("module cache: %w", err)
	}
	f, err := os.CreateTemp(dir, ".tmp-"+name+"-*")
	if err != nil {
		return fmt.Errorf("module cache: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		_ = os.Remove(f.Name())
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return fmt.Errorf("module cache: write %s: %w", filepath.Join(dir, name), pe.Err)
		}
		return fmt.Errorf("module cache: write %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

func isHexSHA256(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}
