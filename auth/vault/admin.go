package vault

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
)

// Admin API paths, served on the admin listener.
const (
	AdminListPath   = "/api/credentials"
	AdminRevokePath = "/api/credentials/revoke"
)

// RevokeRequest is the body of POST /api/credentials/revoke: one user's
// grant to Upstream, or (All) every user's.
type RevokeRequest struct {
	Upstream  string `json:"upstream"`
	Principal string `json:"principal,omitempty"`
	All       bool   `json:"all,omitempty"`
}

// RevokeResult is its answer: how many grants were removed.
type RevokeResult struct {
	Revoked int `json:"revoked"`
}

// maxRevokeBody bounds the body of a revocation.
const maxRevokeBody = 16 << 10

// AdminHandler serves the vault's admin API:
//
//	GET  /api/credentials[?upstream=U]  the grants (a JSON array of Meta: never a token)
//	POST /api/credentials/revoke        {"upstream": U, "principal": P} or {"upstream": U, "all": true}
//
// It checks neither the admin token nor the admin header: the admin
// listener's mount does, as for its other state-changing endpoints.
// Revocations are logged at info with what was revoked.
func AdminHandler(v *Vault, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+AdminListPath, func(w http.ResponseWriter, r *http.Request) {
		list, err := v.List(r.Context(), r.URL.Query().Get("upstream"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		if list == nil {
			list = []Meta{}
		}
		writeJSON(w, list)
	})
	mux.HandleFunc("POST "+AdminRevokePath, func(w http.ResponseWriter, r *http.Request) {
		var req RevokeRequest
		dec := json.NewDecoder(io.LimitReader(r.Body, maxRevokeBody))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			http.Error(w, "Bad Request: the body is not a revocation ({\"upstream\": ..., \"principal\": ...} or {\"upstream\": ..., \"all\": true}): "+err.Error(), http.StatusBadRequest)
			return
		}
		req.Upstream, req.Principal = strings.TrimSpace(req.Upstream), strings.TrimSpace(req.Principal)
		if msg := req.check(); msg != "" {
			http.Error(w, "Bad Request: "+msg, http.StatusBadRequest)
			return
		}
		var res RevokeResult
		var err error
		if req.All {
			res.Revoked, err = v.DeleteAll(r.Context(), req.Upstream)
		} else {
			var ok bool
			if ok, err = v.Delete(r.Context(), req.Upstream, req.Principal); ok {
				res.Revoked = 1
			}
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		who := req.Principal
		if req.All {
			who = "(every user)"
		}
		logger.InfoContext(r.Context(), "revoked upstream grants over the admin API",
			"upstream", req.Upstream, "principal", who, "revoked", res.Revoked, "remote", r.RemoteAddr)
		writeJSON(w, res)
	})
	return mux
}

func (r RevokeRequest) check() string {
	switch {
	case r.Upstream == "":
		return "name the upstream"
	case r.All && r.Principal != "":
		return "name a principal or set all, not both"
	case !r.All && r.Principal == "":
		return "name the principal whose grant to revoke, or set \"all\": true to revoke every user's grant to " + r.Upstream
	}
	return ""
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(v) // an error: the client went away
}
