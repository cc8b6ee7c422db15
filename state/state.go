// Package state is the state wasmgate replicas share when state.backend
// is redis: one go-redis UniversalClient per gateway (kept across reloads
// while the state section and the password stay the same), the plugins'
// key-value stores (kv.go), the global rate limits (ratelimit.go) and the
// list of replicas with their config hashes (replicas.go).
//
// Every Redis command is bounded by short timeouts (1s to dial, read and
// write, no retries unless the URL asks for them), so a Redis that is down
// or slow makes the calls that need it fail fast; a monitor pings it every
// second and reports up or down (wasmgate_state_up, the status page).
package state

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/refcount"
	"github.com/wasmgate/wasmgate/state/stateconfig"
)

// Key is the config key of the section, for messages.
const Key = "state.redis"

// Timeouts of every Redis command unless the URL sets its own.
const (
	DefaultTimeout = time.Second
	// checkEvery is how often the monitor pings Redis and, with a
	// replica set, writes its heartbeat.
	checkEvery = time.Second
)

// Options are what Open needs besides the section.
type Options struct {
	Logger *slog.Logger
	// File is the config file, for errors.
	File string
	// Health is told every change of Redis's health (the metric).
	Health func(up bool)
}

// Store is an open connection to Redis with what wasmgate keeps there.
// It is reference counted: Open returns it held once, Retain holds it
// again (a snapshot reusing it), Release lets go and the last release
// closes it.
type Store struct {
	cfg      stateconfig.Config
	password string // compared on reload, never printed
	client   redis.UniversalClient
	rate     *redis_rate.Limiter
	leases   leases // the rate-limit buckets this replica holds tokens of
	prefix   string
	where    string // the URL without its password
	log      *slog.Logger
	health   func(bool)

	up      atomic.Bool
	upSince atomic.Int64 // unix ns of the last change to up (the relay mesh)
	lastErr atomic.Pointer[string]

	refs   refcount.Count
	ctx    context.Context // ends at the last Release
	closed chan struct{}   // closed by the last Release
	cancel context.CancelFunc
	wg     sync.WaitGroup

	updMu      sync.Mutex
	onUpdate   func(uri string) // OnUpdate's
	updStarted bool
	pending    chan string // updates waiting to be published (PublishUpdate)

	replicaMu sync.Mutex
	replica   *Replica // this replica, once SetReplica is called
	fill      func(*Replica)
	replicas  []Replica // as last read
}

// Open connects to the Redis cfg names with password (empty: the URL's,
// if any). A URL go-redis cannot read, or a Redis that refuses the
// password, is a *config.Error naming the key; a Redis that does not
// answer is not an error: the store starts down, the calls that need it
// fail fast, and it comes up by itself when Redis answers.
func Open(ctx context.Context, cfg stateconfig.Config, password string, opts Options) (*Store, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	client, err := newClient(cfg.Redis.URL, password)
	if err != nil {
		return nil, &config.Error{File: opts.File, Key: Key + ".url", Msg: fmt.Sprintf("%s: %v", stateconfig.Redacted(cfg.Redis.URL), err)}
	}
	s := &Store{
		cfg: cfg, password: password, client: client,
		rate:    redis_rate.NewLimiter(client),
		pending: make(chan string, maxPendingUpdates),
		prefix:  cfg.Redis.KeyPrefix,
		where:   stateconfig.Redacted(cfg.Redis.URL),
		log:     log.With("state", "redis", "url", stateconfig.Redacted(cfg.Redis.URL)),
		health:  opts.Health,
	}
	if s.health == nil {
		s.health = func(bool) {}
	}
	pctx, cancel := context.WithTimeout(ctx, 2*DefaultTimeout)
	err = client.Ping(pctx).Err()
	cancel()
	if err != nil && isAuth(err) {
		_ = client.Close()
		key := Key + ".url"
		switch {
		case cfg.Redis.PasswordEnv != "":
			key = Key + ".password_env"
		case cfg.Redis.PasswordFile != "":
			key = Key + ".password_file"
		}
		return nil, &config.Error{File: opts.File, Key: key, Msg: fmt.Sprintf("Redis at %s refused the credentials: %s", s.where, authReason(err))}
	}
	s.setHealth(err)
	s.upSince.Store(0) // up from the start: nothing to settle
	if err != nil {
		s.log.Warn("Redis does not answer; calls that need the shared state fail until it does", "err", err)
	} else {
		s.log.Info("connected to Redis for the shared state", "mode", cfg.Redis.Mode())
	}
	s.refs.Init()
	s.closed = make(chan struct{})
	mctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.ctx, s.cancel = mctx, stop
	s.wg.Add(1)
	go s.monitor(mctx)
	return s, nil
}

// newClient is the client for rawURL: Sentinel with a master_name query
// parameter, Cluster with addr= parameters, one server otherwise.
func newClient(rawURL, password string) (redis.UniversalClient, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New("not a URL")
	}
	q := u.Query()
	retries := q.Has("max_retries")
	set := func(dial, read, write, pool *time.Duration, maxRetries *int) {
		for _, d := range []*time.Duration{dial, read, write, pool} {
			if *d == 0 {
				*d = DefaultTimeout
			}
		}
		if !retries {
			*maxRetries = -1 // fail fast: no retry of a command on another connection
		}
	}
	switch {
	case q.Get("master_name") != "":
		o, err := redis.ParseFailoverURL(rawURL)
		if err != nil {
			return nil, err
		}
		if password != "" {
			o.Password = password
		}
		set(&o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.PoolTimeout, &o.MaxRetries)
		return redis.NewFailoverClient(o), nil
	case len(q["addr"]) > 0:
		o, err := redis.ParseClusterURL(rawURL)
		if err != nil {
			return nil, err
		}
		if password != "" {
			o.Password = password
		}
		set(&o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.PoolTimeout, &o.MaxRetries)
		return redis.NewClusterClient(o), nil
	}
	o, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if password != "" {
		o.Password = password
	}
	set(&o.DialTimeout, &o.ReadTimeout, &o.WriteTimeout, &o.PoolTimeout, &o.MaxRetries)
	return redis.NewClient(o), nil
}

func isAuth(err error) bool {
	m := err.Error()
	return strings.Contains(m, "WRONGPASS") || strings.Contains(m, "NOAUTH") ||
		strings.Contains(m, "invalid password") || strings.Contains(m, "invalid username-password") ||
		strings.Contains(m, "AUTH <password> called without any password")
}

// authReason is Redis's answer without the command that carried the
// password (go-redis never puts it in errors; this is belt and braces).
func authReason(err error) string {
	m := err.Error()
	switch {
	case strings.Contains(m, "NOAUTH"):
		return "Redis requires a password and none was given (NOAUTH): set state.redis.password_env or password_file"
	case strings.Contains(m, "without any password"):
		return "a password was given but Redis has none configured"
	}
	return "the password (or user) is wrong (WRONGPASS)"
}

// Same reports whether s serves cfg with password: a reload keeps it.
func (s *Store) Same(cfg stateconfig.Config, password string) bool {
	return s.cfg == cfg && s.password == password
}

// Retain holds s once more: nil when its last holder has released it
// (it is closing).
func (s *Store) Retain() *Store {
	if !s.refs.Retain() {
		return nil
	}
	return s
}

// Release lets go of s; the last release closes it: the monitor stops,
// this replica leaves the list and the connections close.
func (s *Store) Release() {
	if !s.refs.Release() {
		return
	}
	close(s.closed)
	s.cancel()
	s.wg.Wait()
	s.replicaMu.Lock()
	r := s.replica
	s.replicaMu.Unlock()
	if r != nil {
		ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
		_ = s.client.HDel(ctx, s.replicasKey(), r.ID).Err()
		cancel()
	}
	_ = s.client.Close()
}

// Up reports whether Redis answered the last ping.
func (s *Store) Up() bool { return s.up.Load() }

// Where is the Redis URL without its password.
func (s *Store) Where() string { return s.where }

// FailOpen reports whether rate limits let calls through while Redis is
// unavailable (state.on_unavailable).
func (s *Store) FailOpen() bool { return s.cfg.FailOpen() }

func (s *Store) setHealth(err error) {
	if err != nil {
		m := err.Error()
		s.lastErr.Store(&m)
	}
	if err == nil && !s.up.Load() {
		s.upSince.Store(time.Now().UnixNano())
	}
	s.up.Store(err == nil)
	s.health(err == nil)
}

// monitor pings Redis every second, and writes this replica's heartbeat.
func (s *Store) monitor(ctx context.Context) {
	defer s.wg.Done()
	t := time.NewTicker(checkEvery)
	defer t.Stop()
	for {
		s.heartbeat(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
		err := s.client.Ping(pctx).Err()
		cancel()
		if ctx.Err() != nil {
			return
		}
		was := s.up.Load()
		s.setHealth(err)
		switch {
		case was && err != nil:
			s.log.Warn("Redis went down; calls that need the shared state fail until it is back", "err", err)
		case !was && err == nil:
			s.log.Info("Redis is up again")
		}
	}
}

// unavailable is the error of a command that failed: it names
// state.redis and the server, and says why in Redis's or the network's
// words.
func (s *Store) unavailable(what string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return fmt.Errorf("%s: Redis at %s did not answer within %s: %s unavailable", Key, s.where, DefaultTimeout, what)
	}
	return fmt.Errorf("%s: Redis at %s is unavailable (%v): %s unavailable", Key, s.where, err, what)
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// key is prefix + parts joined by ":".
func (s *Store) key(parts ...string) string { return s.prefix + strings.Join(parts, ":") }

// RedisLog is go-redis's logger (redis.SetLogger, process-wide: set once
// by the command) writing to L at debug level: what it says (a dial that
// failed again) the monitor already says once, at the change.
type RedisLog struct{ L *slog.Logger }

// Printf logs one go-redis message.
func (r RedisLog) Printf(ctx context.Context, format string, v ...any) {
	r.L.DebugContext(ctx, fmt.Sprintf(format, v...), "component", "go-redis")
}
