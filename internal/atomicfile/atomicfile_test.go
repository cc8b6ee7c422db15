package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWrite replaces a file whole with the mode asked, leaves no
// temporary file, and on a failure leaves the file as it was.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	st, serr := os.Stat(path)
	if err != nil || serr != nil || string(b) != "new" || st.Mode().Perm() != 0o600 {
		t.Fatalf("after Write: %q %v, mode %v %v", b, err, st.Mode().Perm(), serr)
	}
	// A folder in the way of the rename: the write fails, nothing is left.
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(sub, []byte("x"), 0o600); err == nil {
		t.Fatal("Write over a non-empty folder succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("left behind: %v", entries)
	}
	if err := Write(filepath.Join(dir, "missing", "f"), nil, 0o600); err == nil {
		t.Fatal("Write into a missing folder succeeded")
	}
}
