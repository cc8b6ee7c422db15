package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wasmgate/wasmgate/gateway/ops"
	"github.com/wasmgate/wasmgate/gateway/trust"
	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/lockfile"
	"github.com/wasmgate/wasmgate/metrics"
)

// Trust (issue 20, docs/trust.md): gateway.lock holds what an operator
// approved of every source. A build whose sources differ from it in a
// module digest, an upstream's command or URL, or a grant is refused
// (trust.on_change refuse or withhold; warn logs it); what a source
// publishes (tools, prompts, resources) that differs from the lock, or
// is not in it, is withheld by the index's Gate (withhold: that entry;
// refuse: the whole source; warn: served and logged), counted, and
// shown on the status page, until `wasmgate lock` approves it.

// TriggerLock is the reload `wasmgate lock` asks for.
const TriggerLock = "wasmgate lock"

// trustStatus is the status page's trust section.
func (g *Gateway) trustStatus() any {
	s := g.cur.Load()
	if s == nil {
		return nil
	}
	t := s.Config.Trust
	return trust.Status{LockFile: t.LockFile, Locked: t.Lock != nil, OnChange: t.OnChange, Held: trust.OrEmpty(s.gate.Entries())}
}

// LockResult is what Lock did: the lock file, and what differed between
// it and what the sources publish (before it was written, with write).
type LockResult struct {
	File string   `json:"file"`
	Diff []string `json:"diff"`
	// Digest is the SHA-256 of the lock file that writing would write
	// now: `wasmgate lock` shows Diff, then asks to write with it, and
	// the gateway refuses if the sources changed in between.
	Digest  string `json:"digest"`
	Written bool   `json:"written"`
	Summary string `json:"summary,omitempty"`
}

// Lock builds the config file as saved, with nothing withheld, and
// compares what its sources publish (the pages connected now, the
// upstreams as they answer) with the lock file; with write, it writes
// the lock file and reloads (TriggerLock), so what it approved serves.
// With digest (a LockResult's Digest, as shown), it writes only that
// state: if what it would write now differs, nothing is written and the
// error wraps ops.ErrLockChanged. A lock file that cannot be parsed is
// replaced.
func (g *Gateway) Lock(ctx context.Context, write bool, digest string) (LockResult, error) {
	res, l, err := g.lockBuild(ctx)
	if err != nil {
		return res, err
	}
	data, err := l.Encode()
	if err != nil {
		return res, fmt.Errorf("encode the lock file: %w", err)
	}
	res.Digest = lockfile.Digest(data)
	if !write {
		return res, nil
	}
	if digest != "" && digest != res.Digest {
		g.opts.Metrics.TrustRefused.WithLabelValues(metrics.TrustRefusedLockChanged).Inc()
		g.log.Warn("trust: wasmgate lock refused: what the sources publish changed after it was shown; nothing written",
			"lock_file", res.File, "shown", digest, "now", res.Digest)
		return res, fmt.Errorf("%w: %s not written: what the sources publish changed after it was shown (sha256 %s, now %s); review it again (`wasmgate lock --check`), then run `wasmgate lock`; it differs from the lock file in:\n%s",
			ops.ErrLockChanged, res.File, digest, res.Digest, strings.Join(res.Diff, "\n"))
	}
	if g.watcher != nil {
		g.watcher.Expect(res.File, data) // the reload below applies it: the watcher's would be a second
	}
	if err := trust.WriteFileAtomic(res.File, data); err != nil {
		return res, err
	}
	res.Written = true
	if err := g.ReloadFrom(ctx, TriggerLock); err != nil {
		return res, fmt.Errorf("%s written; the reload that applies it failed: %w", res.File, err)
	}
	res.Summary = g.cur.Load().Summary()
	return res, nil
}

func (g *Gateway) lockBuild(ctx context.Context) (LockResult, *lockfile.Lock, error) {
	ctx, unlock, err := g.lockReload(ctx)
	if err != nil {
		return LockResult{}, nil, err
	}
	defer unlock()
	cfg, err := loader.LoadUnlocked(g.opts.ConfigPath, g.opts.Environ)
	if err != nil {
		return LockResult{}, nil, err
	}
	res := LockResult{File: cfg.Trust.LockFile}
	if cur := g.cur.Load(); cur != nil {
		if err := cfg.RestartOnly(cur.Config, RestartHint(g.opts.Environ)); err != nil {
			return res, nil, err
		}
	}
	s, err := g.Build(ctx, cfg)
	if err != nil {
		return res, nil, err
	}
	defer func() {
		s.retire()
		s.close(context.WithoutCancel(ctx))
	}()
	old, _ := trust.ReadLock(res.File) // unreadable or garbage: everything differs
	l, err := trust.LockOf(s.Config, s.Sources(), s.interceptorDigests(), old)
	if err != nil {
		return res, nil, err
	}
	res.Diff = lockfile.Diff(old, l)
	if res.Diff == nil {
		res.Diff = []string{}
	}
	return res, l, nil
}

// LockOf is the lock of what the serving snapshot's sources publish
// (`wasmgate lock` without a running gateway opens one to ask).
func (g *Gateway) LockOf(prev *lockfile.Lock) (*lockfile.Lock, error) {
	s := g.cur.Load()
	if s == nil {
		return nil, errors.New("no configuration is serving")
	}
	return trust.LockOf(s.Config, s.Sources(), s.interceptorDigests(), prev)
}
