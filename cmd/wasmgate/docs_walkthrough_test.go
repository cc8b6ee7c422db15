package main

// The walkthroughs of README.md and examples/browser/README.md, pasted as
// a reader would: their command blocks (```sh and ```console) run in
// order in one bash session, from a folder laid out like a fresh clone
// (bin/wasmgate, configs/gateway.yaml, examples/, scripts/), and each
// command's output is compared with the sample output the document shows
// under it. A command that starts a gateway (`make run`, `wasmgate serve`)
// runs in the background until the next one or the end. The documents'
// ports (8080, 9090, 8000) become free ones.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// docStep is one command of a document and the output shown under it.
type docStep struct {
	cmd  string
	want []string
}

// docSteps reads the command blocks under the headings for which take is
// true. In a console block a command starts with "$ "; in an sh block
// every line is a command, and "# ..." lines right after one are its
// output. A line ending in "\" or opening a heredoc continues.
func docSteps(t *testing.T, path string, take func(heading string) bool) []docStep {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var steps []docStep
	var heading, lang, indent, heredoc string
	open := false // the last step's command continues on the next line
	for _, line := range strings.Split(string(raw), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if lang == "" {
			if strings.HasPrefix(line, "#") {
				heading = strings.TrimSpace(strings.TrimLeft(line, "#"))
			}
			if l, ok := strings.CutPrefix(trimmed, "```"); ok && take(heading) && (l == "sh" || l == "console") {
				lang, indent = l, line[:len(line)-len(trimmed)]
			} else if ok && l != "" {
				lang = "skip"
			}
			continue
		}
		if trimmed == "```" {
			lang, open, heredoc = "", false, ""
			continue
		}
		if lang == "skip" {
			continue
		}
		line = strings.TrimPrefix(line, indent)
		last := len(steps) - 1
		switch {
		case open:
			steps[last].cmd += "\n" + line
		case lang == "console" && strings.HasPrefix(line, "$ "):
			steps = append(steps, docStep{cmd: strings.TrimPrefix(line, "$ ")})
		case lang == "console":
			if last >= 0 {
				steps[last].want = append(steps[last].want, line)
			}
			continue
		case strings.HasPrefix(line, "# "):
			if last >= 0 {
				steps[last].want = append(steps[last].want, strings.TrimPrefix(line, "# "))
			}
			continue
		case strings.TrimSpace(line) != "":
			steps = append(steps, docStep{cmd: line})
		default:
			continue
		}
		last = len(steps) - 1
		if heredoc != "" && strings.TrimSpace(line) == heredoc {
			heredoc, open = "", false
			continue
		}
		if m := regexp.MustCompile(`<<-?'?(\w+)'?`).FindStringSubmatch(line); m != nil && heredoc == "" {
			heredoc = m[1]
		}
		open = heredoc != "" || strings.HasSuffix(line, "\\")
	}
	return steps
}

// docServers are the commands that serve until stopped, which a reader
// runs in a terminal of their own: they run in the background, and the
// walkthrough goes on once they print their ready line.
var docServers = []struct{ slot, match, ready string }{
	{"gateway", "wasmgate serve", `msg="wasmgate ready"`},
	{"static", "http.server", "Serving HTTP"},
}

// docRun runs steps in dir with bash and checks each one's output. After
// step i, pause[i] (if any) runs with that step's output, as a reader acts
// between commands (opens a page).
func docRun(t *testing.T, dir string, env []string, steps []docStep, ports map[string]string, pause map[int]func([]string)) {
	t.Helper()
	sub := func(s string) string {
		for from, to := range ports {
			s = strings.ReplaceAll(s, from, to)
		}
		return s
	}
	var script strings.Builder
	script.WriteString(`declare -A BG
stop_bg() { local pid=${BG[$1]:-}; if [ -n "$pid" ]; then kill -INT "$pid"; wait "$pid"; BG[$1]=; fi; }
stop_all() { for slot in "${!BG[@]}"; do stop_bg "$slot"; done; }
serve_bg() { # SLOT READY CMD
  stop_bg "$1"
  local log; log=$(mktemp)
  ( eval "exec $3" ) >"$log" 2>&1 &
  BG[$1]=$!
  for _ in $(seq 900); do grep -q "$2" "$log" && break; kill -0 "${BG[$1]}" 2>/dev/null || break; sleep 0.1; done
  cat "$log"
}
trap stop_all EXIT
`)
	for i, s := range steps {
		cmd := sub(s.cmd)
		if cmd == "make run" {
			cmd = "./bin/wasmgate serve --config configs/gateway.yaml" // make run: make build (done), then this
		}
		fmt.Fprintf(&script, "echo '@@@STEP %d'\n", i)
		bg := false
		for _, srv := range docServers {
			if strings.Contains(cmd, srv.match) && !strings.Contains(cmd, "--stdio") {
				fmt.Fprintf(&script, "serve_bg %s %q %q\n", srv.slot, srv.ready, cmd)
				bg = true
				break
			}
		}
		if !bg {
			fmt.Fprintf(&script, "{\n%s\n} 2>&1\n", cmd)
		}
		fmt.Fprintf(&script, "echo \"@@@RC $?\"\n")
		if pause[i] != nil {
			script.WriteString("echo '@@@PAUSE'; read -r _ <&3\n")
		}
	}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(env, "PYTHONUNBUFFERED=1")
	cont, resume, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer resume.Close()
	cmd.ExtraFiles = []*os.File{cont}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cont.Close()
	timer := time.AfterFunc(5*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	outputs := map[int][]string{}
	rcs := map[int]string{}
	var all strings.Builder
	cur := -1
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		all.WriteString(line + "\n")
		if _, err := fmt.Sscanf(line, "@@@STEP %d", &cur); err == nil {
			continue
		}
		if rc, ok := strings.CutPrefix(line, "@@@RC "); ok {
			rcs[cur] = rc
			continue
		}
		if line == "@@@PAUSE" {
			pause[cur](outputs[cur])
			fmt.Fprintln(resume)
			continue
		}
		outputs[cur] = append(outputs[cur], line)
	}
	if err := cmd.Wait(); err != nil && !timer.Stop() {
		t.Fatalf("the walkthrough did not finish in 5 minutes:\n%s", all.String())
	}
	for i, s := range steps {
		got := outputs[i]
		if len(s.want) == 0 && rcs[i] != "0" {
			t.Errorf("step %d failed (exit %s):\n$ %s\n%s", i, rcs[i], sub(s.cmd), strings.Join(got, "\n"))
			continue
		}
		if miss := matchLines(got, s.want, sub); miss != "" {
			t.Errorf("step %d:\n$ %s\nwant a line matching\n  %s\nin\n%s", i, sub(s.cmd), miss, strings.Join(got, "\n"))
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("all output:\n%s", all.String())
	}
}

// matchLines reports the first wanted line not found, in order, in got:
// "..." in a wanted line matches anything; a line of "..." alone is a gap.
func matchLines(got, want []string, sub func(string) string) string {
	j := 0
	for _, w := range want {
		w = strings.TrimSpace(sub(w))
		if w == "..." || w == "" {
			continue
		}
		parts := strings.Split(w, "...")
		for k := range parts {
			parts[k] = regexp.QuoteMeta(parts[k])
		}
		re := regexp.MustCompile(strings.Join(parts, ".*"))
		for ; j < len(got) && !re.MatchString(got[j]); j++ {
		}
		if j == len(got) {
			return w
		}
		j++
	}
	return ""
}

// docClone is a folder laid out like a fresh clone after `make build`:
// bin/wasmgate, configs/gateway.yaml, and the repository's examples/ and
// scripts/, with the documents' ports replaced by free ones.
func docClone(t *testing.T, ports map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	root := harness.RepoRoot()
	if err := errors.Join(os.MkdirAll(filepath.Join(dir, "bin"), 0o755), os.MkdirAll(filepath.Join(dir, "configs"), 0o755)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bins.Plain, filepath.Join(dir, "bin", "wasmgate")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"examples", "scripts"} {
		if err := os.Symlink(filepath.Join(root, d), filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := os.ReadFile(filepath.Join(root, "configs", "gateway.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(cfg)
	for from, to := range ports {
		s = strings.ReplaceAll(s, from, to)
	}
	harness.WriteFile(t, filepath.Join(dir, "configs", "gateway.yaml"), []byte(s))
	return dir
}

func docPorts(t *testing.T, docPorts ...string) map[string]string {
	m := map[string]string{}
	for _, p := range docPorts {
		m["127.0.0.1:"+p] = harness.FreePort(t)
	}
	return m
}

// docEnv is the environment of a walkthrough: bin/ first on PATH (the
// `wasmgate` of `wasmgate plugin new`), the shared compilation cache.
func docEnv(dir string) []string {
	env := []string{"PATH=" + filepath.Join(dir, "bin") + ":" + os.Getenv("PATH"), "WASMGATE_SERVER__CACHE_DIR=" + bins.CacheDir}
	for _, kv := range harness.CleanEnv() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return env
}

func TestREADMEWalkthrough(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"curl", "openssl", "go", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the README walkthrough needs %s", tool)
		}
	}
	ports := docPorts(t, "8080", "9090")
	dir := docClone(t, ports)
	tour := map[string]bool{"A five-minute tour": true, "Decide who may call what": true, "Put an MCP server you already run behind it": true, "Publish a second endpoint": true, "Write a plugin": true}
	steps := docSteps(t, filepath.Join(harness.RepoRoot(), "README.md"), func(h string) bool { return tour[h] })
	if len(steps) < 12 {
		t.Fatalf("README.md: %d commands in the tour, want 12 or more: %q", len(steps), steps)
	}
	before := gitStatus(t)
	docRun(t, dir, docEnv(dir), steps, ports, nil)
	// The tour wrote nothing into the clone but the plugin project, and
	// nothing into the repository (examples/ and scripts/ are its own).
	entries, _ := os.ReadDir(filepath.Join(dir, "configs"))
	if len(entries) != 1 {
		t.Errorf("the tour wrote into configs/: %v", entries)
	}
	if after := gitStatus(t); after != before {
		t.Errorf("the tour changed the repository: git status was\n%s\nand is\n%s", before, after)
	}
}

func TestDocMatchLines(t *testing.T) {
	t.Parallel()
	id := func(s string) string { return s }
	got := []string{"time=x level=INFO msg=a took=1s", "b", "c"}
	if miss := matchLines(got, []string{"...", "msg=a took=...", "c"}, id); miss != "" {
		t.Errorf("missed %q", miss)
	}
	if miss := matchLines(got, []string{"c", "b"}, id); miss != "b" {
		t.Errorf("out of order: missed %q, want b", miss)
	}
	if miss := matchLines(got, []string{"d"}, id); miss != "d" {
		t.Errorf("missed %q, want d", miss)
	}
}

// TestBrowserWalkthrough follows examples/browser/README.md: its commands
// as written, and at step 4 the page opened in headless Chromium.
func TestBrowserWalkthrough(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"curl", "openssl", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the demo walkthrough needs %s", tool)
		}
	}
	ports := docPorts(t, "8080", "9090", "8000")
	_, static, _ := strings.Cut(ports["127.0.0.1:8000"], ":")
	ports["http.server 8000"] = "http.server " + static
	dir := docClone(t, ports)
	steps := docSteps(t, filepath.Join(harness.RepoRoot(), "examples", "browser", "README.md"), func(h string) bool { return h == "Walkthrough" })
	open := -1
	for i, s := range steps {
		if strings.HasPrefix(s.cmd, "echo \"http://127.0.0.1:8000/index.html") {
			open = i
		}
	}
	if open < 0 || len(steps) < 8 {
		t.Fatalf("examples/browser/README.md: no step that prints the page's URL in %q", steps)
	}
	b := harness.StartBrowser(t)
	before := gitStatus(t)
	defer func() {
		if after := gitStatus(t); after != before {
			t.Errorf("the walkthrough changed the repository: git status was\n%s\nand is\n%s", before, after)
		}
	}()
	docRun(t, dir, docEnv(dir), steps, ports, map[int]func([]string){open: func(out []string) {
		if len(out) != 1 {
			t.Fatalf("step %d printed %q, want the page's URL", open, out)
		}
		page := b.Open(t, out[0])
		page.WaitJS(`document.documentElement.dataset.registered === "demo_calculate,demo_set-storage"`, 30*time.Second)
	}})
}

// gitStatus is `git status --porcelain --ignored` of examples/ and
// scripts/, which the walkthroughs' clone shares with the repository.
func gitStatus(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("git", "status", "--porcelain", "--ignored", "--", "examples", "scripts")
	cmd.Dir = harness.RepoRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git status: %v (not a git checkout?)", err)
	}
	return string(out)
}

// TestUpstreamsWalkthrough runs docs/upstreams.md's first example ("Try
// it") as pasted: a server installed once, run by name under the sandbox
// with no network. Its `npm install` is the one step left out (the
// walkthrough reaches nothing beyond loopback): the server is the copy
// the tests install in tests/node, which stands for the document's
// /opt/mcp; /srv/shared becomes a folder of the test's.
func TestUpstreamsWalkthrough(t *testing.T) {
	t.Parallel()
	harness.NodeBin(t, "@modelcontextprotocol/server-filesystem", "mcp-server-filesystem")
	if node, _ := filepath.EvalSymlinks(harness.Node(t)); !strings.HasPrefix(node, "/usr/bin/") {
		t.Skipf("the example's PATH and sandbox name /usr/bin, and node is %s", node)
	}
	subs := map[string]string{
		"/opt/mcp":    filepath.Join(harness.RepoRoot(), "tests", "node"),
		"/srv/shared": filepath.Join(t.TempDir(), "shared"),
	}
	dir := docClone(t, nil)
	var steps []docStep
	for _, s := range docSteps(t, filepath.Join(harness.RepoRoot(), "docs", "upstreams.md"), func(h string) bool { return h == "Try it" }) {
		if !strings.HasPrefix(s.cmd, "npm install ") {
			steps = append(steps, s)
		}
	}
	if len(steps) < 4 {
		t.Fatalf("docs/upstreams.md: %d commands under \"Try it\", want 4 or more: %q", len(steps), steps)
	}
	docRun(t, dir, docEnv(dir), steps, subs, nil)
}
