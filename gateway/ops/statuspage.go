package ops

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/wasmgate/wasmgate/internal/plural"
)

//go:embed statuspage/status.html
var statusHTML string

// statusRefresh is how often the status page refreshes itself; it says it
// is stale after three refreshes without an answer.
const statusRefresh = 5 * time.Second

// Liner is a status section's data that the page shows as readable
// lines (a diff, say) instead of its JSON; /api/status keeps the JSON.
type Liner interface{ Lines() []string }

var statusTmpl = template.Must(template.New("status").Funcs(template.FuncMap{
	"json": func(v any) string {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err.Error()
		}
		return string(b)
	},
	"plural": plural.N,
	"fields": sectionFields,
	// lines is a section's readable lines, when its data has them
	// (Liner); nil otherwise (the page shows its JSON).
	"lines": func(v any) []string {
		if l, ok := v.(Liner); ok {
			return l.Lines()
		}
		return nil
	},
	// ms shows milliseconds with two digits below 1 ms, one above.
	"ms": func(v float64) string {
		if v < 1 {
			return fmt.Sprintf("%.2f", v)
		}
		return fmt.Sprintf("%.1f", v)
	},
	"ago": func(t, now time.Time) string { return now.Sub(t).Round(time.Second).String() },
}).Parse(statusHTML))

// statusPage serves the status page: server-rendered, no external assets.
func (a *admin) statusPage(w http.ResponseWriter, r *http.Request) {
	page, err := renderStatus(a.o.Status())
	if err != nil {
		a.o.Logger.Error("rendering the status page", "error", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(page)
}

// renderStatus is the status page showing s.
func renderStatus(s Status) ([]byte, error) {
	data := struct {
		S         Status
		Version   string
		Uptime    string
		RefreshS  int
		RecentMin float64
	}{s, s.Version, time.Duration(s.UptimeS * float64(time.Second)).Round(time.Second).String(), int(statusRefresh / time.Second), s.RecentS / 60}
	var buf bytes.Buffer
	if err := statusTmpl.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("render the status page: %w", err)
	}
	return buf.Bytes(), nil
}

// statusJSON serves /api/status, the status page's JSON twin.
func (a *admin) statusJSON(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(a.o.Status())
}

// field is one key of a status section and its value, as the page shows
// it.
type field struct{ Key, Value string }

// sectionFields is a section's data as key and value, sorted by key, when
// its JSON is an object (a section's usual shape: state's backend, trust's
// lock file); nil otherwise (the page shows its JSON). Lists are joined
// ("none" when empty), nested objects stay compact JSON.
func sectionFields(v any) []field {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || len(m) == 0 {
		return nil
	}
	out := make([]field, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, field{k, fieldValue(m[k])})
	}
	return out
}

func fieldValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "–"
	case string:
		return x
	case []any:
		if len(x) == 0 {
			return "none"
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = fieldValue(e)
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}
