package main

// scripts/debversion.sh: the Debian version of a build. Untagged builds
// are 0.0.0~git<date>.<hash> whatever the hash starts with (a hash of
// digits once became "Version: 8602646", above any 1.0.0), and dpkg
// orders them before every release and by commit time.

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/internal/harness"
)

func debVersionOf(t *testing.T, version, commit string) string {
	t.Helper()
	out, err := exec.Command("bash", filepath.Join(harness.RepoRoot(), "scripts/debversion.sh"), version, commit).CombinedOutput()
	if err != nil {
		t.Fatalf("debversion.sh %s %s: %v\n%s", version, commit, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestDebVersion(t *testing.T) {
	t.Parallel()
	head := strings.TrimSpace(sh(t, "git", "-C", harness.RepoRoot(), "rev-parse", "HEAD"))
	git := exec.Command("git", "-C", harness.RepoRoot(), "show", "-s", "--format=%cd", "--date=format-local:%Y%m%d%H%M%S", head)
	git.Env = append(harness.CleanEnv(), "TZ=UTC")
	out, err := git.Output()
	if err != nil {
		t.Fatal(err)
	}
	date := strings.TrimSpace(string(out))
	untagged := regexp.MustCompile(`^0\.0\.0~git[0-9]{14}\.[0-9a-f]{7}$`)
	for _, tc := range []struct{ version, commit, want string }{
		{"v1.2.3", head, "1.2.3"},
		{"v1.0.0-rc.1", head, "1.0.0~rc.1"},
		{"v1.2.3-4-g" + head[:7], head, "1.2.3+git" + date + "." + head[:7]},
		{head[:7], head, "0.0.0~git" + date + "." + head[:7]},
		{"8602646", "8602646" + head[7:], ""},       // digits only: still a hash
		{"abcdef1-dirty", "abcdef1" + head[7:], ""}, // not a commit here: no date
		{"dev", head, "0.0.0~git" + date + "." + head[:7]},
	} {
		got := debVersionOf(t, tc.version, tc.commit)
		if tc.want == "" {
			if !regexp.MustCompile(`^0\.0\.0~git[0-9]{14}\.[0-9a-f]{7}(\.dirty)?$`).MatchString(got) {
				t.Errorf("debversion %s = %q, want 0.0.0~git<date>.<hash>", tc.version, got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("debversion %s = %q, want %q", tc.version, got, tc.want)
		}
	}
	if got := debVersionOf(t, head[:7], head); !untagged.MatchString(got) {
		t.Errorf("untagged HEAD: %q", got)
	}
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Skip("no dpkg: the order is not checked")
	}
	// Each is older than the next, for dpkg.
	order := []string{"0.0.0~git20260101000000.8602646", "0.0.0~git20260102000000.0abcdef", "0.9.0",
		"1.0.0~rc.1", "1.0.0", "1.0.0+git20270101000000.1234567", "1.0.1"}
	for i := 1; i < len(order); i++ {
		if err := exec.Command("dpkg", "--compare-versions", order[i-1], "lt", order[i]).Run(); err != nil {
			t.Errorf("dpkg: %s is not older than %s", order[i-1], order[i])
		}
	}
}
