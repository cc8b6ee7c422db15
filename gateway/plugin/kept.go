package plugin

import (
	"cmp"
	"container/list"
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/wasmgate/wasmgate/loader"
	"github.com/wasmgate/wasmgate/loader/abi"
)

// KeptLimits bound the compiled modules a Kept holds; a zero field takes
// its default, Modules < 0 keeps none.
type KeptLimits struct {
	Modules int           // at most this many (default 16)
	Bytes   int64         // whose modules total at most this many bytes (default 256 MiB)
	TTL     time.Duration // each for at most this long (default 5 minutes)
}

// Kept holds, for a while, the compiled modules of plugins that no
// snapshot serves any more (a reload removed them, or rebuilt them with
// other settings), so that a reload restoring one takes it back instead of
// compiling it again. It keeps *loader.Plugin values, the compiled code
// with its host functions and HTTP client, never instances: a restored
// plugin starts a new pool.
//
// The least recently kept module goes first when the count or the bytes
// (the size of the .wasm modules; their compiled code is a few times
// larger) would exceed the limits; each module expires after the TTL.
// The Host owns its Kept; Close releases everything, and a module kept
// after Close is released at once.
type Kept struct {
	lim KeptLimits
	log *slog.Logger

	mu     sync.Mutex
	closed bool
	bytes  int64
	lru    list.List // of *keptModule, most recently kept at the front
	byKey  map[string]*list.Element
	hits   int64
}

type keptModule struct {
	key    string
	plugin *loader.Plugin
	info   *abi.Descriptor
	bytes  int64
	timer  *time.Timer
}

// NewKept returns an empty Kept with lim (zero fields take the defaults).
func NewKept(lim KeptLimits, log *slog.Logger) *Kept {
	lim.Modules = cmp.Or(lim.Modules, 16)
	lim.Bytes = cmp.Or(lim.Bytes, 256<<20)
	lim.TTL = cmp.Or(lim.TTL, 5*time.Minute)
	return &Kept{lim: lim, log: cmp.Or(log, slog.Default()), byKey: map[string]*list.Element{}}
}

// keepKey identifies a kept module: the plugin's name (its key-value
// store and log lines are bound into the compiled module) and its reuse
// key.
func keepKey(name, reuse string) string { return name + "\x00" + reuse }

// put keeps p, whose instances are all closed, with what it last said it
// provides; it releases p instead when k is nil or closed, or p alone
// exceeds the limits, and releases the modules put least recently while
// the limits are exceeded.
func (k *Kept) put(ctx context.Context, key string, p *loader.Plugin, info *abi.Descriptor) {
	if k == nil {
		release(ctx, nil, p)
		return
	}
	size := int64(p.Size)
	k.mu.Lock()
	if k.closed || size > k.lim.Bytes || k.lim.Modules < 0 {
		k.mu.Unlock()
		release(ctx, k.log, p)
		return
	}
	var out []*keptModule
	if e := k.byKey[key]; e != nil {
		out = append(out, k.remove(e))
	}
	m := &keptModule{key: key, plugin: p, info: info, bytes: size}
	k.byKey[key] = k.lru.PushFront(m)
	k.bytes += size
	m.timer = time.AfterFunc(k.lim.TTL, func() { k.expire(m) })
	for k.lru.Len() > k.lim.Modules || k.bytes > k.lim.Bytes {
		out = append(out, k.remove(k.lru.Back()))
	}
	k.mu.Unlock()
	for _, o := range out {
		k.log.Debug("compiled module released from memory", "plugin", o.plugin.Spec.Name, "reason", "limits")
		release(ctx, k.log, o.plugin)
	}
}

// take returns the module kept under key, which k no longer holds, or
// false.
func (k *Kept) take(key string) (*loader.Plugin, *abi.Descriptor, bool) {
	if k == nil {
		return nil, nil, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	e := k.byKey[key]
	if e == nil {
		return nil, nil, false
	}
	m := k.remove(e)
	k.hits++
	return m.plugin, m.info, true
}

// remove unlinks e; call with mu.
func (k *Kept) remove(e *list.Element) *keptModule {
	m := k.lru.Remove(e).(*keptModule)
	delete(k.byKey, m.key)
	k.bytes -= m.bytes
	m.timer.Stop()
	return m
}

func (k *Kept) expire(m *keptModule) {
	k.mu.Lock()
	e := k.byKey[m.key]
	if e == nil || e.Value != m {
		k.mu.Unlock()
		return
	}
	k.remove(e)
	k.mu.Unlock()
	k.log.Debug("compiled module released from memory", "plugin", m.plugin.Spec.Name, "reason", "expired")
	release(context.Background(), k.log, m.plugin)
}

// Stats are how many modules k holds, their bytes, and how many reloads
// took one back.
func (k *Kept) Stats() (modules int, bytes int64, hits int64) {
	if k == nil {
		return 0, 0, 0
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.lru.Len(), k.bytes, k.hits
}

// Close releases every kept module; later ones are released as they come.
// A nil Kept (keeping nothing) has nothing to close.
func (k *Kept) Close(ctx context.Context) {
	if k == nil {
		return
	}
	k.mu.Lock()
	k.closed = true
	var out []*keptModule
	for k.lru.Len() > 0 {
		out = append(out, k.remove(k.lru.Front()))
	}
	k.mu.Unlock()
	for _, m := range out {
		release(ctx, k.log, m.plugin)
	}
}

func release(ctx context.Context, log *slog.Logger, p *loader.Plugin) {
	if err := p.Close(context.WithoutCancel(ctx)); err != nil && log != nil {
		log.Warn("release compiled module", "plugin", p.Spec.Name, "err", err)
	}
}
