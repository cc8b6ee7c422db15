package main

// Install and distribution: `make dist` (archives for linux and darwin on
// amd64 and arm64, SHA256SUMS, Debian packages), `make install DESTDIR=`,
// and the Debian package installed on this machine (systemd-analyze verify
// and security). These build four release binaries, so they run only with
// TEST_PACKAGING=1: `make test-packaging`, which .ci/run runs.

import (
	"archive/tar"
	"compress/gzip"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

const (
	distVersion = "v9.9.9-test.1"
	distCommit  = "0123456789abcdef0123456789abcdef01234567"
	debVersion  = "9.9.9~test.1"
)

func packaging(t *testing.T) {
	t.Helper()
	if os.Getenv("TEST_PACKAGING") != "1" {
		t.Skip("packaging tests build every release target: run them with `make test-packaging` (.ci/run does)")
	}
}

// make runs make in the repository with args.
func runMake(t *testing.T, timeout time.Duration, args ...string) string {
	t.Helper()
	cmd := exec.Command("make", append([]string{"--no-print-directory"}, args...)...)
	cmd.Dir = harness.RepoRoot()
	cmd.Env = harness.CleanEnv()
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		cmd.Process.Kill()
		<-done
		t.Fatalf("make %s did not finish within %v:\n%s", strings.Join(args, " "), timeout, out)
	}
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// untar extracts a .tar.gz into dir and returns the names it held.
func untar(t *testing.T, archive, dir string) []string {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", archive, err)
	}
	tr := tar.NewReader(zr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatalf("%s: %v", archive, err)
		}
		names = append(names, h.Name)
		p := filepath.Join(dir, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			os.MkdirAll(filepath.Dir(p), 0o755)
			w, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, os.FileMode(h.Mode))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(w, tr); err != nil {
				t.Fatal(err)
			}
			w.Close()
		}
	}
}

func sh(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestPackaging(t *testing.T) {
	t.Parallel()
	packaging(t)
	runMake(t, 30*time.Minute, "dist", "VERSION="+distVersion, "COMMIT="+distCommit)
	dist := filepath.Join(harness.RepoRoot(), "dist")

	// SHA256SUMS covers every artifact and checks.
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sha256sum", "-c", "SHA256SUMS")
	cmd.Dir = dist
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}
	var listed []string
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		f := strings.Fields(line)
		listed = append(listed, f[len(f)-1])
	}
	var want []string
	for _, target := range []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"} {
		want = append(want, fmt.Sprintf("wasmgate_%s_%s.tar.gz", distVersion, target))
	}
	want = append(want, "wasmgate_"+debVersion+"_amd64.deb", "wasmgate_"+debVersion+"_arm64.deb")
	slices.Sort(want)
	slices.Sort(listed)
	if !slices.Equal(listed, want) {
		t.Fatalf("SHA256SUMS lists %v, want %v", listed, want)
	}

	// Each archive: the binary for its target, static, and what runs it.
	var linuxBin string
	for _, target := range []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"} {
		name := fmt.Sprintf("wasmgate_%s_%s", distVersion, target)
		dir := t.TempDir()
		names := untar(t, filepath.Join(dist, name+".tar.gz"), dir)
		for _, f := range []string{"wasmgate", "gateway.yaml", "wasmgate.service", "LICENSE", "README.md", "CHANGELOG.md",
			"docs/operations.md", "docs/config.md", "plugins/calculator.wasm", "plugins/greeter.wasm", "plugins/storage.wasm"} {
			if !slices.Contains(names, name+"/"+f) {
				t.Errorf("%s.tar.gz lacks %s (has %v)", name, f, names)
			}
		}
		bin := filepath.Join(dir, name, "wasmgate")
		checkBinary(t, bin, target)
		if target == "linux_amd64" {
			linuxBin = bin
			// Its version, and its gateway.yaml with the bundled plugins.
			if out := sh(t, bin, "version"); !strings.Contains(out, distVersion) || !strings.Contains(out, distCommit) {
				t.Errorf("wasmgate version = %q, want %s and %s", out, distVersion, distCommit)
			}
			if out := sh(t, bin, "validate", "--config", filepath.Join(dir, name, "gateway.yaml")); !strings.Contains(out, "ok: 3 plugins") {
				t.Errorf("validate the archive's gateway.yaml: %s", out)
			}
			checkBuildInfo(t, bin, filepath.Join(dir, name, "gateway.yaml"))
		}
	}

	// The Debian package: contents, control fields, maintainer scripts.
	deb := filepath.Join(dist, "wasmgate_"+debVersion+"_amd64.deb")
	contents := sh(t, "dpkg-deb", "-c", deb)
	for _, p := range []string{"./usr/bin/wasmgate", "./usr/lib/systemd/system/wasmgate.service", "./etc/wasmgate/gateway.yaml",
		"./usr/share/wasmgate/plugins/calculator.wasm", "./usr/share/wasmgate/plugins/greeter.wasm", "./usr/share/wasmgate/plugins/storage.wasm",
		"./usr/share/doc/wasmgate/copyright", "./usr/share/doc/wasmgate/operations.md", "./usr/share/doc/wasmgate/README.md"} {
		if !regexp.MustCompile(`(?m) ` + regexp.QuoteMeta(p) + `$`).MatchString(contents) {
			t.Errorf("dpkg-deb -c: no %s in\n%s", p, contents)
		}
	}
	if !regexp.MustCompile(`(?m)^-rwxr-xr-x root/root .* \./usr/bin/wasmgate$`).MatchString(contents) {
		t.Errorf("/usr/bin/wasmgate is not an executable owned by root:\n%s", contents)
	}
	for field, want := range map[string]string{"Package": "wasmgate", "Version": debVersion, "Architecture": "amd64", "Depends": "adduser"} {
		if got := strings.TrimSpace(sh(t, "dpkg-deb", "-f", deb, field)); got != want {
			t.Errorf("control %s = %q, want %q", field, got, want)
		}
	}
	ctrl := t.TempDir()
	sh(t, "dpkg-deb", "-e", deb, ctrl)
	conffiles, _ := os.ReadFile(filepath.Join(ctrl, "conffiles"))
	if strings.TrimSpace(string(conffiles)) != "/etc/wasmgate/gateway.yaml" {
		t.Errorf("conffiles = %q, want /etc/wasmgate/gateway.yaml", conffiles)
	}
	postinst, _ := os.ReadFile(filepath.Join(ctrl, "postinst"))
	var code []string // postinst without its comments
	for _, l := range strings.Split(string(postinst), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			code = append(code, l)
		}
	}
	if body := strings.Join(code, "\n"); !strings.Contains(body, "adduser --system") || strings.Contains(body, "enable") || strings.Contains(body, " start ") {
		t.Errorf("postinst must create the user and enable or start nothing:\n%s", postinst)
	}
	unitIn := filepath.Join(t.TempDir(), "unit")
	sh(t, "dpkg-deb", "-x", deb, unitIn)
	unit, _ := os.ReadFile(filepath.Join(unitIn, "usr/lib/systemd/system/wasmgate.service"))
	if !strings.Contains(string(unit), "ExecStart=/usr/bin/wasmgate serve --config /etc/wasmgate/gateway.yaml") {
		t.Errorf("the packaged unit does not run /usr/bin/wasmgate:\n%s", unit)
	}
	cfg, _ := os.ReadFile(filepath.Join(unitIn, "etc/wasmgate/gateway.yaml"))
	if !strings.Contains(string(cfg), "path: /usr/share/wasmgate/plugins/calculator.wasm") || strings.Contains(string(cfg), "../examples") {
		t.Errorf("the packaged gateway.yaml does not name the installed plugins:\n%s", cfg)
	}

	t.Run("make install", func(t *testing.T) { testMakeInstall(t, linuxBin) })
	t.Run("install the deb", func(t *testing.T) { testInstallDeb(t, deb) })
}

// checkBinary checks that bin is a static executable for target.
func checkBinary(t *testing.T, bin, target string) {
	t.Helper()
	goos, arch, _ := strings.Cut(target, "_")
	if goos == "darwin" {
		b, err := readHead(bin, 8)
		if err != nil {
			t.Fatal(err)
		}
		// Mach-O 64-bit magic, then the CPU type: x86_64 or arm64.
		cpu := map[string]uint32{"amd64": 0x01000007, "arm64": 0x0100000c}[arch]
		if binary.LittleEndian.Uint32(b[:4]) != 0xfeedfacf || binary.LittleEndian.Uint32(b[4:8]) != cpu {
			t.Errorf("%s: not a Mach-O %s binary (%x)", target, arch, b)
		}
		return
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	defer f.Close()
	machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]
	if f.Machine != machine {
		t.Errorf("%s: ELF machine %v, want %v", target, f.Machine, machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s: dynamically linked (has an interpreter)", target)
		}
	}
}

func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	_, err = io.ReadFull(f, b)
	return b, err
}

// checkBuildInfo serves cfg with bin and reads wasmgate_build_info.
func checkBuildInfo(t *testing.T, bin, cfg string) {
	t.Helper()
	g := bins.Start(t, harness.Options{Binary: bin, Config: cfg, Env: []string{
		"WASMGATE_TRANSPORTS__HTTP__LISTEN=127.0.0.1:0", "WASMGATE_ADMIN__LISTEN=127.0.0.1:0", "WASMGATE_SERVER__CACHE_DIR=" + bins.CacheDir}})
	resp, err := http.Get(g.AdminURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := fmt.Sprintf(`revision="%s"`, distCommit)
	var line string
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, "wasmgate_build_info{") {
			line = l
		}
	}
	if !strings.Contains(line, want) || !strings.Contains(line, `version="`+distVersion+`"`) {
		t.Errorf("wasmgate_build_info = %q, want version %s and %s", line, distVersion, want)
	}
	if err := g.Stop(t); err != nil {
		t.Errorf("stop: %v", err)
	}
}

func testMakeInstall(t *testing.T, static string) {
	destdir := t.TempDir()
	runMake(t, 5*time.Minute, "install", "DESTDIR="+destdir, "INSTALL_BIN="+static)
	var files []string
	filepath.WalkDir(destdir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, strings.TrimPrefix(p, destdir))
		}
		return nil
	})
	for _, f := range []string{"/usr/local/bin/wasmgate", "/usr/local/lib/systemd/system/wasmgate.service", "/etc/wasmgate/gateway.yaml",
		"/usr/local/share/wasmgate/plugins/calculator.wasm", "/usr/local/share/wasmgate/plugins/greeter.wasm",
		"/usr/local/share/wasmgate/plugins/storage.wasm", "/usr/local/share/doc/wasmgate/operations.md", "/usr/local/share/doc/wasmgate/LICENSE"} {
		if !slices.Contains(files, f) {
			t.Errorf("make install did not install %s (installed %v)", f, files)
		}
	}
	unit, _ := os.ReadFile(filepath.Join(destdir, "usr/local/lib/systemd/system/wasmgate.service"))
	if !strings.Contains(string(unit), "ExecStart=/usr/local/bin/wasmgate serve --config /etc/wasmgate/gateway.yaml") ||
		!strings.Contains(string(unit), "Documentation=file:///usr/local/share/doc/wasmgate/operations.md") {
		t.Errorf("installed unit:\n%s", unit)
	}
	// validate the installed config with the installed binary and plugins,
	// as they will be found once installed: in a chroot (root only).
	if os.Geteuid() != 0 {
		t.Log("not root: the installed config is not validated in a chroot")
		return
	}
	out, err := exec.Command("chroot", destdir, "/usr/local/bin/wasmgate", "validate", "--config", "/etc/wasmgate/gateway.yaml").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "/etc/wasmgate/gateway.yaml: ok: 3 plugins (calculator, storage, greeter)") {
		t.Errorf("validate the installed config (chroot): %v\n%s", err, out)
	}
	// A second install keeps an edited config and writes the new default beside it.
	cfg := filepath.Join(destdir, "etc/wasmgate/gateway.yaml")
	if err := os.WriteFile(cfg, []byte("# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runMake(t, 5*time.Minute, "install", "DESTDIR="+destdir, "INSTALL_BIN="+static)
	if b, _ := os.ReadFile(cfg); string(b) != "# edited\n" {
		t.Errorf("make install overwrote an edited gateway.yaml")
	}
	if _, err := os.Stat(cfg + ".new"); err != nil {
		t.Errorf("no gateway.yaml.new beside the edited config: %v", err)
	}
}

// testInstallDeb installs the package on this machine, checks what it set
// up, and purges it.
func testInstallDeb(t *testing.T, deb string) {
	if os.Geteuid() != 0 {
		t.Skip("installing the .deb takes root (CI runs as root)")
	}
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Skip("no dpkg on this machine")
	}
	if out, err := exec.Command("dpkg-query", "-W", "-f", "${Status}", "wasmgate").CombinedOutput(); err == nil && strings.Contains(string(out), "installed") {
		t.Skipf("a wasmgate package is installed on this machine already (%s); not touching it", out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("dpkg", "--purge", "wasmgate").CombinedOutput(); err != nil {
			t.Errorf("dpkg --purge wasmgate: %v\n%s", err, out)
		}
	})
	// Installing says nothing worse than dpkg's own progress: no warning.
	if out := sh(t, "dpkg", "-i", deb); strings.Contains(strings.ToLower(out), "warning") {
		t.Errorf("dpkg -i printed a warning:\n%s", out)
	}
	if out := sh(t, "stat", "-c", "%U:%G %a", "/var/lib/wasmgate"); strings.TrimSpace(out) != "wasmgate:wasmgate 750" {
		t.Errorf("/var/lib/wasmgate (the user's home) is %s, want wasmgate:wasmgate 750", out)
	}
	if out := sh(t, "id", "wasmgate"); !strings.Contains(out, "(wasmgate)") {
		t.Errorf("id wasmgate: %s", out)
	}
	if out := sh(t, "/usr/bin/wasmgate", "validate", "--config", "/etc/wasmgate/gateway.yaml"); !strings.Contains(out, "ok: 3 plugins") {
		t.Errorf("validate the packaged config: %s", out)
	}
	if _, err := os.Stat("/etc/systemd/system/multi-user.target.wants/wasmgate.service"); err == nil {
		t.Errorf("installing the package enabled the service")
	}

	const unit = "/usr/lib/systemd/system/wasmgate.service"
	t.Run("ExecStart as wasmgate", func(t *testing.T) { testRunUnit(t, unit) })
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed (apt-get install -y systemd; .ci/run does): the unit is not verified")
	}
	out, err := exec.Command("systemd-analyze", "verify", unit).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Errorf("systemd-analyze verify %s: %v\n%s", unit, err, out)
	}
	out, err = exec.Command("systemd-analyze", "security", "--offline=true", unit).CombinedOutput()
	m := regexp.MustCompile(`Overall exposure level for wasmgate.service: ([0-9.]+)`).FindSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("systemd-analyze security --offline=true: %v\n%s", err, out)
	}
	score, _ := strconv.ParseFloat(string(m[1]), 64)
	t.Logf("systemd-analyze security rates the unit %.1f", score)
	if score > 2.0 {
		t.Errorf("systemd-analyze security rates the unit %.1f, want 2.0 or lower:\n%s", score, out)
	}
}
