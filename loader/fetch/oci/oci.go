// Package oci fetches plugin modules from OCI registries: a source
// oci://REGISTRY/REPO:TAG or oci://REGISTRY/REPO@sha256:DIGEST names an
// image one of whose layers holds the module, either as a layer of a wasm
// media type (application/wasm, or any type ending in +wasm) or as a file
// plugin.wasm in a tar layer (plain, gzip or zstd), the way hyper-mcp's
// plugins are published. FetchLayer gets instead the one tar layer of a
// skills artifact, whole, and unpacks its files (layer.go).
//
// Credentials come from the standard Docker config file
// ($DOCKER_CONFIG/config.json, else ~/.docker/config.json, with its
// credential helpers; see authn.DefaultKeychain). Registries are reached
// over https; plain http only to a loopback registry. Every connection,
// redirects to blob storage included, is checked as fetch.Transport says.
// A module its sha256 pin refuses is not cached.
//
// Modules are cached by digest (see fetch.Cache): the module by the
// SHA-256 of its bytes and the manifest digest by the module it holds. A
// source pinned by sha256 or by manifest digest whose module is cached
// needs no network at all; a tag costs one manifest request, and its
// layer is downloaded only when the tag moved to a module not cached.
package oci

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/klauspost/compress/zstd"

	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/fetch/https"
)

// ModuleFile is the file an image's tar layer holds the module in.
const ModuleFile = "plugin.wasm"

// linkKind names the cache links from manifest digests to modules.
const linkKind = "oci"

// Fetcher pulls modules, and the layers of skills artifacts, from OCI
// registries.
type Fetcher struct {
	opts  fetch.Options
	cache fetch.Cache
	// remote are the options of every registry request but the context.
	remote []remote.Option
	// bundles downloads Sigstore bundles that verify.bundle names by URL.
	bundles *https.Fetcher
}

// New returns a Fetcher with opts (see fetch.Options).
func New(opts fetch.Options) *Fetcher {
	opts = opts.Defaults()
	return &Fetcher{
		opts:    opts,
		cache:   fetch.NewCache(opts.CacheDir),
		bundles: https.New(opts),
		remote: []remote.Option{
			remote.WithAuthFromKeychain(authn.DefaultKeychain),
			remote.WithUserAgent("wasmgate"),
		},
	}
}

// Check reports whether source is a well-formed oci:// reference.
func (f *Fetcher) Check(source string) error {
	_, err := Parse(source)
	return err
}

// Parse parses oci://REGISTRY/REPO:TAG or oci://REGISTRY/REPO@sha256:HEX
// (REPO:TAG@sha256:HEX is the digest reference). The registry, and a tag
// or a digest, must be given: nothing defaults to Docker Hub or "latest".
func Parse(source string) (name.Reference, error) {
	const want = "want oci://REGISTRY/REPO:TAG or oci://REGISTRY/REPO@sha256:DIGEST"
	rest, ok := strings.CutPrefix(source, "oci://")
	if !ok {
		return nil, fmt.Errorf("not an oci:// reference; %s", want)
	}
	reg, repo, ok := strings.Cut(rest, "/")
	if !ok || repo == "" || !(reg == "localhost" || strings.ContainsAny(reg, ".:")) {
		return nil, fmt.Errorf("no registry host (such as ghcr.io) before the repository; %s", want)
	}
	repo, _, _ = strings.Cut(repo, "@")
	if !strings.Contains(rest, "@") && !strings.Contains(path.Base(repo), ":") {
		return nil, fmt.Errorf("no tag or digest; %s", want)
	}
	// Parse as the kind of reference it is, for the precise error.
	if _, dig, ok := strings.Cut(rest, "@"); ok {
		if !strings.HasPrefix(dig, "sha256:") {
			return nil, fmt.Errorf("digest %q: only sha256 digests are supported", dig)
		}
		d, err := name.NewDigest(rest, name.StrictValidation)
		if err != nil {
			return nil, fmt.Errorf("%v; %s", err, want)
		}
		return d, nil
	}
	t, err := name.NewTag(rest, name.StrictValidation)
	if err != nil {
		return nil, fmt.Errorf("%v; %s", err, want)
	}
	return t, nil
}

// Fetch gets the module of spec.Source, from the cache when it can.
func (f *Fetcher) Fetch(ctx context.Context, spec fetch.Spec) (fetch.Module, error) {
	return f.fetch(ctx, spec, pullModule)
}

// pullKind is what a fetch pulls out of an image: a plugin's module, or
// the tar layer of a skills artifact (FetchLayer). Each has its own cache
// links from manifest digests, so one image fetched both ways is cached
// both ways.
type pullKind int

const (
	pullModule pullKind = iota
	pullLayer
)

// link is the kind of the cache links from manifest digests.
func (k pullKind) link() string {
	if k == pullLayer {
		return linkKind + "-layer"
	}
	return linkKind
}

func (k pullKind) String() string {
	if k == pullLayer {
		return "skills layer"
	}
	return "plugin module"
}

// fetch gets what k pulls of spec.Source, from the cache when it can.
func (f *Fetcher) fetch(ctx context.Context, spec fetch.Spec, k pullKind) (fetch.Module, error) {
	ref, err := Parse(spec.Source)
	if err != nil {
		return fetch.Module{}, fmt.Errorf("%s (%s.path): %s: %w", spec.Owner(), spec.Key, spec.Source, err)
	}
	fail := func(what string, err error) (fetch.Module, error) {
		return fetch.Module{}, fmt.Errorf("%s (%s): %s: %s: %w", spec.Owner(), spec.Key, spec.Source, what, err)
	}
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	// The registry is connected to only when needed.
	var opts []remote.Option
	connect := func() ([]remote.Option, error) {
		if opts != nil {
			return opts, nil
		}
		rt, closeIdle, err := fetch.Transport(ref.Context().RegistryStr(), f.opts)
		if err != nil {
			return nil, err
		}
		context.AfterFunc(ctx, closeIdle)
		opts = append(slices.Clip(f.remote), remote.WithContext(ctx), remote.WithTransport(rt))
		return opts, nil
	}

	// Pinned and cached (and verified, under spec.Verify): no network.
	if data, ok := f.cache.Module(spec.SHA256); ok && f.trusted(spec, data, spec.SHA256, k) {
		return fetch.Module{Data: data, SHA256: spec.SHA256}, nil
	}
	if d, ok := ref.(name.Digest); ok {
		if m, ok := f.cached(d.DigestStr(), k); ok {
			return f.verified(ctx, spec, ref, d.DigestStr(), m, k, connect)
		}
	}

	o, err := connect()
	if err != nil {
		return fail("get manifest", err)
	}
	start := time.Now()
	desc, err := remote.Get(ref, o...)
	if err != nil {
		return fail("get manifest", err)
	}
	digest := desc.Digest.String()
	if m, ok := f.cached(digest, k); ok {
		return f.verified(ctx, spec, ref, digest, m, k, connect)
	}
	data, err := f.pull(desc, k)
	if err != nil {
		return fail("pull "+digest, err)
	}
	sum := fetch.Sum(data)
	if err := fetch.CheckPin(spec, sum); err != nil {
		return fetch.Module{}, err // refused: nothing is cached
	}
	sig, err := f.signature(ctx, spec, ref, digest, data, connect)
	if err != nil {
		return fetch.Module{}, err // refused: nothing is cached
	}
	if err := f.cache.PutModule(data, sum); err != nil {
		f.opts.Logger.Warn("cannot cache module", logKey(spec), spec.Plugin, "source", spec.Source, "error", err)
	} else if err := f.cache.PutLink(k.link(), digest, sum); err != nil {
		f.opts.Logger.Warn("cannot cache module", logKey(spec), spec.Plugin, "source", spec.Source, "error", err)
	} else {
		f.putSignature(spec, sum, sig)
	}
	f.opts.Logger.Info("pulled "+k.String(), logKey(spec), spec.Plugin, "source", spec.Source,
		"digest", digest, "sha256", sum, "bytes", len(data), "duration", time.Since(start).Round(time.Millisecond))
	return fetch.Module{Data: data, SHA256: sum}, nil
}

// logKey is the log attribute naming spec's plugin or skills source.
func logKey(spec fetch.Spec) string {
	if spec.What == "" {
		return "plugin"
	}
	return spec.What
}

// BundleArtifactType is the artifactType of the OCI referrers that hold
// Sigstore bundles (cosign sign, v3).
const BundleArtifactType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// digestVerifier verifies a bundle of an artifact known by its digest
// (sigstore.Verifier does).
type digestVerifier interface {
	VerifyDigest(digest, bundle []byte) error
}

// sigResult is a bundle that verified a module, and the manifest it
// signs when it signs the manifest rather than the module's bytes.
type sigResult struct {
	bundle   []byte
	manifest string
}

// trusted reports whether data, cached as sum, needs no signature check
// or has a cached bundle that verifies it again under spec.Verify: one of
// its bytes, or one of the manifest it was pulled from.
func (f *Fetcher) trusted(spec fetch.Spec, data []byte, sum string, k pullKind) bool {
	if spec.Verify == nil || f.cache.Verified(spec, sum, data) {
		return true
	}
	dv, ok := spec.Verify.(digestVerifier)
	if !ok {
		return false
	}
	manifest, bundle, ok := f.cache.ManifestBundle(spec, sum)
	if !ok {
		return false
	}
	// The manifest must be one this module was pulled from.
	if linked, ok := f.cache.Link(k.link(), manifest); !ok || linked != sum {
		return false
	}
	hexDigest, err := hex.DecodeString(strings.TrimPrefix(manifest, "sha256:"))
	return err == nil && dv.VerifyDigest(hexDigest, bundle) == nil
}

// verified returns m, a cached module pulled from manifest, if it is what
// spec pins and its signature checks: against a bundle cached with it
// under the same trust (no network), else against the bundle fetched
// again.
func (f *Fetcher) verified(ctx context.Context, spec fetch.Spec, ref name.Reference, manifest string, m fetch.Module, k pullKind, connect func() ([]remote.Option, error)) (fetch.Module, error) {
	if err := fetch.CheckPin(spec, m.SHA256); err != nil {
		return fetch.Module{}, err
	}
	if f.trusted(spec, m.Data, m.SHA256, k) {
		return m, nil
	}
	sig, err := f.signature(ctx, spec, ref, manifest, m.Data, connect)
	if err != nil {
		return fetch.Module{}, err
	}
	f.putSignature(spec, m.SHA256, sig)
	return m, nil
}

func (f *Fetcher) putSignature(spec fetch.Spec, sum string, sig sigResult) {
	var err error
	if sig.manifest != "" {
		err = f.cache.PutManifestBundle(spec, sum, sig.manifest, sig.bundle)
	} else {
		err = f.cache.PutBundle(spec, sum, sig.bundle)
	}
	if err != nil {
		f.opts.Logger.Warn("cannot cache signature bundle", logKey(spec), spec.Plugin, "source", spec.Source, "error", err)
	}
}

// signature checks data, pulled from manifest, against spec.Verify: with
// verify.bundle, that bundle must sign the module's bytes; without, one
// of the manifest's OCI referrers of artifactType BundleArtifactType must
// sign the manifest (cosign sign) or the module's bytes.
func (f *Fetcher) signature(ctx context.Context, spec fetch.Spec, ref name.Reference, manifest string, data []byte, connect func() ([]remote.Option, error)) (sigResult, error) {
	if spec.Verify == nil {
		return sigResult{}, nil
	}
	if spec.Verify.Bundle() != "" {
		b, err := fetch.CheckSignature(ctx, spec, data, "", f.bundles.Download)
		return sigResult{bundle: b}, err
	}
	failf := func(format string, args ...any) (sigResult, error) {
		return sigResult{}, fmt.Errorf("%s (%s.verify): signature check failed: %s: %s", spec.Owner(), spec.Key, spec.Source, fmt.Sprintf(format, args...))
	}
	dv, ok := spec.Verify.(digestVerifier)
	if !ok {
		return failf("no verify.bundle given")
	}
	opts, err := connect()
	if err != nil {
		return failf("referrers of %s: %v", manifest, err)
	}
	bundles, err := f.referrerBundles(ref.Context(), manifest, opts)
	if err != nil {
		return failf("referrers of %s: %v", manifest, err)
	}
	if len(bundles) == 0 {
		return failf("no Sigstore bundle among the OCI referrers of %s (artifactType %s; sign the image with cosign sign, or name a bundle with verify.bundle)", manifest, BundleArtifactType)
	}
	hexDigest, err := hex.DecodeString(strings.TrimPrefix(manifest, "sha256:"))
	if err != nil {
		return failf("manifest digest %s: %v", manifest, err)
	}
	var errs []string
	for _, b := range bundles {
		errManifest := dv.VerifyDigest(hexDigest, b.data)
		if errManifest == nil {
			return sigResult{bundle: b.data, manifest: manifest}, nil
		}
		errBytes := spec.Verify.Verify(data, b.data)
		if errBytes == nil {
			return sigResult{bundle: b.data}, nil
		}
		// Report the error of what the bundle signs: the module's bytes
		// when its digest is not the manifest's.
		why := errManifest
		if strings.Contains(errManifest.Error(), "but the manifest is") {
			why = errBytes
		}
		errs = append(errs, fmt.Sprintf("referrer %s: %v", b.digest, why))
	}
	return failf("%s", strings.Join(errs, "; "))
}

type referrerBundle struct {
	digest string
	data   []byte
}

// referrerBundles returns the Sigstore bundles among the referrers of the
// manifest digest in repo.
func (f *Fetcher) referrerBundles(repo name.Repository, manifest string, opts []remote.Option) ([]referrerBundle, error) {
	idx, err := remote.Referrers(repo.Digest(manifest), append(slices.Clip(opts), remote.WithFilter("artifactType", BundleArtifactType))...)
	if err != nil {
		return nil, err
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	var out []referrerBundle
	for _, m := range im.Manifests {
		if m.ArtifactType != BundleArtifactType || len(out) >= 8 {
			continue
		}
		img, err := remote.Image(repo.Digest(m.Digest.String()), opts...)
		if err != nil {
			return nil, fmt.Errorf("referrer %s: %w", m.Digest, err)
		}
		man, err := img.Manifest()
		if err != nil {
			return nil, fmt.Errorf("referrer %s: %w", m.Digest, err)
		}
		for _, l := range man.Layers {
			if l.MediaType != BundleArtifactType {
				continue
			}
			if l.Size > fetch.MaxBundleSize {
				return nil, fmt.Errorf("referrer %s: bundle of %d bytes, more than %d", m.Digest, l.Size, fetch.MaxBundleSize)
			}
			data, err := f.blob(img, l)
			if err != nil {
				return nil, fmt.Errorf("referrer %s: %w", m.Digest, err)
			}
			out = append(out, referrerBundle{digest: m.Digest.String(), data: data})
		}
	}
	return out, nil
}

// cached returns the module the manifest digest resolved to before.
func (f *Fetcher) cached(digest string, k pullKind) (fetch.Module, bool) {
	sum, ok := f.cache.Link(k.link(), digest)
	if !ok {
		return fetch.Module{}, false
	}
	data, ok := f.cache.Module(sum)
	if !ok {
		return fetch.Module{}, false
	}
	return fetch.Module{Data: data, SHA256: sum}, true
}

// pull finds what k pulls in the image (or, for an index, the image of a
// wasm platform, else the first image) and downloads it.
func (f *Fetcher) pull(desc *remote.Descriptor, k pullKind) ([]byte, error) {
	var img v1.Image
	switch mt := desc.MediaType; {
	case mt.IsImage():
		var err error
		if img, err = desc.Image(); err != nil {
			return nil, err
		}
	case mt.IsIndex():
		idx, err := desc.ImageIndex()
		if err != nil {
			return nil, err
		}
		im, err := idx.IndexManifest()
		if err != nil {
			return nil, err
		}
		child, err := pickImage(im)
		if err != nil {
			return nil, err
		}
		if img, err = idx.Image(child.Digest); err != nil {
			return nil, fmt.Errorf("image %s: %w", child.Digest, err)
		}
	default:
		return nil, fmt.Errorf("media type %s is not an image", mt)
	}
	m, err := img.Manifest()
	if err != nil {
		return nil, err
	}
	if k == pullLayer {
		return f.skillsLayer(img, m)
	}

	// A layer of a wasm media type: the one titled plugin.wasm, or the
	// only one.
	var wasm []v1.Descriptor
	for _, l := range m.Layers {
		if isWasm(l.MediaType) {
			wasm = append(wasm, l)
		}
	}
	if len(wasm) > 1 {
		titled := slices.DeleteFunc(slices.Clone(wasm), func(l v1.Descriptor) bool {
			return l.Annotations["org.opencontainers.image.title"] != ModuleFile
		})
		if len(titled) != 1 {
			return nil, fmt.Errorf("%d wasm layers and not exactly one titled %s", len(wasm), ModuleFile)
		}
		wasm = titled
	}
	if len(wasm) == 1 {
		return f.blob(img, wasm[0])
	}

	// Else plugin.wasm in a tar layer, the last one holding it winning as
	// it would in a container's file system.
	var types []string
	for _, l := range slices.Backward(m.Layers) {
		types = append(types, string(l.MediaType))
		if !isTar(l.MediaType) {
			continue
		}
		blob, err := f.blob(img, l)
		if err != nil {
			return nil, err
		}
		data, found, err := fromTar(blob, f.opts.MaxSize)
		if err != nil {
			return nil, fmt.Errorf("layer %s: %w", l.Digest, err)
		}
		if found {
			return data, nil
		}
	}
	slices.Reverse(types)
	return nil, fmt.Errorf("no layer holds %s (a layer of a wasm media type, or a tar layer with the file); layers: %s", ModuleFile, strings.Join(types, ", "))
}

// blob downloads a layer, bounded by MaxSize and checked against its
// digest.
func (f *Fetcher) blob(img v1.Image, l v1.Descriptor) ([]byte, error) {
	if l.Size > f.opts.MaxSize {
		return nil, fmt.Errorf("layer %s (%d bytes): %w", l.Digest, l.Size, fetch.TooLarge(f.opts.MaxSize))
	}
	layer, err := img.LayerByDigest(l.Digest)
	if err != nil {
		return nil, fmt.Errorf("layer %s: %w", l.Digest, err)
	}
	rc, err := layer.Compressed()
	if err != nil {
		return nil, fmt.Errorf("layer %s: %w", l.Digest, err)
	}
	defer rc.Close()
	data, err := fetch.ReadAll(rc, f.opts.MaxSize)
	if err != nil {
		return nil, fmt.Errorf("layer %s: %w", l.Digest, err)
	}
	if l.Digest.Algorithm != "sha256" || fetch.Sum(data) != l.Digest.Hex {
		return nil, fmt.Errorf("layer %s: downloaded bytes have sha256:%s", l.Digest, fetch.Sum(data))
	}
	return data, nil
}

// pickImage chooses the image of an index: one for a wasm platform, else
// the first that is not an attestation.
func pickImage(im *v1.IndexManifest) (v1.Descriptor, error) {
	var images []v1.Descriptor
	for _, m := range im.Manifests {
		if m.MediaType.IsImage() && m.Annotations["vnd.docker.reference.type"] != "attestation-manifest" {
			images = append(images, m)
		}
	}
	for _, m := range images {
		if p := m.Platform; p != nil && (p.Architecture == "wasm" || p.OS == "wasip1" || p.OS == "wasi") {
			return m, nil
		}
	}
	if len(images) == 0 {
		return v1.Descriptor{}, errors.New("the index lists no image")
	}
	return images[0], nil
}

func isWasm(mt types.MediaType) bool {
	return mt == "application/wasm" || strings.HasSuffix(string(mt), "+wasm")
}

func isTar(mt types.MediaType) bool {
	switch mt {
	case types.DockerLayer, types.DockerUncompressedLayer, types.OCILayer, types.OCILayerZStd, types.OCIUncompressedLayer:
		return true
	}
	return false
}

// fromTar returns plugin.wasm from a tar layer, plain or compressed.
func fromTar(blob []byte, max int64) ([]byte, bool, error) {
	r, err := decompress(blob)
	if err != nil {
		return nil, false, err
	}
	defer r.Close()
	// Bound what is decompressed on the way to the file.
	tr := tar.NewReader(io.LimitReader(r, 4*max))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("read tar: %w", err)
		}
		if path.Clean("/"+h.Name) != "/"+ModuleFile || h.Typeflag != tar.TypeReg {
			continue
		}
		if h.Size > max {
			return nil, false, fmt.Errorf("%s (%d bytes): %w", ModuleFile, h.Size, fetch.TooLarge(max))
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, false, fmt.Errorf("read %s: %w", ModuleFile, err)
		}
		return data, true, nil
	}
}

func decompress(blob []byte) (io.ReadCloser, error) {
	switch {
	case bytes.HasPrefix(blob, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(bytes.NewReader(blob))
		if err != nil {
			return nil, fmt.Errorf("gunzip: %w", err)
		}
		return zr, nil
	case bytes.HasPrefix(blob, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(bytes.NewReader(blob), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		return zr.IOReadCloser(), nil
	}
	return io.NopCloser(bytes.NewReader(blob)), nil
}
