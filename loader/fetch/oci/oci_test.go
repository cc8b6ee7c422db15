package oci_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/klauspost/compress/zstd"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/fetch/oci"
)

// setup isolates the test from the user's Docker credentials and returns
// the calculator module and a Fetcher caching in a fresh folder.
func setup(t *testing.T, opts fetch.Options) ([]byte, *oci.Fetcher, string) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	module := harness.ReadFixture(t, "examples/plugins/calculator")
	if opts.CacheDir == "" {
		opts.CacheDir = filepath.Join(t.TempDir(), "modules")
	}
	return module, oci.New(opts), opts.CacheDir
}

func spec(source, pin string) fetch.Spec {
	return fetch.Spec{Plugin: "calc", Key: "plugins[0]", Source: source, SHA256: pin}
}

func TestParse(t *testing.T) {
	for _, ok := range []string{
		"oci://ghcr.io/tuananh/time-plugin:latest",
		"oci://ghcr.io/a/b/c:1.0",
		"oci://localhost/x:1",
		"oci://127.0.0.1:5000/x:1",
		"oci://ghcr.io/a/b@sha256:" + strings.Repeat("ab", 32),
		"oci://ghcr.io/a/b:1@sha256:" + strings.Repeat("ab", 32),
	} {
		if _, err := oci.Parse(ok); err != nil {
			t.Errorf("Parse(%q): %v", ok, err)
		}
	}
	for in, want := range map[string]string{
		"oci://ghcr.io/a/b":               "no tag or digest",
		"oci://127.0.0.1:5000/a":          "no tag or digest",
		"oci://tuananh/time-plugin:1":     "no registry host",
		"oci://ghcr.io":                   "no registry host",
		"oci://ghcr.io/":                  "no registry host",
		"oci://ghcr.io/A/b:1":             "repository can only contain",
		"oci://ghcr.io/a/b:":              "must specify a tag name after the colon",
		"oci://ghcr.io/a/b@sha256:abc":    "invalid checksum digest length",
		"oci://ghcr.io/a/b@md5:" + "ab":   "",
		"https://ghcr.io/a/b:1":           "not an oci:// reference",
		"oci://ghcr.io/a/b:1 extra":       "tag can only contain",
		"oci://ghcr.io/a/b@sha512:" + "x": "",
	} {
		_, err := oci.Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) succeeded", in)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want it to say %q", in, err, want)
		}
		if want != "not an oci:// reference" && !strings.Contains(err.Error(), "oci://REGISTRY/REPO:TAG") && !strings.Contains(err.Error(), "digest") {
			t.Errorf("Parse(%q) = %v: does not show the syntax", in, err)
		}
	}
}

// TestPull pulls the two shapes of image: a layer of a wasm media type,
// and plugin.wasm in a gzipped tar layer (hyper-mcp's), by tag and by
// digest, and finds both in the cache afterwards.
func TestPull(t *testing.T) {
	module, f, cache := setup(t, fetch.Options{})
	reg := harness.NewOCIRegistry(t, nil)
	sum := fetch.Sum(module)
	wasmDigest := reg.Push(t, "plugins/calculator:1", harness.WasmImage(t, module))
	tarDigest := reg.Push(t, "hyper/calculator:latest", harness.TarImage(t, map[string][]byte{
		"README.md": []byte("not this"), "plugin.wasm": module, "other/plugin.wasm": []byte("nor this"),
	}))
	ctx := context.Background()
	for _, src := range []string{
		reg.Source("plugins/calculator:1"),
		reg.Source("plugins/calculator@" + wasmDigest),
		reg.Source("hyper/calculator:latest"),
		reg.Source("hyper/calculator@" + tarDigest),
		reg.Source("hyper/calculator:latest@" + tarDigest),
	} {
		m, err := f.Fetch(ctx, spec(src, ""))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if !bytes.Equal(m.Data, module) || m.SHA256 != sum || m.Watch != nil {
			t.Errorf("%s: got %d bytes, sha256 %s, watch %v; want the calculator (%s), no watch", src, len(m.Data), m.SHA256, m.Watch, sum)
		}
	}
	if data, err := os.ReadFile(filepath.Join(cache, "sha256", sum)); err != nil || !bytes.Equal(data, module) {
		t.Errorf("module not cached as sha256/%s: %v", sum, err)
	}
	for _, d := range []string{wasmDigest, tarDigest} {
		link, err := os.ReadFile(filepath.Join(cache, "oci", "sha256", strings.TrimPrefix(d, "sha256:")))
		if err != nil || strings.TrimSpace(string(link)) != sum {
			t.Errorf("manifest %s not linked to the module: %q %v", d, link, err)
		}
	}
}

// TestCacheWithoutNetwork: with the registry stopped, a source pinned by
// manifest digest or by sha256 still loads from the cache, a tag alone
// fails (it must be resolved), naming the plugin and the source.
func TestCacheWithoutNetwork(t *testing.T) {
	module, f, cache := setup(t, fetch.Options{})
	reg := harness.NewOCIRegistry(t, nil)
	sum := fetch.Sum(module)
	digest := reg.Push(t, "plugins/calculator:1", harness.WasmImage(t, module))
	ctx := context.Background()
	if _, err := f.Fetch(ctx, spec(reg.Source("plugins/calculator:1"), "")); err != nil {
		t.Fatal(err)
	}
	reg.Stop()

	for _, s := range []fetch.Spec{
		spec(reg.Source("plugins/calculator@"+digest), ""),
		spec(reg.Source("plugins/calculator@"+digest), sum),
		spec(reg.Source("plugins/calculator:1"), sum),
		spec(reg.Source("plugins/calculator:2"), sum), // never pulled, but its module is cached
	} {
		m, err := f.Fetch(ctx, s)
		if err != nil {
			t.Errorf("%s (sha256 %q) with the registry down: %v", s.Source, s.SHA256, err)
		} else if m.SHA256 != sum {
			t.Errorf("%s: sha256 %s", s.Source, m.SHA256)
		}
	}
	// A new Fetcher on the same folder, as after a restart.
	restarted := oci.New(fetch.Options{CacheDir: cache})
	if _, err := restarted.Fetch(ctx, spec(reg.Source("plugins/calculator@"+digest), "")); err != nil {
		t.Errorf("after a restart, by digest with the registry down: %v", err)
	}

	src := reg.Source("plugins/calculator:1")
	_, err := f.Fetch(ctx, spec(src, ""))
	want := `plugin "calc" (plugins[0]): ` + src + ": get manifest: "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("tag with the registry down: got %v, want %s... connection refused", err, want)
	}
}

// TestPinMismatch: a sha256 pin that is not the module's is refused, and
// so is a manifest digest the registry does not have.
func TestPinMismatch(t *testing.T) {
	module, f, dir := setup(t, fetch.Options{})
	reg := harness.NewOCIRegistry(t, nil)
	reg.Push(t, "plugins/calculator:1", harness.WasmImage(t, module))
	ctx := context.Background()
	src := reg.Source("plugins/calculator:1")
	pin := strings.Repeat("0", 64)
	_, err := f.Fetch(ctx, spec(src, pin))
	want := `plugin "calc" (plugins[0].sha256): ` + src + " has sha256 " + fetch.Sum(module) + ", pinned " + pin
	if err == nil || err.Error() != want {
		t.Errorf("sha256 mismatch: got %v\nwant %s", err, want)
	}
	// Refused, so not cached: nothing under the cache, and refused again.
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a module its pin refused left %v in the cache", entries)
	}
	if _, err := f.Fetch(ctx, spec(src, pin)); err == nil || err.Error() != want {
		t.Errorf("sha256 mismatch, again: got %v\nwant %s", err, want)
	}

	src = reg.Source("plugins/calculator@sha256:" + strings.Repeat("ab", 32))
	_, err = f.Fetch(ctx, spec(src, ""))
	if err == nil || !strings.HasPrefix(err.Error(), `plugin "calc" (plugins[0]): `+src+": get manifest: ") || !strings.Contains(err.Error(), "MANIFEST_UNKNOWN") {
		t.Errorf("unknown digest: %v", err)
	}
}

// TestTampered: a registry serving other bytes than the digests say is
// refused, whether it is the manifest (pulled by digest) or the layer.
func TestTampered(t *testing.T) {
	type tamperer func(h http.Handler, w http.ResponseWriter, r *http.Request) bool
	var tamper atomic.Pointer[tamperer]
	reg := harness.NewOCIRegistry(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if f := tamper.Load(); f == nil || !(*f)(h, w, r) {
				h.ServeHTTP(w, r)
			}
		})
	})
	module, f, _ := setup(t, fetch.Options{})
	img := harness.WasmImage(t, module)
	digest := reg.Push(t, "plugins/calculator:1", img)
	other := reg.Push(t, "plugins/calculator:other", harness.WasmImage(t, []byte("\x00asm\x01\x00\x00\x00")))
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	layer, err := layers[0].Digest()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// The layer's bytes changed (same length).
	lt := tamperer(func(_ http.Handler, w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/blobs/"+layer.String()) {
			return false
		}
		bad := bytes.Clone(module)
		bad[len(bad)-1] ^= 0xff
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(bad)
		return true
	})
	tamper.Store(&lt)
	_, err = f.Fetch(ctx, spec(reg.Source("plugins/calculator:1"), ""))
	if err == nil || !strings.Contains(err.Error(), "pull "+digest) || !strings.Contains(err.Error(), "layer "+layer.String()) {
		t.Errorf("tampered layer: %v", err)
	}

	// Asked for one digest, the registry answers with another manifest.
	mt := tamperer(func(h http.Handler, w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/manifests/"+digest) {
			return false
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = strings.TrimSuffix(r.URL.Path, digest) + other
		h.ServeHTTP(w, r2)
		return true
	})
	tamper.Store(&mt)
	src := reg.Source("plugins/calculator@" + digest)
	_, err = f.Fetch(ctx, spec(src, ""))
	if err == nil || !strings.HasPrefix(err.Error(), `plugin "calc" (plugins[0]): `+src+": get manifest: ") {
		t.Errorf("tampered manifest: %v", err)
	}
}

// TestIndex: a tag naming an index (a multi-platform image, or docker
// buildx's image plus attestation) gives the module of its wasm image, or
// of its first image that is not an attestation.
func TestIndex(t *testing.T) {
	module, f, _ := setup(t, fetch.Options{})
	reg := harness.NewOCIRegistry(t, nil)
	decoy := harness.WasmImage(t, []byte("\x00asm\x01\x00\x00\x00"))
	attestation := mutate.IndexAddendum{Add: decoy, Descriptor: v1.Descriptor{
		Platform:    &v1.Platform{OS: "unknown", Architecture: "unknown"},
		Annotations: map[string]string{"vnd.docker.reference.type": "attestation-manifest"},
	}}
	buildx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex),
		attestation,
		mutate.IndexAddendum{Add: harness.TarImage(t, map[string][]byte{"plugin.wasm": module}), Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}},
	)
	multi := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex),
		mutate.IndexAddendum{Add: decoy, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}},
		mutate.IndexAddendum{Add: harness.WasmImage(t, module), Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "wasip1", Architecture: "wasm"}}},
	)
	reg.PushIndex(t, "plugins/buildx:1", buildx)
	reg.PushIndex(t, "plugins/multi:1", multi)
	for _, src := range []string{reg.Source("plugins/buildx:1"), reg.Source("plugins/multi:1")} {
		m, err := f.Fetch(context.Background(), spec(src, ""))
		if err != nil {
			t.Errorf("%s: %v", src, err)
		} else if !bytes.Equal(m.Data, module) {
			t.Errorf("%s: got %d bytes, not the calculator", src, len(m.Data))
		}
	}
}

// TestNoModule: an image without the module says what layers it has.
func TestNoModule(t *testing.T) {
	_, f, _ := setup(t, fetch.Options{})
	reg := harness.NewOCIRegistry(t, nil)
	reg.Push(t, "plugins/notes:1", harness.TarImage(t, map[string][]byte{"notes.txt": []byte("hi"), "dir/plugin.wasm": []byte("x")}))
	img, err := mutate.AppendLayers(empty.Image, static.NewLayer([]byte("{}"), "application/json"))
	if err != nil {
		t.Fatal(err)
	}
	reg.Push(t, "plugins/json:1", img)
	two, err := mutate.AppendLayers(empty.Image, static.NewLayer([]byte("a"), "application/wasm"), static.NewLayer([]byte("b"), "application/wasm"))
	if err != nil {
		t.Fatal(err)
	}
	reg.Push(t, "plugins/two:1", two)
	for src, want := range map[string]string{
		reg.Source("plugins/notes:1"): "no layer holds plugin.wasm (a layer of a wasm media type, or a tar layer with the file); layers: " + string(types.DockerLayer),
		reg.Source("plugins/json:1"):  "no layer holds plugin.wasm (a layer of a wasm media type, or a tar layer with the file); layers: application/json",
		reg.Source("plugins/two:1"):   "2 wasm layers and not exactly one titled plugin.wasm",
	} {
		_, err := f.Fetch(context.Background(), spec(src, ""))
		if err == nil || !strings.HasPrefix(err.Error(), `plugin "calc" (plugins[0]): `+src+": pull sha256:") || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: got %v, want ...%s", src, err, want)
		}
	}
}

// TestSizeLimit: a layer, or a plugin.wasm in a tar layer, larger than
// MaxSize is refused naming the limit.
func TestSizeLimit(t *testing.T) {
	module, f, _ := setup(t, fetch.Options{MaxSize: 64 << 10})
	reg := harness.NewOCIRegistry(t, nil)
	reg.Push(t, "plugins/raw:1", harness.WasmImage(t, module))
	zeros := make([]byte, 1<<20) // compresses well below the limit
	reg.Push(t, "plugins/tar:1", harness.TarImage(t, map[string][]byte{"plugin.wasm": zeros}))
	for src, want := range map[string]string{
		reg.Source("plugins/raw:1"): "bytes): larger than the 64KiB limit of a fetched module",
		reg.Source("plugins/tar:1"): "plugin.wasm (1048576 bytes): larger than the 64KiB limit of a fetched module",
	} {
		_, err := f.Fetch(context.Background(), spec(src, ""))
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: got %v, want ...%s", src, err, want)
		}
	}
}

// TestCredentials: a registry requiring credentials is pulled from with
// those of the Docker config file, and refuses without them.
func TestCredentials(t *testing.T) {
	var locked atomic.Bool
	reg := harness.NewOCIRegistry(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); locked.Load() && (!ok || u != "robot" || p != "s3cret") {
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
				http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"credentials required"}]}`, http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	module, f, _ := setup(t, fetch.Options{})
	reg.Push(t, "private/calculator:1", harness.WasmImage(t, module))
	locked.Store(true)
	src := reg.Source("private/calculator:1")

	_, err := f.Fetch(context.Background(), spec(src, ""))
	if err == nil || !strings.Contains(err.Error(), "UNAUTHORIZED") {
		t.Errorf("without credentials: %v", err)
	}
	auth := base64.StdEncoding.EncodeToString([]byte("robot:s3cret"))
	cfg := `{"auths":{"` + reg.Host + `":{"auth":"` + auth + `"}}}`
	if err := os.WriteFile(filepath.Join(os.Getenv("DOCKER_CONFIG"), "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := f.Fetch(context.Background(), spec(src, ""))
	if err != nil {
		t.Fatalf("with the Docker config's credentials: %v", err)
	}
	if !bytes.Equal(m.Data, module) {
		t.Error("not the calculator")
	}
}

// TestTarLayers: plugin.wasm is found in plain, gzip and zstd tar layers,
// and the last layer holding it wins.
func TestTarLayers(t *testing.T) {
	module, f, _ := setup(t, fetch.Options{})
	reg := harness.NewOCIRegistry(t, nil)
	plain := untar(t, harness.TarGz(t, map[string][]byte{"./plugin.wasm": module}))
	var zst bytes.Buffer
	zw, err := zstd.NewWriter(&zst)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(plain)
	zw.Close()
	older := harness.TarGz(t, map[string][]byte{"plugin.wasm": []byte("an older module")})
	for repo, layers := range map[string][]v1.Layer{
		"plain": {static.NewLayer(plain, types.OCIUncompressedLayer)},
		"zstd":  {static.NewLayer(zst.Bytes(), types.OCILayerZStd)},
		"last":  {static.NewLayer(older, types.OCILayer), static.NewLayer(harness.TarGz(t, map[string][]byte{"plugin.wasm": module}), types.OCILayer)},
	} {
		img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1), layers...)
		if err != nil {
			t.Fatal(err)
		}
		reg.Push(t, "plugins/"+repo+":1", img)
		m, err := f.Fetch(context.Background(), spec(reg.Source("plugins/"+repo+":1"), ""))
		if err != nil {
			t.Errorf("%s: %v", repo, err)
		} else if !bytes.Equal(m.Data, module) {
			t.Errorf("%s: got %d bytes, not the calculator", repo, len(m.Data))
		}
	}
}

func untar(t *testing.T, tgz []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBlobRedirectToAnotherLoopbackService: a registry that redirects a
// blob to another service on this machine does not make the fetch reach
// it (plugin HTTP's address rules apply to every redirect).
func TestBlobRedirectToAnotherLoopbackService(t *testing.T) {
	module, f, dir := setup(t, fetch.Options{})
	var hits atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(other.Close)
	reg := harness.NewOCIRegistry(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/blobs/") && r.Method == http.MethodGet {
				http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	reg.Push(t, "plugins/calculator:1", harness.WasmImage(t, module))
	_, err := f.Fetch(context.Background(), spec(reg.Source("plugins/calculator:1"), ""))
	if err == nil || !strings.Contains(err.Error(), "is a loopback address") {
		t.Fatalf("Fetch = %v, want a refused redirect", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the other service received %d requests", n)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("cached %v", entries)
	}
}
