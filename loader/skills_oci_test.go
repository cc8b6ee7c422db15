package loader

import (
	"context"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/fetch/oci"
	"github.com/wasmgate/wasmgate/loader/fetch/sigstore/sigstoretest"
)

// TestSkillsArtifact: an oci:// entry of the skills section is named by
// its repository, its sha256 pin normalized, its verify section resolved
// against the config's folder and watched, no folder watched for it; the
// Compiler fetches it (signed by a referrer, as cosign sign stores it)
// into its module cache, from which a Compiler restarted with the registry
// gone fetches it again; a pin of other bytes is refused naming the key.
func TestSkillsArtifact(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	reg := harness.NewOCIRegistry(t, nil)
	files := map[string][]byte{"skills/pdf/SKILL.md": []byte("---\nname: pdf\ndescription: PDFs\n---\n")}
	blob := harness.TarGz(t, files) // the layer of TarImage(files)
	digest := reg.Push(t, "acme/team-skills:1", harness.TarImage(t, files))
	key := sigstoretest.NewKey(t)
	reg.Attach(t, "acme/team-skills", digest, oci.BundleArtifactType, key.SignDigest(t, reg.Host+"/acme/team-skills", strings.TrimPrefix(digest, "sha256:")))
	sum := fetch.Sum(blob)

	p := writeFiles(t, `
plugins: []
skills:
  - path: `+reg.Source("acme/team-skills:1")+`
    sha256: sha256:`+strings.ToUpper(sum)+`
    verify: {key_file: keys/acme.pub}
  - path: `+reg.Source("acme/team-skills:1")+`
    name: unpinned
    prefix: acme
`, "keys/.keep")
	dir := filepath.Dir(p)
	pub := key.WritePublic(t, filepath.Join(dir, "keys"), "acme.pub")
	cfg, err := Load(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Skills[0]
	if !s.Artifact() || s.Name != "team-skills" || s.SHA256 != sum || s.Dir != "" || s.Verify == nil || s.Verify.KeyFile != pub {
		t.Errorf("skills[0] normalized as %+v", s)
	}
	if !slices.Contains(cfg.WatchFiles(), pub) {
		t.Errorf("verify.key_file %s is not watched: %v", pub, cfg.WatchFiles())
	}

	cache := t.TempDir()
	c, err := NewCompiler(cache, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	ctx := context.Background()
	for _, s := range cfg.Skills {
		l, err := c.FetchSkills(ctx, s)
		if err != nil {
			t.Fatalf("%s: %v", s.Key, err)
		}
		if b, err := fs.ReadFile(l, "pdf/SKILL.md"); err != nil || l.SHA256 != sum || !strings.Contains(string(b), "name: pdf") {
			t.Errorf("%s: layer %s, pdf/SKILL.md %q %v", s.Key, l.SHA256, b, err)
		}
	}

	bad := cfg.Skills[1]
	bad.SHA256 = strings.Repeat("ab", 32)
	_, err = c.FetchSkills(ctx, bad)
	if want := `skills "unpinned" (skills[1].sha256): ` + bad.Path + " has sha256 " + sum + ", pinned " + bad.SHA256; err == nil || err.Error() != want {
		t.Errorf("pin of other bytes: %v, want %s", err, want)
	}

	reg.Stop()
	c2, err := NewCompiler(cache, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(context.Background())
	if _, err := c2.FetchSkills(ctx, cfg.Skills[0]); err != nil {
		t.Errorf("pinned, signed and cached, with the registry gone: %v", err)
	}
}
