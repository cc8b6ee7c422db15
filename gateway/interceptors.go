package gateway

import (
	"context"
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

// remoteInterceptor connects to an external interceptor server (an
// interceptor with url:), bounded by its limits.timeout per call.
func (g *Gateway) remoteInterceptor(ctx context.Context, spec loader.InterceptorSpec) (intercept.RemoteInterceptor, error) {
	return remote.New(ctx, remote.Options{Name: spec.Name, URL: spec.URL, Timeout: time.Duration(spec.Limits.Timeout), Logger: g.log})
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
