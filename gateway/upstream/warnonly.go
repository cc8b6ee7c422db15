// The log wrapper: the MCP transport's own log, passed on from warning
// level up and without the upstream's credentials.

package upstream

import (
	"context"
	"errors"
	"log/slog"
)

// warnOnly passes on the transport's warnings and errors only (not its
// "listening" chatter), without the upstream's credentials.
type warnOnly struct {
	slog.Handler
	creds *credentials
}

func (w warnOnly) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warnOnly) Handle(ctx context.Context, r slog.Record) error {
	level := r.Level
	if r.Message == "error handling request" {
		// The transport answered a request of the upstream (sampling,
		// elicitation, roots) with the error the gateway gave: that is
		// an answer, not a fault of the gateway. A documented refusal
		// was logged (rate limited) and counted where it was decided.
		refused := false
		r.Attrs(func(a slog.Attr) bool {
			if err, ok := a.Value.Any().(error); ok && errors.As(err, new(refusedRequest)) {
				refused = true
			}
			return !refused
		})
		if refused {
			return nil
		}
		level = min(level, slog.LevelWarn)
	}
	out := slog.NewRecord(r.Time, level, w.creds.redact(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if k := a.Value.Kind(); k == slog.KindString || k == slog.KindAny {
			a.Value = slog.StringValue(w.creds.redact(a.Value.String()))
		}
		out.AddAttrs(a)
		return true
	})
	return w.Handler.Handle(ctx, out)
}

func (w warnOnly) WithAttrs(as []slog.Attr) slog.Handler {
	return warnOnly{w.Handler.WithAttrs(as), w.creds}
}
func (w warnOnly) WithGroup(g string) slog.Handler { return warnOnly{w.Handler.WithGroup(g), w.creds} }
