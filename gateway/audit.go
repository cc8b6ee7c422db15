package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/loader"
)

// auditLog writes one structured line per call: to the gateway's log, or
// with audit.file to that file as JSON lines. The file is reopened on
// every reload, so `mv` by a log rotator followed by SIGHUP starts a new
// one.
type auditLog struct {
	log *slog.Logger

	// mu is held for reading while a line is written, so that apply
	// does not close the file under a write (the line would be lost).
	mu   sync.RWMutex
	cfg  loader.Audit
	file *os.File
	out  *slog.Logger
}

func newAuditLog(log *slog.Logger) *auditLog {
	return &auditLog{log: log, out: log.With("component", "audit")}
}

// apply follows the audit section of a snapshot being applied.
func (a *auditLog) apply(cfg loader.Audit) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg = cfg
	if a.file != nil {
		_ = a.file.Close()
		a.file = nil
	}
	a.out = a.log.With("component", "audit")
	if cfg.File == "" {
		return
	}
	f, err := os.OpenFile(cfg.File, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		a.log.Error("cannot open audit.file; audit lines go to the log", "file", cfg.File, "error", err)
		return
	}
	a.file = f
	a.out = slog.New(slog.NewJSONHandler(f, nil))
}

// close closes the audit file.
func (a *auditLog) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.file != nil {
		_ = a.file.Close()
		a.file = nil
	}
}

// record writes the audit line of one call.
func (a *auditLog) record(ctx context.Context, c caller, kind, name, outcome string, start time.Time, args map[string]any) {
	session := ""
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		session = cs.SessionID()
	}
	attrs := []any{
		"principal", c.principal.Name, "transport", c.transport, "session", session,
		"kind", kind, "name", name, "outcome", outcome,
		"duration_ms", float64(time.Since(start).Microseconds()) / 1000,
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.cfg.Arguments && args != nil {
		b, err := json.Marshal(redact(args))
		if err == nil {
			attrs = append(attrs, "arguments", string(b))
		}
	}
	// Straight to the handler: an audit line is written whatever
	// server.log.level says (a level filters diagnostics, not the record
	// of who called what).
	rec := slog.NewRecord(time.Now(), slog.LevelInfo, "call", 0)
	rec.Add(attrs...)
	_ = a.out.Handler().Handle(ctx, rec)
}

// secretKeys are the parts of an argument's name that mark its value as a
// secret in the audit log.
var secretKeys = []string{"token", "password", "secret", "key", "authorization"}

// redact copies v with the values under secret-looking keys replaced.
func redact(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			lk := strings.ToLower(k)
			secret := false
			for _, s := range secretKeys {
				if strings.Contains(lk, s) {
					secret = true
					break
				}
			}
			if secret {
				out[k] = "[redacted]"
			} else {
				out[k] = redact(val)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = redact(val)
		}
		return out
	}
	return v
}

// argsOf is a call's arguments as a map, for policy and the audit log.
func argsOf(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case map[string]string:
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return m
	case nil:
		return nil
	}
	var m map[string]any
	if b, err := json.Marshal(v); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	if m == nil {
		return map[string]any{"arguments": fmt.Sprint(v)}
	}
	return m
}
