package gateway

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmgate/wasmgate/gateway/search/rerank"
	"github.com/wasmgate/wasmgate/internal/harness"
)

// TestRankerReload: an endpoint's discovery.ranker is built with the
// snapshot, reused by a reload that changes neither its settings nor
// its module, rebuilt by one that changes either, and a ranker that
// cannot be built fails the reload while the serving one keeps serving.
func TestRankerReload(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "rank.wasm")
	keyword, err := os.ReadFile(harness.Wasm(t, "examples/rankers/keyword"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wasm, keyword, 0o644); err != nil {
		t.Fatal(err)
	}
	calc := harness.Wasm(t, "examples/plugins/calculator")
	yaml := func(ranker string) string {
		return fmt.Sprintf("plugins:\n  - path: %s\nendpoints:\n  - name: agents\n    discovery:\n      mode: search\n      ranker: %s\n  - name: plain\n", calc, ranker)
	}
	g := openTestGateway(t, yaml(fmt.Sprintf("{path: %s, config: {boost: gitlab}, limits: {timeout: 10s}}", wasm)))
	cfgPath := g.opts.ConfigPath
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(cfgPath, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	cands := []rerank.Candidate{
		{Name: "jira_create_ticket", Source: "jira", Score: 3},
		{Name: "gitlab_create_issue", Source: "gitlab", Score: 1},
	}
	rank := func(r rerank.Ranker) []float64 {
		t.Helper()
		scores, err := r.Rank(ctx, "issue", cands)
		if err != nil {
			t.Fatal(err)
		}
		return scores
	}

	r1 := g.Current().Ranker("agents")
	if r1 == nil {
		t.Fatal("no ranker for agents")
	}
	if r := g.Current().Ranker("plain"); r != nil {
		t.Errorf("plain has a ranker: %v", r)
	}
	if got := rank(r1); !slices.Equal(got, []float64{3, 4}) {
		t.Errorf("boost gitlab: %v, want [3 4]", got)
	}
	if !slices.Contains(g.Current().Config.WatchFiles(), wasm) {
		t.Errorf("the ranker's module is not watched: %q", g.Current().Config.WatchFiles())
	}

	// Unchanged: the same ranker serves.
	compiles := g.opts.Compiler.Compiles()
	if err := g.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if g.Current().Ranker("agents") != r1 {
		t.Error("an unchanged ranker was rebuilt")
	}
	if n := g.opts.Compiler.Compiles(); n != compiles {
		t.Errorf("%d compiles for an unchanged reload", n-compiles)
	}

	// Its config changed: rebuilt.
	write(yaml(fmt.Sprintf("{path: %s, config: {boost: jira}, limits: {timeout: 10s}}", wasm)))
	if err := g.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	r2 := g.Current().Ranker("agents")
	if r2 == r1 {
		t.Fatal("a changed ranker was reused")
	}
	if got := rank(r2); !slices.Equal(got, []float64{6, 1}) {
		t.Errorf("boost jira: %v, want [6 1]", got)
	}

	// A module that is no ranker: the reload fails, naming where it is
	// declared, and r2 keeps serving.
	bad := filepath.Join(dir, "calc.wasm")
	calcBytes, err := os.ReadFile(calc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, calcBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	write(yaml(fmt.Sprintf("{path: %s}", bad)))
	err = g.Reload(ctx)
	if err == nil || !strings.Contains(err.Error(), "endpoints[0].discovery.ranker") || !strings.Contains(err.Error(), "a ranker exports rank") {
		t.Fatalf("reload with a plugin as the ranker: %v", err)
	}
	if g.Current().Ranker("agents") != r2 {
		t.Error("a failed reload replaced the ranker")
	}
	if got := rank(r2); !slices.Equal(got, []float64{6, 1}) {
		t.Errorf("after a failed reload: %v", got)
	}

	// A wrong pin: refused too.
	write(yaml(fmt.Sprintf("{path: %s, sha256: %s}", wasm, strings.Repeat("ab", 32))))
	if err = g.Reload(ctx); err == nil || !strings.Contains(err.Error(), "endpoints[0].discovery.ranker") {
		t.Fatalf("reload with a wrong sha256: %v", err)
	}

	// The module file replaced (what the watch reloads on): rebuilt.
	write(yaml(fmt.Sprintf("{path: %s, config: {boost: jira}, limits: {timeout: 10s}}", wasm)))
	if err := os.WriteFile(wasm, append(slices.Clone(keyword), 0, 6, 4, 'x', 't', 'r', 'a', 1), 0o644); err != nil { // a custom section: another digest
		t.Fatal(err)
	}
	if err := g.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	r3 := g.Current().Ranker("agents")
	if r3 == r2 || r3 == nil {
		t.Fatal("a replaced module was not rebuilt")
	}
	if got := rank(r3); !slices.Equal(got, []float64{6, 1}) {
		t.Errorf("after the module changed: %v", got)
	}

	// Removed.
	write(yaml("null"))
	if err := g.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if r := g.Current().Ranker("agents"); r != nil {
		t.Error("a removed ranker still serves")
	}
}
