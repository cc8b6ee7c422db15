package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

type rawManifest struct {
	data []byte
	mt   types.MediaType
}

func (r rawManifest) RawManifest() ([]byte, error)        { return r.data, nil }
func (r rawManifest) MediaType() (types.MediaType, error) { return r.mt, nil }

// Attach pushes data as an OCI 1.1 referrer of the manifest subject
// ("sha256:...") in repo, an artifact of artifactType whose one layer is
// data, as cosign sign (v3) stores a Sigstore bundle; it returns the
// referrer's digest. Its config has the artifact type as media type too,
// which is what go-containerregistry's registry reports as artifactType.
func (r *OCIRegistry) Attach(t testing.TB, repo, subject, artifactType string, data []byte) string {
	t.Helper()
	rp, err := name.NewRepository(r.Host + "/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := remote.Head(rp.Digest(subject))
	if err != nil {
		t.Fatal(err)
	}
	config := static.NewLayer([]byte("{}"), types.MediaType(artifactType))
	layer := static.NewLayer(data, types.MediaType(artifactType))
	desc := func(l v1.Layer) map[string]any {
		d, err := l.Digest()
		if err != nil {
			t.Fatal(err)
		}
		n, _ := l.Size()
		return map[string]any{"mediaType": artifactType, "digest": d.String(), "size": n}
	}
	for _, l := range []v1.Layer{config, layer} {
		if err := remote.WriteLayer(rp, l); err != nil {
			t.Fatal(err)
		}
	}
	m, err := json.Marshal(map[string]any{
		"schemaVersion": 2,
		"mediaType":     types.OCIManifestSchema1,
		"artifactType":  artifactType,
		"config":        desc(config),
		"layers":        []any{desc(layer)},
		"subject":       map[string]any{"mediaType": sub.MediaType, "digest": sub.Digest.String(), "size": sub.Size},
	})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(m)
	d := "sha256:" + hex.EncodeToString(sum[:])
	if err := remote.Put(rp.Digest(d), rawManifest{m, types.OCIManifestSchema1}); err != nil {
		t.Fatal(err)
	}
	return d
}
