package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/gateway/envelope"
	"github.com/wasmgate/wasmgate/internal/redact"
	"github.com/wasmgate/wasmgate/loader"
)

// Audit writes one structured line per call: to the gateway's log, or
// with audit.file to that file as JSON lines, written in batches (see
// flushDelay). The file is reopened on every reload, so `mv` by a log
// rotator followed by SIGHUP starts a new one.
type Audit struct {
	log *slog.Logger

	// mu is held for reading while a line is written, so that apply
	// does not close the file under a write (the line would be lost).
	mu    sync.RWMutex
	cfg   loader.Audit
	file  *os.File
	lines *lineWriter // to file; nil: to out
	out   *slog.Logger

	redactor redact.Matcher // audit.redact: argument names whose values are left out

	bufs sync.Pool // *lineBuf to format the lines of audit.file in
}

// NewAudit is an audit log writing to log until Apply names a file.
func NewAudit(log *slog.Logger) *Audit {
	return &Audit{log: log, out: log.With("component", "audit"), redactor: redact.New(nil)}
}

// Apply follows the audit section of a snapshot being applied.
func (a *Audit) Apply(cfg loader.Audit) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg = cfg
	a.redactor = redact.New(cfg.Redact)
	if a.file != nil {
		a.lines.close()
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

// Close closes the audit file.
func (a *Audit) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.file != nil {
		a.lines.close()
		_ = a.file.Close()
		a.file, a.lines = nil, nil
	}
}

// Observe writes the audit line of one call.
func (a *Audit) Observe(ctx context.Context, call *envelope.Call) {
	c, kind, name, outcome, args := call.Caller, call.Kind, call.Name, call.Outcome, call.Args
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
	// Typed attributes, in a fixed array: no boxing, no parsing of
	// key-value pairs, no slice growth.
	var attrs [9]slog.Attr
	n := copy(attrs[:], []slog.Attr{
		slog.String("principal", c.Principal.Name), slog.String("transport", c.Transport), slog.String("session", session),
		slog.String("kind", kind), slog.String("name", name), slog.String("outcome", outcome),
		slog.Float64("duration_ms", float64(call.Took.Microseconds())/1000),
	})
	if call.TraceID != "" {
		attrs[n] = slog.String("trace_id", call.TraceID)
		n++
	}
	if a.cfg.Arguments && args != nil {
		b, err := json.Marshal(a.redactor.Redact(args))
		if err == nil {
			attrs[n] = slog.String("arguments", string(b))
			n++
		}
	}
	if a.lines == nil {
		a.out.LogAttrs(ctx, slog.LevelInfo, "call", attrs[:n]...)
		return
	}
	// The line is formatted here and handed to the file's writer whole,
	// as slog's JSON handler would write it (appendLine).
	now := time.Now()
	lb, _ := a.bufs.Get().(*lineBuf)
	if lb == nil {
		lb = new(lineBuf)
	}
	var ok bool
	if lb.b, ok = appendLine(lb.b[:0], now, attrs[:n]); !ok {
		if lb.h == nil {
			lb.h = slog.NewJSONHandler(&lb.slow, nil)
		}
		rec := slog.NewRecord(now, slog.LevelInfo, "call", 0)
		rec.AddAttrs(attrs[:n]...)
		lb.slow.Reset()
		_ = lb.h.Handle(ctx, rec)
		lb.b = append(lb.b[:0], lb.slow.Bytes()...)
	}
	a.lines.write(lb.b)
	if cap(lb.b) <= 64<<10 && lb.slow.Cap() <= 64<<10 {
		a.bufs.Put(lb)
	}
}

// lineBuf is a buffer to format an audit line in, and for a line
// appendLine does not format, slog's JSON handler with the buffer it
// writes to.
type lineBuf struct {
	b    []byte
	slow bytes.Buffer
	h    *slog.JSONHandler
}

// Audit lines bound for audit.file are buffered for at most flushDelay
// and written together by a flush of their own, off the call path: one
// write(2) then carries every line of those milliseconds instead of one
// each. A write to a regular file holds its thread and its P (Go cannot
// park a goroutine on one), so under load the number of writes, not the
// bytes, is what an audit file costs: on 2026-12-05 an audit.file on
// ext4 cost 10-14% of the calls per second at 16 clients (make
// bench-policy's load) flushed every 10 ms or 64 KiB from the caller, and
// 3.5% flushed every 100 ms (the same whether every 100 ms or every
// second). Once flushSize bytes wait the flush starts at once, still not
// in the caller; a caller that finds maxQueued waiting (the file is
// slower than the calls) writes them itself, so memory stays bounded. A
// reload (apply) and shutdown (close) write what waits first.
const (
	flushDelay = 100 * time.Millisecond
	flushSize  = 1 << 20
	maxQueued  = 8 << 20
)

// lineWriter appends whole lines to a file in batches (see flushDelay).
// Lines reach the file in the order write was called.
type lineWriter struct {
	f *os.File

	mu      sync.Mutex // buf, spare, timer, soon
	buf     []byte
	spare   []byte
	timer   *time.Timer    // armed while lines wait
	soon    bool           // timer reset to fire now: flushSize bytes wait
	pending sync.WaitGroup // one per run of the timer's func to come

	wmu sync.Mutex // one flush at a time, so that batches stay in order
}

func newLineWriter(f *os.File) *lineWriter { return &lineWriter{f: f} }

// write queues line; it is in the file within flushDelay.
func (w *lineWriter) write(line []byte) {
	w.mu.Lock()
	w.buf = append(w.buf, line...)
	n := len(w.buf)
	switch {
	case n >= maxQueued:
		// The flusher is behind: write here (below).
	case w.timer == nil:
		w.pending.Add(1)
		w.timer = time.AfterFunc(flushDelay, func() {
			defer w.pending.Done()
			w.flush()
		})
	case n >= flushSize && !w.soon:
		w.soon = true
		if !w.timer.Reset(0) {
			// It had fired (its flush has not taken mu yet): it runs
			// once more.
			w.pending.Add(1)
		}
	}
	w.mu.Unlock()
	if n >= maxQueued {
		w.flush()
	}
}

// flush writes every queued line now.
func (w *lineWriter) flush() {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	w.mu.Lock()
	if w.timer != nil {
		if w.timer.Stop() {
			w.pending.Done() // its func will not run
		}
		w.timer, w.soon = nil, false
	}
	if len(w.buf) == 0 {
		w.mu.Unlock()
		return
	}
	// Swap the buffers: lines queue in the spare one while b is written.
	b := w.buf
	w.buf, w.spare = w.spare[:0], nil
	w.mu.Unlock()
	_, _ = w.f.Write(b) // as slog's handlers do, a failed write is dropped
	if cap(b) <= 2*flushSize {
		w.mu.Lock()
		w.spare = b[:0]
		w.mu.Unlock()
	}
}

// close writes what waits and waits for a timer's flush under way; the
// caller then closes the file. Nothing may call write after close.
func (w *lineWriter) close() {
	w.flush()
	w.pending.Wait()
}
