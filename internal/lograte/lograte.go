// Package lograte bounds how many lines a source of refusals writes: a
// client that sends 600 bad tokens gets a few lines in the log and a
// counter for the rest, not 600 lines. It is the one log limiter of the
// gateway: x/time/rate's Sometimes decides which lines go through, and
// this package adds what Sometimes does not have, the count of the lines
// it left out (a metric, and "suppressed" on the next line written). It
// imports nothing of wasmgate's.
package lograte

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Defaults of New's arguments as the gateway uses them: the first ten
// lines, then one a second.
const (
	DefaultBurst = 10
	DefaultEvery = time.Second
)

// Limiter lets through the first burst lines, then one line per every
// (rate.Sometimes{First: burst, Interval: every}); the lines in excess
// are dropped, counted by onDrop (a metric), and the next line let
// through says how many were dropped before it ("suppressed"). It is
// safe for concurrent use; a nil *Limiter lets every line through.
type Limiter struct {
	s       rate.Sometimes
	onDrop  func()
	dropped atomic.Uint64 // since the last line let through
}

// New returns a Limiter; onDrop (may be nil) runs once per dropped line.
// New(1, time.Minute, nil) writes at most one line a minute.
func New(burst int, every time.Duration, onDrop func()) *Limiter {
	return &Limiter{s: rate.Sometimes{First: burst, Interval: every}, onDrop: onDrop}
}

// Log writes msg with args to log at level, unless the rate is used up;
// it reports whether the line was written.
func (l *Limiter) Log(ctx context.Context, log *slog.Logger, level slog.Level, msg string, args ...any) bool {
	if !log.Enabled(ctx, level) {
		return false
	}
	if l != nil {
		allowed := false
		l.s.Do(func() { allowed = true }) // Do runs it under Sometimes' lock: keep it this small
		if !allowed {
			l.dropped.Add(1)
			if l.onDrop != nil {
				l.onDrop()
			}
			return false
		}
		if n := l.dropped.Swap(0); n > 0 {
			args = append(args, "suppressed", n)
		}
	}
	log.Log(ctx, level, msg, args...)
	return true
}

// Warn is Log at slog.LevelWarn without a context.
func (l *Limiter) Warn(log *slog.Logger, msg string, args ...any) bool {
	return l.Log(context.Background(), log, slog.LevelWarn, msg, args...)
}
