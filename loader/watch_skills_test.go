package loader

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestWatchSkillsTree: a skills folder is watched to its depths: saving a
// SKILL.md, adding a file in a folder below it, and a skill folder made
// after the watch began (once tracked again, as a reload does) reload;
// a dot file does not.
func TestWatchSkillsTree(t *testing.T) {
	dir := t.TempDir()
	skills := filepath.Join(dir, "skills")
	md := filepath.Join(skills, "git", "SKILL.md")
	if err := os.MkdirAll(filepath.Join(skills, "git", "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(md, []byte("---\nname: git\ndescription: d\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(cfgPath, []byte("plugins: []\nskills:\n  - path: skills\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, reloads := watchTest(t, cfgPath)

	renameOver(t, md, []byte("---\nname: git\ndescription: changed\n---\n"))
	if p := nextReload(t, reloads, "SKILL.md saved"); !slices.Contains(p, md) {
		t.Errorf("reload paths %v, want %s among them", p, md)
	}
	guide := filepath.Join(skills, "git", "refs", "GUIDE.md")
	if err := os.WriteFile(guide, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p := nextReload(t, reloads, "a file added two folders down"); !slices.Contains(p, guide) {
		t.Errorf("reload paths %v, want %s", p, guide)
	}
	if err := os.WriteFile(filepath.Join(skills, "git", ".swp"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	noReload(t, reloads, 300*time.Millisecond, "a dot file written")

	// A new skill: its folder appearing reloads; once tracked again, its
	// SKILL.md's save does too.
	newDir := filepath.Join(skills, "release")
	if err := os.Mkdir(newDir, 0o755); err != nil {
		t.Fatal(err)
	}
	nextReload(t, reloads, "a skill folder made")
	cfg, err := LoadUnlocked(cfgPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Track(cfgPath, cfg)
	rel := filepath.Join(newDir, "SKILL.md")
	if err := os.WriteFile(rel, []byte("---\nname: release\ndescription: d\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p := nextReload(t, reloads, "the new skill's SKILL.md written"); !slices.Contains(p, rel) {
		t.Errorf("reload paths %v, want %s", p, rel)
	}
}
