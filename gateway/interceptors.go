package gateway

import (
	"context"

	"github.com/wasmgate/wasmgate/gateway/intercept"
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

// remoteInterceptor connects to an external interceptor server.
func (g *Gateway) remoteInterceptor(ctx context.Context, spec loader.InterceptorSpec) (intercept.RemoteInterceptor, error) {
	return nil, errRemoteInterceptors
}

var errRemoteInterceptors = errorString("external interceptor servers (url:) are not in this build yet")

type errorString string

func (e errorString) Error() string { return string(e) }
