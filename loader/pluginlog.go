package loader

import (
	"context"
	"log/slog"
	"sync"

	extism "github.com/extism/go-sdk"
	"golang.org/x/time/rate"
)

// Plugin log lines (pdk.Log and friends) are rate-limited per plugin, so a
// plugin that logs in a loop cannot flood the gateway's log: past the
// burst, lines are dropped and counted, and the next line that passes says
// how many were dropped.
const (
	pluginLogRate  = 50  // lines per second, sustained
	pluginLogBurst = 200 // lines at once
)

// pluginLog writes one plugin's log lines to the gateway's logger.
type pluginLog struct {
	logger  *slog.Logger
	limiter *rate.Limiter

	mu      sync.Mutex
	dropped int
}

func newPluginLog(logger *slog.Logger) *pluginLog {
	return &pluginLog{logger: logger, limiter: rate.NewLimiter(pluginLogRate, pluginLogBurst)}
}

// log is the extism logger of every instance of the plugin.
func (l *pluginLog) log(level extism.LogLevel, msg string) {
	if !l.limiter.Allow() {
		l.mu.Lock()
		l.dropped++
		l.mu.Unlock()
		return
	}
	l.mu.Lock()
	dropped := l.dropped
	l.dropped = 0
	l.mu.Unlock()
	if dropped > 0 {
		l.logger.Warn("plugin log lines dropped (rate limit)", "dropped", dropped, "limit_per_second", pluginLogRate)
	}
	l.logger.Log(context.Background(), slogLevel(level), msg)
}
