// Package fetch gets plugin modules from where the config says they are.
// A Fetcher handles one kind of source; a Registry picks the Fetcher by the
// source's URL scheme. A plain path is a local file (File); the fetchers
// of URL sources (loader/fetch/oci, loader/fetch/https) live in their own
// packages and are registered in loader/registry.go.
package fetch

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader/egress"
)

// Spec names the module to fetch.
type Spec struct {
	// What is fetched, for errors: "plugin" when "", or "skills" (a
	// skills artifact, whose module is its tar layer).
	What   string
	Plugin string // the plugin's (or skills source's) name, for errors
	Key    string // where the plugin is declared, e.g. "plugins[2]", for errors
	Source string // a file path, or a URL
	SHA256 string // the pinned hex SHA-256 of the module, or ""
	// Verify checks the module's Sigstore signature before it is used
	// or cached (plugins[].verify); nil checks none.
	Verify Verifier
}

// Owner names what spec fetches for, in errors: plugin "calc".
func (spec Spec) Owner() string {
	what := spec.What
	if what == "" {
		what = "plugin"
	}
	return fmt.Sprintf("%s %q", what, spec.Plugin)
}

// Module is a fetched module.
type Module struct {
	Data   []byte
	SHA256 string   // hex SHA-256 of Data
	Watch  []string // local paths whose change means the module may have changed
}

// Fetcher gets the module a Spec names and checks it against the pin.
type Fetcher interface {
	// Check reports whether source is well-formed for this Fetcher,
	// without fetching anything (the config is being loaded).
	Check(source string) error
	// Fetch gets the module and checks it against spec.SHA256.
	Fetch(ctx context.Context, spec Spec) (Module, error)
}

// Defaults of Options.
const (
	// DefaultMaxSize bounds the size of a module fetched from the network
	// (and of the OCI layer or download holding it).
	DefaultMaxSize = 64 << 20
	// DefaultTimeout bounds one fetch from the network, every request and
	// redirect included.
	DefaultTimeout = 2 * time.Minute
)

// Options configure the Fetchers of network sources.
type Options struct {
	// CacheDir keeps fetched modules by digest (see Cache); "" keeps
	// nothing, so every fetch uses the network.
	CacheDir string
	// MaxSize bounds a fetched module; 0 means DefaultMaxSize.
	MaxSize int64
	// Timeout bounds one fetch; 0 means DefaultTimeout.
	Timeout time.Duration
	// Logger receives a line per module fetched from the network and the
	// cache's problems; nil discards them.
	Logger *slog.Logger
	// Listeners are the gateway's own listeners, which no fetch (nor any
	// redirect) reaches; nil for none.
	Listeners *egress.Listeners
	// TLSConfig is the TLS configuration of fetches (a private CA's
	// roots); nil means the system's.
	TLSConfig *tls.Config
}

// Defaults returns o with every zero field set to its default.
func (o Options) Defaults() Options {
	if o.MaxSize <= 0 {
		o.MaxSize = DefaultMaxSize
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Registry maps a URL scheme to the Fetcher of sources with that scheme.
// The empty scheme is a plain path.
type Registry map[string]Fetcher

// Check reports whether source has a known scheme and is well-formed for
// its Fetcher.
func (r Registry) Check(source string) error {
	f, err := r.fetcher(source)
	if err != nil {
		return err
	}
	return f.Check(source)
}

// Fetch fetches spec with the Fetcher of its source's scheme.
func (r Registry) Fetch(ctx context.Context, spec Spec) (Module, error) {
	f, err := r.fetcher(spec.Source)
	if err != nil {
		return Module{}, fmt.Errorf("%s (%s): %s: %w", spec.Owner(), spec.Key, spec.Source, err)
	}
	return f.Fetch(ctx, spec)
}

func (r Registry) fetcher(source string) (Fetcher, error) {
	scheme := Scheme(source)
	if f, ok := r[scheme]; ok {
		return f, nil
	}
	var known []string
	for _, s := range slices.Sorted(maps.Keys(r)) {
		if s != "" {
			known = append(known, s+"://")
		}
	}
	supported := "only file paths are supported"
	if len(known) > 0 {
		supported = "supported: file paths, " + strings.Join(known, ", ")
	}
	return nil, fmt.Errorf("unsupported source scheme %q (%s)", scheme, supported)
}

// Scheme returns the URL scheme of source ("oci" for "oci://..."), or ""
// when source is a plain path.
func Scheme(source string) string {
	scheme, _, ok := strings.Cut(source, "://")
	if !ok || scheme == "" {
		return ""
	}
	for i, c := range scheme {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return ""
		}
	}
	return strings.ToLower(scheme)
}

// Sum is the hex SHA-256 of data.
func Sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// CheckPin refuses a module whose hex SHA-256 sum is not spec's pin.
func CheckPin(spec Spec, sum string) error {
	if spec.SHA256 != "" && spec.SHA256 != sum {
		return fmt.Errorf("%s (%s.sha256): %s has sha256 %s, pinned %s", spec.Owner(), spec.Key, spec.Source, sum, spec.SHA256)
	}
	return nil
}

// ReadAll reads r up to max bytes, and fails naming the limit when r holds
// more.
func ReadAll(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, TooLarge(max)
	}
	return data, nil
}

// TooLarge is the error of a module larger than max bytes.
func TooLarge(max int64) error {
	return fmt.Errorf("larger than the %s limit of a fetched module", config.ByteSize(max))
}
