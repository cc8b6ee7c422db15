package skillset

import (
	"archive/tar"
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/fetch/oci"
)

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRead: a folder's skills as resources and skills; a binary file is
// read as base64; a bad SKILL.md is a problem naming it.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "pdf", "SKILL.md"), []byte("---\nname: pdf\ndescription: PDFs\n---\nbody"))
	write(t, filepath.Join(dir, "pdf", "logo.png"), []byte{0x89, 'P', 'N', 'G', 0xff})
	write(t, filepath.Join(dir, "bad", "SKILL.md"), []byte("nothing"))
	s := Read(loader.SkillsSpec{Name: "sk", Key: "skills[0]", Path: "skills", Dir: dir})
	d := s.Descriptor()
	if len(d.Skills) != 1 || d.Skills[0].URI != "skill://pdf/SKILL.md" || len(d.Skills[0].Files) != 2 || len(d.Resources) != 2 {
		t.Fatalf("descriptor %+v", d)
	}
	if d.Resources[0].Name != "pdf" || d.Resources[0].Description != "PDFs" || d.Resources[0].MimeType != "text/markdown" {
		t.Errorf("SKILL.md resource %+v", d.Resources[0])
	}
	if p := s.Problems(); len(p) != 1 || !strings.Contains(p[0], filepath.Join("skills", "bad", "SKILL.md")+": no front matter") {
		t.Errorf("problems %v", p)
	}
	c, err := s.ReadResource(context.Background(), d.Resources[1], "skill://pdf/logo.png", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := c[0].(mcp.BlobResourceContents); !ok || b.Blob != "iVBOR/8=" || b.MIMEType != "image/png" {
		t.Errorf("logo.png: %+v", c[0])
	}
	if _, err := s.ReadResource(context.Background(), d.Resources[1], "skill://pdf/nope", nil); err == nil {
		t.Error("a file that is not there was read")
	}
}

// tarOf is a plain tar of files (name -> content).
func tarOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, n := range slices.Sorted(maps.Keys(files)) {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(files[n]))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadLayer: an artifact's skills are read from within the folder the
// layer was packed from; a SKILL.md at the top of a layer is the skill
// named by the repository; a bad SKILL.md is a problem naming the
// artifact; the lock pins the layer's digest, a folder's nothing.
func TestReadLayer(t *testing.T) {
	const src = "oci://127.0.0.1:5000/acme/pdf:1"
	spec := loader.SkillsSpec{Name: "acme", Key: "skills[1]", Path: src, Prefix: "acme"}
	l, err := oci.ReadLayer(tarOf(t, map[string]string{
		"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: PDFs\n---\n", "skills/pdf/refs/A.md": "a",
		"skills/bad/SKILL.md": "nothing",
	}), oci.Limits{MaxBytes: 1 << 20, MaxEntries: 64})
	if err != nil {
		t.Fatal(err)
	}
	l.SHA256 = strings.Repeat("ab", 32)
	s := ReadLayer(spec, l)
	d := s.Descriptor()
	if len(d.Skills) != 1 || d.Skills[0].URI != "skill://pdf/SKILL.md" || len(d.Skills[0].Files) != 2 {
		t.Fatalf("descriptor %+v", d)
	}
	if p := s.Problems(); len(p) != 1 || p[0] != "skills[1]: skill left out: "+src+": bad/SKILL.md: no front matter: the file must begin with a line \"---\", then YAML with name and description, then a line \"---\"" {
		t.Errorf("problems %q", p)
	}
	if pins, err := s.Pins(); err != nil || pins.Module != l.SHA256 || pins.Kind != "skills artifact" || pins.Declared != "skills[1]" {
		t.Errorf("pins %+v %v", pins, err)
	}
	if got, _ := Read(loader.SkillsSpec{Name: "f", Key: "skills[0]", Path: "x", Dir: t.TempDir()}).Pins(); got.Module != "" || got.Kind != "skills folder" {
		t.Errorf("a folder's pins %+v", got)
	}

	top, err := oci.ReadLayer(tarOf(t, map[string]string{"SKILL.md": "---\nname: pdf\ndescription: PDFs\n---\n"}), oci.Limits{MaxBytes: 1 << 10, MaxEntries: 4})
	if err != nil {
		t.Fatal(err)
	}
	if d := ReadLayer(spec, top).Descriptor(); len(d.Skills) != 1 || d.Skills[0].URI != "skill://pdf/SKILL.md" {
		t.Errorf("a SKILL.md at the top of oci://…/acme/pdf:1: %+v", d)
	}
}
