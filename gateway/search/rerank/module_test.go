package rerank

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/loader"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newCompiler(t *testing.T) *loader.Compiler {
	t.Helper()
	// The cache the gateway's own tests share: a Go module takes seconds
	// to compile under the race detector.
	c, err := loader.NewCompiler(filepath.Join(os.TempDir(), "wasmgate-bench-cache"), quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	return c
}

// hostileWasm assembles testdata/hostile.wat with wabt's wat2wasm (.ci/run installs it).
func hostileWasm(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("wat2wasm"); err != nil {
		t.Fatalf("wat2wasm is not installed (apt-get install wabt; .ci/run does): %v", err)
	}
	out := filepath.Join(t.TempDir(), "hostile.wasm")
	if b, err := exec.Command("wat2wasm", "testdata/hostile.wat", "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, b)
	}
	return out
}

// rankerSpec is endpoint agents' discovery.ranker as the loader
// normalizes it, for the module at path with extra YAML lines under
// ranker.
func rankerSpec(t *testing.T, path string, extra ...string) loader.PluginSpec {
	t.Helper()
	dir := t.TempDir()
	yaml := fmt.Sprintf("endpoints:\n  - name: agents\n    discovery:\n      mode: search\n      ranker:\n        path: %q\n", path)
	limits := false
	for _, l := range extra {
		yaml += "        " + l + "\n"
		limits = limits || strings.HasPrefix(l, "limits:")
	}
	if !limits {
		// Not the default 250 ms: a test that is not about the timeout
		// must not meet it on a busy CI machine (a first call under -race
		// once took longer).
		yaml += "        limits: {timeout: 30s}\n"
	}
	file := filepath.Join(dir, "gateway.yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loader.Load(file, harness.CleanEnv())
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Endpoints[0].Discovery.Ranker
	if r == nil {
		t.Fatal("no ranker")
	}
	return *r
}

func newModule(t *testing.T, c *loader.Compiler, spec loader.PluginSpec, slots chan struct{}) *Module {
	t.Helper()
	mod, err := c.Fetch(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(context.Background(), c, spec, mod, slots)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return m
}

var issueTools = []Candidate{
	{Name: "jira_create_ticket", Description: "Creates a Jira ticket", Source: "jira", Score: 3},
	{Name: "github_create_issue", Title: "Create issue", Description: "Opens an issue on GitHub", Source: "github", Score: 2},
	{Name: "gitlab_create_issue", Description: "Opens a GitLab issue", Source: "gitlab", Score: 1.5},
}

// order is the candidates' names by descending score, stable.
func order(cands []Candidate, scores []float64) []string {
	idx := make([]int, len(cands))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = cands[j].Name
	}
	return out
}

func TestKeywordRanker(t *testing.T) {
	wasm := harness.Wasm(t, "examples/rankers/keyword")
	c := newCompiler(t)
	ctx := context.Background()

	// Without config, the lexical order stands.
	plain := newModule(t, c, rankerSpec(t, wasm), nil)
	scores, err := plain.Rank(ctx, "open an issue", issueTools)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(scores, []float64{3, 2, 1.5}) {
		t.Errorf("without boost: %v, want the lexical scores", scores)
	}

	// boost: gitlab lifts GitLab's tool above both others.
	gl := newModule(t, c, rankerSpec(t, wasm, "config: {boost: gitlab}"), nil)
	scores, err = gl.Rank(ctx, "open an issue", issueTools)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"gitlab_create_issue", "jira_create_ticket", "github_create_issue"}
	if got := order(issueTools, scores); !slices.Equal(got, want) {
		t.Errorf("boost gitlab: order %v (scores %v), want %v", got, scores, want)
	}

	// A fixed weight too small to overtake: github gains 0.5, not enough
	// to pass jira.
	gh := newModule(t, c, rankerSpec(t, wasm, `config: {boost: "github,issue", weight: "0.4"}`), nil)
	scores, err = gh.Rank(ctx, "open an issue", issueTools)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(scores, []float64{3, 2.8, 1.9}) {
		t.Errorf("boost github,issue weight 0.4: %v, want [3 2.8 1.9]", scores)
	}

	// No candidates: nothing to run.
	if scores, err := gl.Rank(ctx, "x", nil); err != nil || len(scores) != 0 {
		t.Errorf("no candidates: %v, %v", scores, err)
	}

	// A bad config is the ranker's own error: outcome error.
	bad := newModule(t, c, rankerSpec(t, wasm, `config: {boost: a, weight: "-1"}`), nil)
	_, err = bad.Rank(ctx, "open an issue", issueTools)
	if Outcome(err) != OutcomeError || !strings.Contains(err.Error(), `config weight "-1"`) {
		t.Errorf("bad weight: %v (outcome %s), want the ranker's error", err, Outcome(err))
	}
}

func TestHostileRankers(t *testing.T) {
	wasm := hostileWasm(t)
	c := newCompiler(t)
	spec := rankerSpec(t, wasm, "limits: {timeout: 500ms, concurrency: 2}")
	m := newModule(t, c, spec, nil)
	ctx := context.Background()

	for _, tc := range []struct {
		query, outcome, msg string
	}{
		{"k", OutcomeOK, ""},
		{"wrong length", OutcomeInvalid, "invalid output: 1 scores for 3 candidates"},
		{"garbage", OutcomeInvalid, `invalid output: not a JSON object {"scores": [...]}`},
		{"overflow", OutcomeInvalid, "invalid output: not a JSON object"},
		{"null", OutcomeInvalid, "invalid output: score 0 is not a finite number"},
		{"missing", OutcomeInvalid, `invalid output: no "scores" array`},
		{"big", OutcomeInvalid, "invalid output: 70000 bytes, over the bound of 65536"},
		{"error", OutcomeError, "the ranker refused"},
		{"return 1", OutcomeError, "export rank returned 1"},
		{"trap", OutcomeError, "trap"},
		{"spin", OutcomeTimeout, "timed out (limits.timeout 500ms)"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			start := time.Now()
			scores, err := m.Rank(ctx, tc.query, issueTools)
			took := time.Since(start)
			if got := Outcome(err); got != tc.outcome {
				t.Fatalf("outcome %s (%v), want %s", got, err, tc.outcome)
			}
			if err == nil {
				if !slices.Equal(scores, []float64{3, 2, 1}) {
					t.Errorf("scores %v", scores)
				}
				return
			}
			if scores != nil {
				t.Errorf("scores %v with an error", scores)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), `ranker "agents.ranker"`) {
				t.Errorf("error %q, want it to name the ranker and say %q", err, tc.msg)
			}
			if took > 10*time.Second { // bounded, not timed: 500ms plus a busy machine's delay
				t.Errorf("took %s", took)
			}
			// The pool still works: a dead instance was replaced.
			if scores, err := m.Rank(ctx, "k", issueTools); err != nil || !slices.Equal(scores, []float64{3, 2, 1}) {
				t.Errorf("after %s: %v, %v", tc.query, scores, err)
			}
		})
	}
}

// TestTimeoutsConcurrent: with every instance spinning, other calls wait
// for one no longer than limits.timeout, and the pool recovers.
func TestTimeoutsConcurrent(t *testing.T) {
	wasm := hostileWasm(t)
	c := newCompiler(t)
	slots := make(chan struct{}, 8)
	m := newModule(t, c, rankerSpec(t, wasm, "limits: {timeout: 150ms, concurrency: 2}"), slots)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 6)
	start := time.Now()
	for i := range errs {
		wg.Go(func() { _, errs[i] = m.Rank(ctx, "spin", issueTools) })
	}
	wg.Wait()
	if took := time.Since(start); took > 10*time.Second { // three waves of 150ms, on a busy machine
		t.Errorf("6 spinning calls took %s", took)
	}
	for i, err := range errs {
		if Outcome(err) != OutcomeTimeout || !errors.Is(err, ErrTimeout) {
			t.Errorf("call %d: %v, want a timeout", i, err)
		}
	}
	if len(slots) != 0 {
		t.Errorf("%d gateway slots still held", len(slots))
	}
	for range 4 {
		if _, err := m.Rank(ctx, "k", issueTools); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCallerDeadline: the search's own deadline bounds the call too.
func TestCallerDeadline(t *testing.T) {
	wasm := hostileWasm(t)
	m := newModule(t, newCompiler(t), rankerSpec(t, wasm, "limits: {timeout: 60s}"), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := m.Rank(ctx, "spin", issueTools)
	if Outcome(err) != OutcomeTimeout {
		t.Errorf("%v, want a timeout", err)
	}
	if took := time.Since(start); took > 10*time.Second { // far below limits.timeout
		t.Errorf("took %s", took)
	}
}

func TestNotARanker(t *testing.T) {
	c := newCompiler(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		wasm []byte
		want string
	}{
		{"no-rank", harness.WasmModule(nil, []string{"tools_information", "say_hello"}),
			`a ranker exports rank (docs/plugins.md, "Rankers"); this module exports say_hello, tools_information`},
		{"host-functions", harness.WasmModule([][2]string{{"extism:host/user", "kv_read"}}, []string{"rank"}),
			`imports wasmgate host functions (kv_read from "extism:host/user"): a ranker gets none`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".wasm")
			if err := os.WriteFile(path, tc.wasm, 0o600); err != nil {
				t.Fatal(err)
			}
			spec := rankerSpec(t, path)
			mod, err := c.Fetch(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			m, err := New(context.Background(), c, spec, mod, nil)
			if err == nil {
				_ = m.Close(context.Background())
				t.Fatal("New succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "endpoints[0].discovery.ranker") {
				t.Errorf("%v\nwant it to name endpoints[0].discovery.ranker and say %q", err, tc.want)
			}
		})
	}
}

func TestOutcome(t *testing.T) {
	for err, want := range map[error]string{
		nil:                             OutcomeOK,
		context.DeadlineExceeded:        OutcomeTimeout,
		fmt.Errorf("x: %w", ErrTimeout): OutcomeTimeout,
		fmt.Errorf("x: %w", ErrInvalid): OutcomeInvalid,
		errors.New("trap"):              OutcomeError,
		context.Canceled:                OutcomeError,
	} {
		if got := Outcome(err); got != want {
			t.Errorf("Outcome(%v) = %s, want %s", err, got, want)
		}
	}
}
