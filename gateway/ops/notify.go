package ops

import (
	"log/slog"
	"strings"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
)

// Notifier speaks systemd's notify protocol ($NOTIFY_SOCKET) for a unit of
// Type=notify (or notify-reload): READY=1 once serving, RELOADING=1 with
// MONOTONIC_USEC then READY=1 around every reload, STATUS= lines, WATCHDOG=1
// and STOPPING=1. Without $NOTIFY_SOCKET every send does nothing.
type Notifier struct {
	Log *slog.Logger
}

// Send sends one notification (lines joined by \n).
func (n *Notifier) Send(state string) {
	if _, err := daemon.SdNotify(false, state); err != nil {
		n.Log.Debug("systemd notification not sent", "state", firstLine(state), "error", err)
	}
}

// Ready says the gateway serves, with a STATUS= line.
func (n *Notifier) Ready(status string) {
	n.Send(daemon.SdNotifyReady + "\nSTATUS=" + status)
}

// Reloading says a reload starts. systemd (Type=notify-reload, and
// `systemctl reload` with Type=notify) waits for the READY=1 that follows.
func (n *Notifier) Reloading(trigger string) {
	n.Send(daemon.SdNotifyReloading + "\n" + daemon.SdNotifyMonotonicUsec() + "STATUS=reloading (" + trigger + ")")
}

// WatchdogInterval is how often to send WATCHDOG=1: half of WATCHDOG_USEC
// when systemd set it for this process, else 0.
func (n *Notifier) WatchdogInterval() time.Duration {
	d, err := daemon.SdWatchdogEnabled(false)
	if err != nil {
		n.Log.Warn("ignoring the systemd watchdog settings", "error", err)
		return 0
	}
	return d / 2
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// OneLine squeezes an error into a STATUS= line: its first line, at most
// 200 bytes.
func OneLine(s string) string {
	s = firstLine(s)
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}
