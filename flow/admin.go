package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// AdminResetPath is where ResetHandler is mounted on the admin listener.
const AdminResetPath = "/api/flows/reset"

// ResetRequest is the body of POST /api/flows/reset: the session whose
// taint to forget, or the principal (its window under scope principal,
// or the taint of its requests without a session). Exactly one is set.
type ResetRequest struct {
	Session   string `json:"session,omitempty"`
	Principal string `json:"principal,omitempty"`
}

// ResetResult is its answer: the store key reset, and whether it had a
// taint (or approvals) to forget.
type ResetResult struct {
	Key   string `json:"key"`
	Reset bool   `json:"reset"`
}

// MaxResetName is the longest session id or principal name (bytes) a
// reset request may name.
const MaxResetName = 512

// maxResetBody bounds the body of a reset request.
const maxResetBody = 4 << 10

// Key is the store key r names, or an error that names the field at
// fault.
func (r ResetRequest) Key() (string, error) {
	switch {
	case r.Session != "" && r.Principal != "":
		return "", errors.New(`give "session" or "principal", not both`)
	case r.Session == "" && r.Principal == "":
		return "", errors.New(`give "session" (an MCP session id) or "principal" (a principal's name), non-empty`)
	case len(r.Session) > MaxResetName:
		return "", fmt.Errorf(`"session" is longer than %d bytes`, MaxResetName)
	case len(r.Principal) > MaxResetName:
		return "", fmt.Errorf(`"principal" is longer than %d bytes`, MaxResetName)
	case r.Session != "":
		return Key(ScopeSession, r.Session, ""), nil
	}
	return Key(ScopePrincipal, "", r.Principal), nil
}

// ResetHandler serves POST /api/flows/reset, for an operator who cleared
// a session by hand: it calls reset with the store key of the body's
// {"session": ID} or {"principal": NAME} and answers 200 with a
// ResetResult; a body it cannot read is 400, and an error of reset 503,
// each with a JSON {"error": "..."}. It checks neither the admin token
// nor the admin header: the admin listener's mount does, as for its
// other state-changing endpoints.
func ResetHandler(reset func(ctx context.Context, key string) (bool, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, http.StatusMethodNotAllowed, r.Method+" is not allowed: POST a reset")
			return
		}
		req, err := readReset(w, r)
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		req.Session, req.Principal = strings.TrimSpace(req.Session), strings.TrimSpace(req.Principal)
		key, err := req.Key()
		if err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		ok, err := reset(r.Context(), key)
		if err != nil {
			writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("reset the taint of %s: %v", key, err))
			return
		}
		writeJSON(w, http.StatusOK, ResetResult{Key: key, Reset: ok})
	})
}

// readReset decodes the body: one JSON object of known fields, at most
// maxResetBody bytes.
func readReset(w http.ResponseWriter, r *http.Request) (ResetRequest, error) {
	const want = `the body is not a reset ({"session": "<id>"} or {"principal": "<name>"})`
	var req ResetRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxResetBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(&req)
	if err == nil {
		if _, next := dec.Token(); !errors.Is(next, io.EOF) {
			err = errors.New("data after the JSON object")
		}
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return req, fmt.Errorf("the body is larger than %d bytes", maxResetBody)
	case errors.Is(err, io.EOF):
		return req, errors.New(want + ": it is empty")
	case err != nil:
		return req, fmt.Errorf("%s: %s", want, strings.TrimPrefix(err.Error(), "json: "))
	}
	return req, nil
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v) // an error: the client went away
}
