package gateway

import (
	"context"
	"encoding/json"
	"maps"
	"sync"
	"time"

	"github.com/wasmgate/wasmgate/gateway/intercept"
	"github.com/wasmgate/wasmgate/gateway/intercept/remote"
	"github.com/wasmgate/wasmgate/loader"
)

// Interceptors are the snapshot's interceptors in config order; nil
// without any.
func (s *Snapshot) Interceptors() *intercept.Chain {
	if s == nil || s.parts == nil || s.parts.icpts == nil {
		return nil
	}
	return s.parts.icpts.Chain()
}

// remoteInterceptor is the client of an external interceptor server (an
// interceptor with url:), bounded by its limits.timeout per call. It
// connects at its first call, and again after a failure: a server that
// is down fails calls (or lets them go on, per failure:), not the
// config.
func (g *Gateway) remoteInterceptor(_ context.Context, spec loader.InterceptorSpec) (intercept.RemoteInterceptor, error) {
	o := remote.Options{Name: spec.Name, URL: spec.URL, Timeout: time.Duration(spec.Limits.Timeout), Logger: g.log,
		Headers: maps.Clone(spec.Headers)}
	bearer, err := spec.Auth.BearerRef().Read(spec.File, nil)
	if err != nil {
		return nil, err
	}
	if bearer.IsSet() {
		if o.Headers == nil {
			o.Headers = map[string]string{}
		}
		o.Headers["Authorization"] = "Bearer " + bearer.Value()
	}
	if c := spec.ConfigJSON(); c != "{}" && c != "" {
		o.Config = json.RawMessage(c)
	}
	return &lazyRemote{o: o}, nil
}

// lazyRemote connects to its server when a call needs it.
type lazyRemote struct {
	o  remote.Options
	mu sync.Mutex
	c  *remote.Client
}

func (l *lazyRemote) client(ctx context.Context) (*remote.Client, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c != nil {
		return l.c, nil
	}
	if l.o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.o.Timeout)
		defer cancel()
	}
	c, err := remote.New(ctx, l.o)
	if err != nil {
		return nil, err
	}
	l.c = c
	return c, nil
}

func (l *lazyRemote) Intercept(ctx context.Context, in *intercept.Input) (*intercept.Output, error) {
	c, err := l.client(ctx)
	if err != nil {
		return nil, err
	}
	return c.Intercept(ctx, in)
}

func (l *lazyRemote) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c == nil {
		return nil
	}
	return l.c.Close()
}

// interceptorsStatus is the status page's interceptors section: each
// interceptor with what it decided since it was built.
func (g *Gateway) interceptorsStatus() any {
	st := g.cur.Load().Interceptors().Status()
	if len(st) == 0 {
		return nil
	}
	return st
}

// interceptorDigests are the digests of s's interceptor modules, by
// name, for the lock file.
func (s *Snapshot) interceptorDigests() map[string]string {
	if s == nil || s.parts == nil || s.parts.icpts == nil {
		return nil
	}
	return s.parts.icpts.Digests()
}
