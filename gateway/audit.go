package gateway

import (
	"bytes"
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
	mu    sync.RWMutex
	cfg   loader.Audit
	file  *os.File
	lines *lineWriter // to file; nil: to out
	out   *slog.Logger
}

// bufPool holds the buffers audit lines are formatted in.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

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
		a.file, a.lines = nil, nil
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
	a.file, a.lines = f, newLineWriter(f)
}

// close closes the audit file.
func (a *auditLog) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.file != nil {
		_ = a.file.Close()
		a.file, a.lines = nil, nil
	}
}

// record writes the audit line of one call.
func (a *auditLog) record(ctx context.Context, c caller, kind, name, outcome string, start time.Time, args map[string]any) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	// In the log, an audit line is an info line: server.log.level warn or
	// error leaves it out. audit.file has them all.
	if a.lines == nil && !a.out.Enabled(ctx, slog.LevelInfo) {
		return
	}
	session := ""
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		session = cs.SessionID()
	}
	attrs := []any{
		"principal", c.principal.Name, "transport", c.transport, "session", session,
		"kind", kind, "name", name, "outcome", outcome,
		"duration_ms", float64(time.Since(start).Microseconds()) / 1000,
	}
	if a.cfg.Arguments && args != nil {
		b, err := json.Marshal(redact(args))
		if err == nil {
			attrs = append(attrs, "arguments", string(b))
		}
	}
	if a.lines == nil {
		a.out.Info("call", attrs...)
		return
	}
	// The line is formatted here, outside any lock, and handed to the
	// file's writer whole.
	rec := slog.NewRecord(time.Now(), slog.LevelInfo, "call", 0)
	rec.Add(attrs...)
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	_ = slog.NewJSONHandler(buf, nil).Handle(ctx, rec)
	a.lines.write(buf.Bytes())
	if buf.Cap() <= 64<<10 {
		bufPool.Put(buf)
	}
}

// maxQueued is how many bytes of lines may wait behind a running write
// before callers wait for it (a stalled disk must not grow memory).
const maxQueued = 1 << 20

// lineWriter appends whole lines to a file, one write(2) per batch: the
// lines that arrive while a write is under way go out together in the
// next one. A caller that finds no write running writes, and keeps
// writing until nothing is queued; the others queue their line and
// return. So a line alone is written at once, and under load one write
// carries many lines. Once every caller has returned, every line is in
// the file (apply and close rely on it, holding auditLog.mu).
type lineWriter struct {
	f *os.File

	mu      sync.Mutex
	room    sync.Cond // signalled when queued shrinks
	queued  []byte
	spare   []byte
	writing bool
}

func newLineWriter(f *os.File) *lineWriter {
	w := &lineWriter{f: f}
	w.room.L = &w.mu
	return w
}

func (w *lineWriter) write(line []byte) {
	w.mu.Lock()
	for w.writing && len(w.queued) >= maxQueued {
		w.room.Wait()
	}
	w.queued = append(w.queued, line...)
	if w.writing {
		w.mu.Unlock()
		return
	}
	w.writing = true
	for len(w.queued) > 0 {
		b := w.queued
		w.queued = w.spare[:0]
		w.mu.Unlock()
		_, _ = w.f.Write(b) // as slog's handlers do, a failed write is dropped
		w.mu.Lock()
		if cap(b) <= maxQueued {
			w.spare = b[:0]
		} else {
			w.spare = nil
		}
		w.room.Broadcast()
	}
	w.writing = false
	w.mu.Unlock()
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
