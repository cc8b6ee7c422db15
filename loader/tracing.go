package loader

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/wasmgate/wasmgate/config"
)

// Tracing is the tracing section: OpenTelemetry traces of every MCP call,
// exported over OTLP. No endpoint: tracing is off and costs nothing on the
// call path.
type Tracing struct {
	// Endpoint is the collector: http:// or https:// for OTLP over HTTP
	// (the path defaults to /v1/traces), grpc:// (plaintext) or grpcs://
	// for OTLP over gRPC.
	Endpoint string `koanf:"endpoint"`
	// HeadersEnv maps a header sent with every export to the environment
	// variable holding its value (a collector's token), read at load and
	// never logged.
	HeadersEnv map[string]string `koanf:"headers_env"`
	// SampleRatio is the share of new traces recorded (0 to 1; default
	// 1). Parent-based: a call whose caller sent a sampled traceparent is
	// recorded whatever the ratio, one whose caller sent an unsampled one
	// is not.
	SampleRatio *float64 `koanf:"sample_ratio"`
	// ServiceName is the service.name resource attribute (default
	// "wasmgate").
	ServiceName string `koanf:"service_name"`
}

// On reports whether tracing is configured.
func (t Tracing) On() bool { return t.Endpoint != "" }

// Ratio is the sample ratio, default 1.
func (t Tracing) Ratio() float64 {
	if t.SampleRatio == nil {
		return 1
	}
	return *t.SampleRatio
}

// Headers are the HeadersEnv references, in a stable order, each as a
// config.SecretRef at key.headers_env.<header>.
func (t Tracing) Headers(key string) (names []string, refs []config.SecretRef) {
	for h := range t.HeadersEnv {
		names = append(names, h)
	}
	sort.Strings(names)
	for _, h := range names {
		refs = append(refs, config.SecretRef{Key: key + ".headers_env", EnvKey: h, Env: t.HeadersEnv[h]})
	}
	return names, refs
}

// Normalize checks the endpoint, the ratio and the header names.
func (t *Tracing) Normalize(key string, env *config.Env) {
	if t.ServiceName == "" {
		t.ServiceName = "wasmgate"
	}
	if r := t.SampleRatio; r != nil && (*r < 0 || *r > 1) {
		env.Bad(key+".sample_ratio", "%v: give a share of traces from 0 to 1", *r)
	}
	if t.Endpoint == "" {
		if len(t.HeadersEnv) > 0 || t.SampleRatio != nil {
			env.Bad(key+".endpoint", "is empty: tracing needs a collector (http://127.0.0.1:4318 for OTLP over HTTP, grpc://127.0.0.1:4317 for gRPC)")
		}
		return
	}
	u, err := url.Parse(t.Endpoint)
	switch {
	case err != nil:
		env.Bad(key+".endpoint", "%q: %v", t.Endpoint, err)
	case u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "grpc" && u.Scheme != "grpcs":
		env.Bad(key+".endpoint", "%q: the scheme must be http or https (OTLP over HTTP) or grpc or grpcs (OTLP over gRPC)", t.Endpoint)
	case u.Host == "":
		env.Bad(key+".endpoint", "%q: no host", t.Endpoint)
	case u.User != nil:
		env.Bad(key+".endpoint", "%q: credentials in the URL would be logged; send them in a header (headers_env)", u.Redacted())
	case (u.Scheme == "grpc" || u.Scheme == "grpcs") && strings.Trim(u.Path, "/") != "":
		env.Bad(key+".endpoint", "%q: an OTLP gRPC endpoint has no path", t.Endpoint)
	}
	for h, v := range t.HeadersEnv {
		if h == "" || strings.ContainsAny(h, " :\r\n\t") {
			env.Bad(fmt.Sprintf("%s.headers_env.%s", key, h), "%q is not an HTTP header name", h)
		}
		if v == "" {
			env.Bad(fmt.Sprintf("%s.headers_env.%s", key, h), "names no environment variable")
		}
	}
}
