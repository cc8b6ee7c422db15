package harness

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// WasmLayerType is the media type WasmImage gives its layer (the one
// wasm OCI tooling such as wasm-to-oci and crun use).
const WasmLayerType types.MediaType = "application/vnd.module.wasm.content.layer.v1+wasm"

// OCIRegistry is an in-process OCI registry (go-containerregistry's, in
// memory) serving plain http on a loopback port, for oci:// sources.
type OCIRegistry struct {
	// Host is 127.0.0.1:port: sources are oci://Host/REPO:TAG.
	Host string
	srv  *httptest.Server
}

// NewOCIRegistry starts a registry, stopped at the end of the test. wrap,
// when not nil, wraps its handler (to require credentials, say, or to
// tamper with what it serves).
func NewOCIRegistry(t testing.TB, wrap func(http.Handler) http.Handler) *OCIRegistry {
	t.Helper()
	h := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &OCIRegistry{Host: srv.Listener.Addr().String(), srv: srv}
}

// Stop stops the registry: from then on every connection is refused.
func (r *OCIRegistry) Stop() { r.srv.Close() }

// Push pushes img as REPO:TAG (repoTag) and returns its manifest digest
// ("sha256:...").
func (r *OCIRegistry) Push(t testing.TB, repoTag string, img v1.Image) string {
	t.Helper()
	ref, err := name.ParseReference(r.Host + "/" + repoTag)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

// PushIndex pushes idx as REPO:TAG and returns its digest.
func (r *OCIRegistry) PushIndex(t testing.TB, repoTag string, idx v1.ImageIndex) string {
	t.Helper()
	ref, err := name.ParseReference(r.Host + "/" + repoTag)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(ref, idx); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
	d, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

// Source is the oci:// source of REPO:TAG or REPO@DIGEST in the registry.
func (r *OCIRegistry) Source(ref string) string { return "oci://" + r.Host + "/" + ref }

// WasmImage is an OCI image whose one layer is module, of media type
// WasmLayerType.
func WasmImage(t testing.TB, module []byte) v1.Image {
	t.Helper()
	img, err := mutate.Append(mutate.MediaType(empty.Image, types.OCIManifestSchema1), mutate.Addendum{
		Layer:       static.NewLayer(module, WasmLayerType),
		Annotations: map[string]string{"org.opencontainers.image.title": "plugin.wasm"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TarImage is a Docker image with one gzipped tar layer holding files
// (name -> content), as `docker build` makes from a Dockerfile
// `FROM scratch` + `COPY plugin.wasm /plugin.wasm` (how hyper-mcp
// publishes its plugins).
func TarImage(t testing.TB, files map[string][]byte) v1.Image {
	t.Helper()
	img, err := mutate.AppendLayers(empty.Image, static.NewLayer(TarGz(t, files), types.DockerLayer))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TarGz is a gzipped tar of files (name -> content), in name order.
func TarGz(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, n := range slices.Sorted(maps.Keys(files)) {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(files[n]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
