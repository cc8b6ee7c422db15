package ops

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"
	"net/http"
	"time"
)

//go:embed statuspage/status.html
var statusHTML string

// statusRefresh is how often the status page refreshes itself; it says it
// is stale after three refreshes without an answer.
const statusRefresh = 5 * time.Second

var statusTmpl = template.Must(template.New("status").Funcs(template.FuncMap{
	"json": func(v any) string {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err.Error()
		}
		return string(b)
	},
}).Parse(statusHTML))

// statusPage serves the status page: server-rendered, no external assets.
func (a *admin) statusPage(w http.ResponseWriter, r *http.Request) {
	s := a.o.Status()
	data := struct {
		S         Status
		Version   string
		Uptime    string
		RefreshS  int
		RecentMin float64
	}{s, s.Version, time.Duration(s.UptimeS * float64(time.Second)).Round(time.Second).String(), int(statusRefresh / time.Second), s.RecentS / 60}
	var buf bytes.Buffer
	if err := statusTmpl.Execute(&buf, data); err != nil {
		a.o.Logger.Error("rendering the status page", "error", err)
		http.Error(w, "rendering the status page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(buf.Bytes())
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
