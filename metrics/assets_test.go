package metrics_test

import (
	"encoding/json"
	"fmt"
	"os"
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
	dashboardFile = "../examples/grafana/wasmgate.json"
	alertsFile    = "../configs/prometheus/alerts.yml"
)

var metricName = regexp.MustCompile(`wasmgate_[a-z_]+`)

// exposed gathers the registry of metrics.New after giving every vector one
// child, so that vectors show up in the output, and returns each metric
// family's type by name.
func exposed(t *testing.T) map[string]dto.MetricType {
	t.Helper()
	m := metrics.New("test", "test")
	m.ToolCalls.WithLabelValues("t", "p", metrics.OutcomeOK)
	m.ToolDuration.WithLabelValues("t", "p")
	m.ToolsInFlight.WithLabelValues("p")
	m.ResourceReads.WithLabelValues("p", metrics.OutcomeOK)
	m.PromptGets.WithLabelValues("p", metrics.OutcomeOK)
	m.PluginInstances.WithLabelValues("p")
	m.Reloads.WithLabelValues("success")
	m.HTTPRejected.WithLabelValues("auth")
	m.RelayBridges.WithLabelValues("s")
	m.RelayHandshakes.WithLabelValues("s", "ok")
	m.RelayFramesRejected.WithLabelValues("s", "malformed")
	m.PolicyDenials.WithLabelValues("p", "tool")
	m.RateLimited.WithLabelValues("p", "tool")
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	types := make(map[string]dto.MetricType, len(mfs))
	for _, mf := range mfs {
		types[mf.GetName()] = mf.GetType()
	}
	return types
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
