package gateway

import (
	"io"
	"net/http"

	"github.com/wasmgate/wasmgate/metrics"
)

func (g *Gateway) adminHandler(m *metrics.Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("POST /-/reload", func(w http.ResponseWriter, r *http.Request) {
		if err := g.Reload(r.Context()); err != nil {
			http.Error(w, "reload failed: "+err.Error(), http.StatusInternalServerError)
			return
		}
		_, _ = io.WriteString(w, "reloaded: "+g.cur.Load().Summary()+"\n")
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !g.ready.Load() || g.cur.Load() == nil {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, "ready\n")
	})
	return mux
}
