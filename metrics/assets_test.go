package metrics_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"go.yaml.in/yaml/v3"

	"github.com/wasmgate/wasmgate/metrics"
)

// The observability assets shipped with the repository. Their queries must
// only name metrics this package registers, so renaming a metric without
// updating them fails here instead of leaving a blank panel or an alert that
// can never fire.
const (
	dashboardFile  = "../examples/grafana/wasmgate.json"
	alertsFile     = "../configs/prometheus/alerts.yml"
	alertTestsFile = "../configs/prometheus/alerts_test.yml"
)

var metricName = regexp.MustCompile(`wasmgate_[a-z_]+`)

// exposed gathers the registry of metrics.New after giving every vector one
// child, so that vectors show up in the output, and returns each metric
// family's type by name.
func exposed(t *testing.T) map[string]dto.MetricType {
	t.Helper()
	types, _ := exposedLabels(t)
	return types
}

// exposedLabels is exposed with, besides, each family's label names.
func exposedLabels(t *testing.T) (map[string]dto.MetricType, map[string][]string) {
	t.Helper()
	m := metrics.New("test", "test")
	m.ToolCalls.WithLabelValues("t", "s", "e", metrics.OutcomeOK)
	m.ToolDuration.WithLabelValues("t", "s", "e")
	m.ToolsInFlight.WithLabelValues("s", "e")
	m.ResourceReads.WithLabelValues("s", "e", metrics.OutcomeOK)
	m.PromptGets.WithLabelValues("s", "e", metrics.OutcomeOK)
	m.PluginInstances.WithLabelValues("p")
	m.PluginNotificationsRefused.WithLabelValues("p", "progress")
	m.SecretsRedacted.WithLabelValues("s", "github-token", "result")
	m.ClaimsRefused.WithLabelValues("s")
	m.Reloads.WithLabelValues("success")
	m.HTTPRejected.WithLabelValues("auth")
	m.RelayBridges.WithLabelValues("s")
	m.RelayHandshakes.WithLabelValues("s", "ok")
	m.RelayFramesRejected.WithLabelValues("s", "malformed")
	m.PolicyDenials.WithLabelValues("p", "tool")
	m.RateLimited.WithLabelValues("p", "tool")
	m.UpstreamIdentityTokens.WithLabelValues("u", "token_exchange")
	m.UpstreamIdentityFailures.WithLabelValues("u", "token_exchange", "not_connected")
	m.UpstreamConnectedUsers.WithLabelValues("u")
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	types := make(map[string]dto.MetricType, len(mfs))
	labels := make(map[string][]string, len(mfs))
	for _, mf := range mfs {
		types[mf.GetName()] = mf.GetType()
		if ms := mf.GetMetric(); len(ms) > 0 {
			for _, l := range ms[0].GetLabel() {
				labels[mf.GetName()] = append(labels[mf.GetName()], l.GetName())
			}
		}
	}
	return types, labels
}

// known reports whether a name used in a query is exposed: either a family
// itself, or a histogram's _bucket/_sum/_count series (_sum and _count of a
// summary too). A suffix is only stripped when the base is of a type that
// has it, so wasmgate_tools_count is not mistaken for wasmgate_tools.
func known(types map[string]dto.MetricType, name string) bool {
	if _, ok := types[name]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		switch types[base] {
		case dto.MetricType_HISTOGRAM:
			return true
		case dto.MetricType_SUMMARY:
			return suffix != "_bucket"
		}
	}
	return false
}

// unknownNames returns the wasmgate_* names in exprs that the registry does
// not expose, sorted, and the set of names found.
func unknownNames(types map[string]dto.MetricType, exprs []string) (unknown []string, found map[string]bool) {
	found = map[string]bool{}
	for _, e := range exprs {
		for _, n := range metricName.FindAllString(e, -1) {
			if found[n] {
				continue
			}
			found[n] = true
			if !known(types, n) {
				unknown = append(unknown, n)
			}
		}
	}
	sort.Strings(unknown)
	return unknown, found
}

var (
	selectorRE = regexp.MustCompile(`(wasmgate_[a-z_]+)\{([^}]*)\}`)
	matcherRE  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)`)
	groupingRE = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)`)
	labelVarRE = regexp.MustCompile(`label_values\((wasmgate_[a-z_]+)(?:\{[^}]*\})?,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)`)
	// templateRE is a label a legend or an annotation shows: {{tool}},
	// {{ $labels.tool }}.
	foreignRE  = regexp.MustCompile(`\b(?:up|process_[a-z_]+|go_[a-z_]+)\b`)
	templateRE = regexp.MustCompile(`\{\{\s*(?:\$labels\.)?([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}`)
)

// targetLabels are the labels Prometheus gives every series of a scrape.
var targetLabels = []string{"job", "instance"}

// familyOf is the family a name in a query belongs to: name, or a
// histogram's (or summary's) name without _bucket, _sum or _count. The
// series of _bucket have the label le as well.
func familyOf(types map[string]dto.MetricType, name string) (family string, le bool) {
	if _, ok := types[name]; ok {
		return name, false
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && known(types, name) {
			return base, suffix == "_bucket"
		}
	}
	return name, false
}

// unknownLabels returns, for each query (and the legend or annotations
// shown with it, texts), the labels it names that its wasmgate_* series
// do not have: in a selector, in by/on/without/ignoring, in
// label_values, and in {{label}} of a legend or {{ $labels.label }} of
// an annotation (those only when the query names wasmgate series of
// labelled families alone).
func unknownLabels(types map[string]dto.MetricType, labels map[string][]string, expr string, texts ...string) []string {
	var bad []string
	has := func(family string, le bool, l string) bool {
		return slices.Contains(labels[family], l) || slices.Contains(targetLabels, l) || (le && l == "le")
	}
	// Every label of the query's series, for groupings and templates.
	all := map[string]bool{}
	for _, l := range targetLabels {
		all[l] = true
	}
	for _, n := range metricName.FindAllString(expr, -1) {
		f, le := familyOf(types, n)
		for _, l := range labels[f] {
			all[l] = true
		}
		all["le"] = all["le"] || le
	}
	for _, m := range selectorRE.FindAllStringSubmatch(expr, -1) {
		f, le := familyOf(types, m[1])
		for _, lm := range matcherRE.FindAllStringSubmatch(m[2], -1) {
			if !has(f, le, lm[1]) {
				bad = append(bad, m[1]+"{"+lm[1]+"}")
			}
		}
	}
	for _, m := range labelVarRE.FindAllStringSubmatch(expr, -1) {
		if f, le := familyOf(types, m[1]); !has(f, le, m[2]) {
			bad = append(bad, "label_values("+m[1]+", "+m[2]+")")
		}
	}
	// Other series (up, process_*) in the query have labels this
	// registry does not describe: its groupings are only checked without
	// them.
	foreign := foreignRE.MatchString(expr)
	if !foreign {
		for _, m := range groupingRE.FindAllStringSubmatch(expr, -1) {
			for _, l := range strings.Split(m[1], ",") {
				if l = strings.TrimSpace(l); l != "" && !all[l] {
					bad = append(bad, "("+l+")")
				}
			}
		}
	}
	if !foreign && len(metricName.FindAllString(expr, -1)) > 0 {
		for _, text := range texts {
			for _, m := range templateRE.FindAllStringSubmatch(text, -1) {
				if !all[m[1]] && m[1] != "value" {
					bad = append(bad, "{{"+m[1]+"}}")
				}
			}
		}
	}
	return bad
}

// TestLabelsRejectWrongNames: the label check finds a label a family does
// not have, wherever a query names it, and passes the ones it has.
func TestLabelsRejectWrongNames(t *testing.T) {
	types, labels := exposedLabels(t)
	for _, c := range []struct {
		expr, legend string
		want         []string
	}{
		{`sum by (tool, source, endpoint) (rate(wasmgate_tool_calls_total{job=~"$job", source=~"$source", endpoint=~"$endpoint", outcome!="ok"}[5m]))`, "{{tool}} {{endpoint}}", nil},
		{`histogram_quantile(0.99, sum by (tool, le) (rate(wasmgate_tool_call_duration_seconds_bucket{endpoint="default"}[5m])))`, "", nil},
		{`sum by (plugin) (wasmgate_plugin_instances{plugin=~"$source"})`, "{{plugin}}", nil},
		{`label_values(wasmgate_tool_calls_total{job=~"$job"}, endpoint)`, "", nil},
		{`sum(rate(wasmgate_tool_calls_total{plugin=~"$plugin"}[5m]))`, "", []string{"wasmgate_tool_calls_total{plugin}"}},
		{`sum by (plugin, tool) (rate(wasmgate_tool_calls_total[5m]))`, "", []string{"(plugin)"}},
		{`sum by (tool) (rate(wasmgate_tool_calls_total[5m]))`, "{{plugin}}", []string{"{{plugin}}"}},
		{`sum by (source) (wasmgate_plugin_instances)`, "", []string{"(source)"}},
		{`sum by (le) (rate(wasmgate_tool_call_duration_seconds_sum[5m]))`, "", []string{"(le)"}},
		{`label_values(wasmgate_tool_calls_total, plugin)`, "", []string{"label_values(wasmgate_tool_calls_total, plugin)"}},
		{`wasmgate_resource_reads_total{endpoint="dev"} and wasmgate_prompt_gets_total{plugin="x"}`, "{{ $labels.source }}", []string{"wasmgate_prompt_gets_total{plugin}"}},
	} {
		if got := unknownLabels(types, labels, c.expr, c.legend); !slices.Equal(got, c.want) {
			t.Errorf("%s (%q): unknown labels %q, want %q", c.expr, c.legend, got, c.want)
		}
	}
}

func TestKnownRejectsWrongNames(t *testing.T) {
	types := exposed(t)
	exprs := []string{
		`sum(rate(wasmgate_tool_calls_total[5m]))`,
		`histogram_quantile(0.99, sum by (le) (rate(wasmgate_tool_call_duration_seconds_bucket[5m])))`,
		`wasmgate_tool_call_duration_seconds_sum / wasmgate_tool_call_duration_seconds_count`,
		`wasmgate_tool_calls_total_bucket`, // a counter has no buckets
		`wasmgate_tools_count`,             // a gauge has no _count
		`rate(wasmgate_tool_call_total[5m])`,
		`wasmgate_config_reload_successful == 0`,
	}
	unknown, _ := unknownNames(types, exprs)
	want := []string{"wasmgate_config_reload_successful", "wasmgate_tool_call_total", "wasmgate_tool_calls_total_bucket", "wasmgate_tools_count"}
	if !slices.Equal(unknown, want) {
		t.Fatalf("unknown names = %q, want %q", unknown, want)
	}
}

// collectTargets appends every object with an "expr" anywhere in v: a
// panel's queries, with their legends.
func collectTargets(v any, out *[]map[string]any) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["expr"].(string); ok {
			*out = append(*out, v)
			return
		}
		for _, x := range v {
			collectTargets(x, out)
		}
	case []any:
		for _, x := range v {
			collectTargets(x, out)
		}
	}
}

// collect appends every string under a key in keys anywhere in v.
func collect(v any, keys map[string]bool, out *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && keys[k] {
				*out = append(*out, s)
				continue
			}
			collect(x, keys, out)
		}
	case []any:
		for _, x := range v {
			collect(x, keys, out)
		}
	}
}

func TestGrafanaDashboard(t *testing.T) {
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var dash map[string]any
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("%s: not valid JSON: %v", dashboardFile, err)
	}
	panels, _ := dash["panels"].([]any)
	if len(panels) == 0 {
		t.Fatalf("%s: no panels", dashboardFile)
	}
	if title, _ := dash["title"].(string); title == "" {
		t.Errorf("%s: no title", dashboardFile)
	}

	// Panel queries are "expr"; template variables hold theirs in "query"
	// (a string, or an object with a "query" string) and "definition".
	var exprs []string
	collect(panels, map[string]bool{"expr": true}, &exprs)
	nPanelExprs := len(exprs)
	collect(dash["templating"], map[string]bool{"query": true, "definition": true}, &exprs)
	if nPanelExprs == 0 {
		t.Fatalf("%s: no panel has an expr", dashboardFile)
	}

	unknown, found := unknownNames(exposed(t), exprs)
	for _, n := range unknown {
		t.Errorf("%s uses %s, which metrics.New does not register", dashboardFile, n)
	}
	if len(found) == 0 {
		t.Errorf("%s: no wasmgate_* metric in %d queries", dashboardFile, len(exprs))
	}

	// Each query and its legend name only labels its series have (the
	// call metrics' source and endpoint, not plugin).
	types, labels := exposedLabels(t)
	var targets []map[string]any
	collectTargets(panels, &targets)
	for _, tg := range targets {
		expr, _ := tg["expr"].(string)
		legend, _ := tg["legendFormat"].(string)
		for _, l := range unknownLabels(types, labels, expr, legend) {
			t.Errorf("%s: the query %q names %s, a label its series do not have", dashboardFile, expr, l)
		}
	}
	var varExprs []string
	collect(dash["templating"], map[string]bool{"query": true, "definition": true}, &varExprs)
	for _, e := range varExprs {
		for _, l := range unknownLabels(types, labels, e) {
			t.Errorf("%s: the variable query %q names %s, a label its series do not have", dashboardFile, e, l)
		}
	}
	// The call panels can be narrowed to a source and an endpoint.
	var vars []string
	collect(dash["templating"], map[string]bool{"name": true}, &vars)
	for _, v := range []string{"source", "endpoint"} {
		if !slices.Contains(vars, v) {
			t.Errorf("%s: no template variable %q (has %q)", dashboardFile, v, vars)
		}
	}
	for _, tg := range targets {
		expr, _ := tg["expr"].(string)
		if strings.Contains(expr, "wasmgate_tool_calls_total{") && !strings.Contains(expr, `endpoint=~"$endpoint"`) {
			t.Errorf("%s: the query %q does not follow the endpoint variable", dashboardFile, expr)
		}
	}
	if len(unknown) == 0 {
		t.Logf("%s: %d panels, %d queries, %d wasmgate metrics, all registered", dashboardFile, len(panels), len(exprs), len(found))
	}
}

// ruleFile is a Prometheus rule file. Decoding with KnownFields catches a
// misspelt key (fr: 10m), which Prometheus would refuse to load.
type ruleFile struct {
	Groups []struct {
		Name        string `yaml:"name"`
		Interval    string `yaml:"interval"`
		QueryOffset string `yaml:"query_offset"`
		Limit       int    `yaml:"limit"`
		Rules       []struct {
			Record        string            `yaml:"record"`
			Alert         string            `yaml:"alert"`
			Expr          string            `yaml:"expr"`
			For           string            `yaml:"for"`
			KeepFiringFor string            `yaml:"keep_firing_for"`
			Labels        map[string]string `yaml:"labels"`
			Annotations   map[string]string `yaml:"annotations"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

func TestPrometheusAlerts(t *testing.T) {
	raw, err := os.ReadFile(alertsFile)
	if err != nil {
		t.Fatal(err)
	}
	var rf ruleFile
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(true)
	if err := dec.Decode(&rf); err != nil {
		t.Fatalf("%s: %v", alertsFile, err)
	}
	if len(rf.Groups) == 0 {
		t.Fatalf("%s: no rule groups", alertsFile)
	}

	types, labels := exposedLabels(t)
	var exprs, alerts []string
	for _, g := range rf.Groups {
		if g.Name == "" {
			t.Errorf("%s: a group has no name", alertsFile)
		}
		for i, r := range g.Rules {
			if r.Record != "" { // a recording rule: only its expr matters here
				exprs = append(exprs, r.Expr)
				continue
			}
			where := r.Alert
			if where == "" {
				where = fmt.Sprintf("%s.rules[%d]", g.Name, i)
				t.Errorf("%s: %s has no alert name", alertsFile, where)
			}
			if strings.TrimSpace(r.Expr) == "" {
				t.Errorf("%s: %s has no expr", alertsFile, where)
			}
			if r.For == "" {
				t.Errorf("%s: %s has no for", alertsFile, where)
			}
			if strings.TrimSpace(r.Annotations["summary"]) == "" {
				t.Errorf("%s: %s has no annotations.summary", alertsFile, where)
			}
			if strings.TrimSpace(r.Annotations["description"]) == "" {
				t.Errorf("%s: %s has no annotations.description", alertsFile, where)
			}
			exprs = append(exprs, r.Expr)
			alerts = append(alerts, r.Alert)
			for _, l := range unknownLabels(types, labels, r.Expr, r.Annotations["summary"], r.Annotations["description"]) {
				t.Errorf("%s: %s names %s, a label its series do not have", alertsFile, where, l)
			}
		}
	}
	for _, want := range []string{
		"WasmgateDown", "WasmgateReloadFailed", "WasmgateToolErrorRatioHigh",
		"WasmgateToolTimeouts", "WasmgatePluginCrashes", "WasmgateSlowTools",
	} {
		if !slices.Contains(alerts, want) {
			t.Errorf("%s: no alert %s", alertsFile, want)
		}
	}

	unknown, found := unknownNames(exposed(t), exprs)
	for _, n := range unknown {
		t.Errorf("%s uses %s, which metrics.New does not register", alertsFile, n)
	}
	if len(unknown) == 0 {
		t.Logf("%s: %d alerts, %d wasmgate metrics, all registered", alertsFile, len(alerts), len(found))
	}
}

// TestPrometheusAlertRules runs promtool's unit tests of the alerts
// (alerts_test.yml): the per-tool alerts fire once per source and tool,
// summed over endpoints, and their text names the source.
func TestPrometheusAlertRules(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skipf("promtool is not installed (apt-get install -y prometheus): %s is not run", alertTestsFile)
	}
	dir, file := filepath.Split(alertTestsFile)
	cmd := exec.Command(promtool, "test", "rules", file)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules %s: %v\n%s", alertTestsFile, err, out)
	}
}
