// Catalogs that outlive a restart: the lists an upstream last gave are
// kept in the cache directory (server.cache_dir's catalogs folder), so
// that the next start serves them at once, marked stale, while the
// upstream starts; its live lists replace them when it answers.

package upstream

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/wasmgate/wasmgate/internal/atomicfile"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/wire"
)

// catalogVersion is the format of a catalog file; a file of another
// version is ignored (and replaced at the next live list).
const catalogVersion = 1

// maxCatalog bounds a catalog file read at start.
const maxCatalog = 64 << 20

// catalogFile is what is kept of an upstream's lists. Resource templates
// are kept apart from static resources (abi.Resource's parsed template is
// not JSON): they are parsed again when the file is read.
type catalogFile struct {
	Version   int             `json:"version"`
	Upstream  string          `json:"upstream"`
	Saved     time.Time       `json:"saved"`
	Tools     []wire.Tool     `json:"tools,omitempty"`
	Resources []wire.Resource `json:"resources,omitempty"`
	Templates []wire.Resource `json:"templates,omitempty"`
	Prompts   []wire.Prompt   `json:"prompts,omitempty"`
	Skills    []abi.Skill     `json:"skills,omitempty"`
	Cache     abi.ListHints   `json:"cache"`
}

// catalogPath is the file of upstream name of the config file file,
// started from key (connKey: a changed command, URL or credential is
// another server, whose catalog is not this one's); "" when dir is ""
// (no cache directory). Two gateways of different config files that
// share a cache directory keep their catalogs apart.
func catalogPath(dir, file, name, key string) string {
	if dir == "" {
		return ""
	}
	if abs, err := filepath.Abs(file); err == nil {
		file = abs
	}
	h := sha256.Sum256([]byte(file + "\x00" + name + "\x00" + key))
	return filepath.Join(dir, hex.EncodeToString(h[:16])+".json")
}

// readCatalog reads the catalog kept at path as a descriptor. A missing
// file is (false, nil); one that cannot be read or parsed is an error
// saying which file and why.
func readCatalog(path, name string) (abi.Descriptor, time.Time, bool, error) {
	var d abi.Descriptor
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return d, time.Time{}, false, nil
	}
	if err != nil {
		return d, time.Time{}, false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxCatalog+1))
	if err != nil {
		return d, time.Time{}, false, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(b) > maxCatalog {
		return d, time.Time{}, false, fmt.Errorf("%s: larger than %d bytes", path, maxCatalog)
	}
	var c catalogFile
	if err := json.Unmarshal(b, &c); err != nil {
		return d, time.Time{}, false, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case c.Version != catalogVersion:
		return d, time.Time{}, false, fmt.Errorf("%s: format version %d, not %d", path, c.Version, catalogVersion)
	case c.Upstream != name:
		return d, time.Time{}, false, fmt.Errorf("%s: the catalog of upstream %q, not %q", path, c.Upstream, name)
	}
	d.Tools, d.Prompts, d.Skills, d.Cache = c.Tools, c.Prompts, c.Skills, c.Cache
	for _, r := range c.Resources {
		d.Resources = append(d.Resources, abi.Resource{Resource: r})
	}
	for _, r := range c.Templates {
		tpl, err := abi.ParseURITemplate(r.URI)
		if err != nil {
			return abi.Descriptor{}, time.Time{}, false, fmt.Errorf("%s: resource template %q: %w", path, r.URI, err)
		}
		d.Resources = append(d.Resources, abi.Resource{Resource: r, Template: tpl})
	}
	return d, c.Saved, true, nil
}

// writeCatalog keeps d as the catalog at path, replacing the file
// atomically (a crash leaves the old one or the new one), readable by
// the gateway's user only.
func writeCatalog(path, name string, d abi.Descriptor, now time.Time) error {
	c := catalogFile{Version: catalogVersion, Upstream: name, Saved: now.UTC(), Tools: d.Tools, Prompts: d.Prompts, Skills: d.Skills, Cache: d.Cache}
	for _, r := range d.Resources {
		if r.Template != nil {
			c.Templates = append(c.Templates, r.Resource)
		} else {
			c.Resources = append(c.Resources, r.Resource)
		}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o600)
}
