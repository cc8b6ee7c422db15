package skillset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/wasmgate/wasmgate/loader"
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
