package gateway

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchEndpoints is an endpoints section of n endpoints over the three
// example plugins, in the shapes issue 40 names (sources, globs, tool,
// resource and prompt selections); the calculator's own endpoint,
// /mcp/calc, is one of them. n == 0: no endpoints section (the default
// endpoint). scripts/bench-endpoints.sh writes the same ten.
func benchEndpoints(n int) string {
	shapes := []string{
		`{name: calc, path: /mcp/calc, sources: [calculator]}`,
		`{name: greet, sources: [greeter]}`,
		`{name: notes, sources: [storage]}`,
		`{name: safe, tools: {exclude: ["set-*"]}}`,
		`{name: pair, sources: [calculator, greeter], title: Pair, instructions: Two sources.}`,
		`{name: hello, tools: {include: ["say_*"]}}`,
		`{name: stor, sources: ["stor*"], resources: {include: ["storage://*"]}}`,
		`{name: all}`,
		`{name: quiet, resources: {exclude: ["greeter://*"]}, prompts: {exclude: ["*"]}}`,
		`{name: calc2, sources: ["calc*"], tools: {include: [calculate]}}`,
	}
	if n == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("endpoints:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - %s\n", shapes[i%len(shapes)])
	}
	return b.String()
}

// examplePluginsYAML is the plugins section of the three example
// plugins; skipped when they are not built.
func examplePluginsYAML(tb testing.TB) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString("plugins:\n")
	for _, name := range []string{"calculator", "storage", "greeter"} {
		wasm := builtWasm(tb, "examples/plugins/"+name+".wasm")
		fmt.Fprintf(&b, "  - {name: %s, path: %q}\n", name, wasm)
	}
	return b.String()
}

// BenchmarkReloadEndpoints is a reload (Reload: the file read and
// loaded, the snapshot built, applied and published to every endpoint)
// of a config that did not change, with no endpoints section (default),
// one endpoint and ten (issue 40: ten no slower than 1.1x one).
func BenchmarkReloadEndpoints(b *testing.B) {
	for _, tc := range []struct {
		name string
		n    int
	}{{"default", 0}, {"1", 1}, {"10", 10}} {
		b.Run(tc.name, func(b *testing.B) {
			g := openTestGateway(b, examplePluginsYAML(b)+benchEndpoints(tc.n))
			if got, want := len(g.eps.all()), max(tc.n, 1); got != want {
				b.Fatalf("%d endpoints serve, want %d", got, want)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := g.Reload(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReloadEndpointsTurns reloads three gateways (no endpoints
// section, one endpoint, ten) in turns, the order rotating each
// iteration, so that a machine whose speed drifts slows all three alike
// (a reload reads and hashes every module, ~10 MB here: its time moves
// with the machine's load far more than endpoints move it). It reports
// each one's median ms per reload and the median over the iterations of
// ten's reload time over one's and over default's in the same iteration.
func BenchmarkReloadEndpointsTurns(b *testing.B) {
	plugins := examplePluginsYAML(b)
	counts := []int{0, 1, 10}
	gs := make([]*Gateway, len(counts))
	for i, n := range counts {
		gs[i] = openTestGateway(b, plugins+benchEndpoints(n))
	}
	ctx := context.Background()
	took := make([][]float64, len(gs))
	var ratio1, ratioDefault []float64
	round := 0
	for b.Loop() {
		d := make([]float64, len(gs))
		for k := range gs {
			i := (k + round) % len(gs)
			start := time.Now()
			if err := gs[i].Reload(ctx); err != nil {
				b.Fatal(err)
			}
			d[i] = float64(time.Since(start))
			took[i] = append(took[i], d[i])
		}
		ratio1, ratioDefault = append(ratio1, d[2]/d[1]), append(ratioDefault, d[2]/d[0])
		round++
	}
	for i, name := range []string{"default", "1", "10"} {
		b.ReportMetric(median(took[i])/1e6, "ms/reload-"+name)
	}
	b.ReportMetric(median(ratio1), "10/1")
	b.ReportMetric(median(ratioDefault), "10/default")
}

// BenchmarkPublishEndpoints is what the endpoints add to a reload: the
// serving snapshot published to every endpoint again (each selects its
// index and syncs its lists), with no endpoints section, one and ten.
func BenchmarkPublishEndpoints(b *testing.B) {
	for _, tc := range []struct {
		name string
		n    int
	}{{"default", 0}, {"1", 1}, {"10", 10}} {
		b.Run(tc.name, func(b *testing.B) {
			g := openTestGateway(b, examplePluginsYAML(b)+benchEndpoints(tc.n))
			b.ReportAllocs()
			for b.Loop() {
				g.applyMu.Lock()
				g.eps.publish(g.cur.Load())
				g.applyMu.Unlock()
			}
		})
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

// TestReloadEndpointsBench runs each of BenchmarkReloadEndpoints' cases
// once: their configs load, every endpoint serves its selection, and a
// reload keeps them.
func TestReloadEndpointsBench(t *testing.T) {
	g := openTestGateway(t, examplePluginsYAML(t)+benchEndpoints(10))
	want := map[string][]string{
		"calc": {"calculate"}, "greet": {"say_hello"}, "notes": {"set-storage"},
		"safe": {"calculate", "say_hello"}, "pair": {"calculate", "say_hello"}, "hello": {"say_hello"},
		"stor": {"set-storage"}, "all": {"calculate", "say_hello", "set-storage"},
		"quiet": {"calculate", "say_hello", "set-storage"}, "calc2": {"calculate"},
	}
	check := func(when string) {
		t.Helper()
		es := g.eps.all()
		if len(es) != 10 {
			t.Fatalf("%s: %d endpoints, want 10", when, len(es))
		}
		for _, e := range es {
			got := slices.Sorted(maps.Keys(e.Index().Tools))
			if !slices.Equal(got, want[e.Name()]) {
				t.Errorf("%s: endpoint %s serves tools %q, want %q", when, e.Name(), got, want[e.Name()])
			}
		}
	}
	check("opened")
	if err := g.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("reloaded")
}
