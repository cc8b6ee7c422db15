// Package lograte bounds how many lines a source of refusals writes: a
// client that sends 600 bad tokens gets a few lines in the log and a
// counter for the rest, not 600 lines. It imports nothing of wasmgate's.
package lograte

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Defaults of New's arguments as the gateway uses them: ten lines at
// once, then one a second.
const (
	DefaultBurst = 10
	DefaultEvery = time.Second
)

// Limiter lets through at most burst lines at once and one line per every
// afterwards; the lines in excess are dropped, counted by onDrop (a
// metric), and the next line let through says how many were dropped
// before it ("suppressed"). It is safe for concurrent use; its zero value
// is not usable, a nil *Limiter lets every line through.
type Limiter struct {
	lim    *rate.Limiter
	onDrop func()

	mu      sync.Mutex
	dropped uint64 // since the last line let through
}

// New returns a Limiter; onDrop (may be nil) runs once per dropped line.
func New(burst int, every time.Duration, onDrop func()) *Limiter {
	return &Limiter{lim: rate.NewLimiter(rate.Every(every), burst), onDrop: onDrop}
}

// Log writes msg with args to log at level, unless the rate is used up;
// it reports whether the line was written.
func (l *Limiter) Log(ctx context.Context, log *slog.Logger, level slog.Level, msg string, args ...any) bool {
	if !log.Enabled(ctx, level) {
		return false
	}
	if l == nil {
		log.Log(ctx, level, msg, args...)
		return true
	}
	if !l.lim.Allow() {
		l.mu.Lock()
		l.dropped++
		l.mu.Unlock()
		if l.onDrop != nil {
			l.onDrop()
		}
		return false
	}
	l.mu.Lock()
	n := l.dropped
	l.dropped = 0
	l.mu.Unlock()
	if n > 0 {
		args = append(args, "suppressed", n)
	}
	log.Log(ctx, level, msg, args...)
	return true
}

// Warn is Log at slog.LevelWarn without a context.
func (l *Limiter) Warn(log *slog.Logger, msg string, args ...any) bool {
	return l.Log(context.Background(), log, slog.LevelWarn, msg, args...)
}
