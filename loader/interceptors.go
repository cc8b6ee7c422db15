package loader

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"slices"
	"time"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader/fetch"
)

// DefaultInterceptorTimeout is an interceptor's limits.timeout when it
// is not set: it runs on the path of every call it matches.
const DefaultInterceptorTimeout = time.Second

// InterceptorConfigKey is the Extism config key that holds an
// interceptor's config section as JSON (docs/interceptors.md).
const InterceptorConfigKey = "wasmgate.interceptor.config"

// The methods an interceptor may run on (on:).
var InterceptorMethods = []string{"tools/call", "resources/read", "prompts/get", "tools/list", "resources/list", "resources/templates/list", "prompts/list"}

// Interceptors is the interceptors section: the operators' own filters
// of calls and lists, in order (docs/interceptors.md).
type Interceptors []InterceptorSpec

// InterceptorSpec is one interceptor: a WASM module (path, fetched,
// pinned, signed and sandboxed as a plugin is) or an external
// interceptor server (url).
type InterceptorSpec struct {
	Name   string      `koanf:"name"`
	Path   string      `koanf:"path"`
	SHA256 string      `koanf:"sha256"`
	Verify *VerifySpec `koanf:"verify"`
	// URL is an external interceptor server's MCP endpoint (Streamable
	// HTTP), instead of a module.
	URL string `koanf:"url"`
	// On are the methods it sees: tools/call, resources/read,
	// prompts/get, tools/list, resources/list, resources/templates/list,
	// prompts/list (default tools/call).
	On []string `koanf:"on"`
	// Phase is request, response or both (default request).
	Phase string `koanf:"phase"`
	// Match narrows the calls it sees (shell patterns; default all).
	Match InterceptorMatch `koanf:"match"`
	// Failure is what a failing interceptor (a trap, a timeout, garbage,
	// a server that is down) does to the call: closed (the default: the
	// call fails) or open (the call goes on, counted and logged).
	Failure string `koanf:"failure"`
	Limits  Limits `koanf:"limits"`
	// Config is given to the module as JSON (any YAML).
	Config       map[string]any    `koanf:"config"`
	AllowedHosts []string          `koanf:"allowed_hosts"`
	AllowedPaths map[string]string `koanf:"allowed_paths"`

	// Headers are sent to an external interceptor server (url:) with
	// every request; never a credential (auth: is for that).
	Headers map[string]string `koanf:"headers"`
	// Auth is the bearer token sent to an external interceptor server.
	Auth InterceptorAuth `koanf:"auth"`

	// Key is where it is declared ("interceptors[0]").
	Key string `koanf:"-"`
	// File is the gateway.yaml it is declared in (for the messages of
	// its secrets).
	File string `koanf:"-"`
	// configJSON is Config as JSON, for the module's Extism config.
	configJSON string
}

// InterceptorAuth is how the gateway authenticates to an external
// interceptor server: a bearer token read from an environment variable or
// a file, sent as "Authorization: Bearer <token>".
type InterceptorAuth struct {
	BearerEnv  string `koanf:"bearer_env"`
	BearerFile string `koanf:"bearer_file"`
	Key        string `koanf:"-"`
}

// BearerRef is where the bearer token is read from.
func (a InterceptorAuth) BearerRef() config.SecretRef {
	return bearerRef(a.Key, a.BearerEnv, a.BearerFile)
}

// InterceptorMatch selects calls by shell pattern (path.Match); an empty
// list matches everything.
type InterceptorMatch struct {
	Endpoints []string `koanf:"endpoints"`
	Sources   []string `koanf:"sources"`
	// Tools are tool and prompt names and resource URIs.
	Tools []string `koanf:"tools"`
}

// Interceptor phases and failure modes.
const (
	PhaseRequest   = "request"
	PhaseResponse  = "response"
	PhaseBoth      = "both"
	FailureClosed  = "closed"
	FailureOpen    = "open"
	interceptorKey = "interceptors"
)

// ConfigJSON is the config: section as JSON ("{}" without one): what a
// module reads from its Extism config, and what an external server gets
// as each invocation's config.
func (s *InterceptorSpec) ConfigJSON() string { return s.configJSON }

// Remote reports whether it is an external interceptor server.
func (s *InterceptorSpec) Remote() bool { return s.URL != "" }

// Runs reports whether it runs in phase (request or response).
func (s *InterceptorSpec) Runs(phase string) bool { return s.Phase == phase || s.Phase == PhaseBoth }

// Exports are the module exports its phases need.
func (s *InterceptorSpec) Exports() []string {
	var out []string
	if s.Runs(PhaseRequest) {
		out = append(out, "intercept_request")
	}
	if s.Runs(PhaseResponse) {
		out = append(out, "intercept_response")
	}
	return out
}

// Plugin is the interceptor's module as the compiler fetches and builds
// it: its name, path, pin, signature, limits and grants, and its config
// as JSON under InterceptorConfigKey.
func (s *InterceptorSpec) Plugin() PluginSpec {
	return PluginSpec{Name: s.Name, Path: s.Path, SHA256: s.SHA256, Verify: s.Verify, Limits: s.Limits,
		AllowedHosts: s.AllowedHosts, AllowedPaths: s.AllowedPaths, Key: s.Key,
		Config: map[string]string{InterceptorConfigKey: s.configJSON}}
}

// Matches reports whether it sees a call of method on endpoint, served
// by source, of name (a list: source and name empty).
func (s *InterceptorSpec) Matches(method, endpoint, source, name string) bool {
	if !slices.Contains(s.On, method) {
		return false
	}
	match := func(patterns []string, v string) bool {
		if len(patterns) == 0 {
			return true
		}
		for _, p := range patterns {
			if ok, _ := path.Match(p, v); ok {
				return true
			}
		}
		return false
	}
	if !match(s.Match.Endpoints, endpoint) {
		return false
	}
	if source == "" && name == "" { // a list: every source's entries
		return true
	}
	return match(s.Match.Sources, source) && match(s.Match.Tools, name)
}

func (is *Interceptors) Normalize(key string, env *config.Env) {
	names := map[string]string{}
	for i := range *is {
		s := &(*is)[i]
		s.Key = fmt.Sprintf("%s[%d]", key, i)
		if prev, ok := names[s.Name]; ok && s.Name != "" {
			env.Bad(s.Key+".name", "duplicate interceptor name %q (also %s)", s.Name, prev)
		} else {
			names[s.Name] = s.Key
		}
		s.normalize(env)
	}
}

func (s *InterceptorSpec) normalize(env *config.Env) {
	k := s.Key
	switch {
	case s.Name == "":
		env.Bad(k+".name", "missing: every interceptor needs a name (it labels metrics, audit lines and messages)")
	case !config.ValidName(s.Name):
		env.Bad(k+".name", "%q: use letters, digits, '_', '-' or '.' (1-64 characters)", s.Name)
	}
	switch {
	case s.Path != "" && s.URL != "":
		env.Bad(k, "set path (a WASM module) or url (an external interceptor server), not both")
	case s.Path == "" && s.URL == "":
		env.Bad(k, "needs path (a WASM module, e.g. interceptors/redact.wasm) or url (an external interceptor server, http://host:port/mcp)")
	case s.URL != "":
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			env.Bad(k+".url", "%q: want an http:// or https:// URL of the server's MCP endpoint", s.URL)
		}
		for _, f := range []struct {
			key string
			set bool
		}{{"sha256", s.SHA256 != ""}, {"verify", s.Verify != nil}, {"allowed_hosts", len(s.AllowedHosts) > 0},
			{"allowed_paths", len(s.AllowedPaths) > 0}} {
			if f.set {
				env.Bad(k+"."+f.key, "is for a WASM module (path:); an external interceptor server has none")
			}
		}
		checkSentHeaders(env, k+".headers", s.Headers, "auth.bearer_env or auth.bearer_file", "elsewhere")
		s.Auth.Key = k + ".auth"
		normalizeBearer(env, s.Auth.Key, s.Auth.BearerEnv, &s.Auth.BearerFile)
	}
	if s.Path != "" {
		for _, f := range []struct {
			key string
			set bool
		}{{"headers", len(s.Headers) > 0}, {"auth", s.Auth.BearerEnv != "" || s.Auth.BearerFile != ""}} {
			if f.set {
				env.Bad(k+"."+f.key, "is for an external interceptor server (url:); a WASM module makes no requests but its own (allowed_hosts)")
			}
		}
	}
	s.File = env.File
	if len(s.On) == 0 {
		s.On = []string{"tools/call"}
	}
	for j, m := range s.On {
		if !slices.Contains(InterceptorMethods, m) {
			env.Bad(fmt.Sprintf("%s.on[%d]", k, j), "%q: use one of tools/call, resources/read, prompts/get, tools/list, resources/list, resources/templates/list, prompts/list", m)
		}
	}
	switch s.Phase {
	case "":
		s.Phase = PhaseRequest
	case PhaseRequest, PhaseResponse, PhaseBoth:
	default:
		env.Bad(k+".phase", "%q: use request, response or both", s.Phase)
	}
	for _, m := range s.On {
		if (m == "tools/list" || m == "resources/list" || m == "resources/templates/list" || m == "prompts/list") && s.Phase == PhaseRequest {
			env.Bad(k+".phase", "request: a list (%s) is seen in the response phase only (use phase: response, or both for the calls it also sees)", m)
			break
		}
	}
	switch s.Failure {
	case "":
		s.Failure = FailureClosed
	case FailureClosed, FailureOpen:
	default:
		env.Bad(k+".failure", "%q: use closed (the call fails) or open (the call goes on)", s.Failure)
	}
	for _, f := range []struct {
		key      string
		patterns []string
	}{{"endpoints", s.Match.Endpoints}, {"sources", s.Match.Sources}, {"tools", s.Match.Tools}} {
		for j, p := range f.patterns {
			if _, err := path.Match(p, ""); err != nil || p == "" {
				env.Bad(fmt.Sprintf("%s.match.%s[%d]", k, f.key, j), "%q is not a valid pattern (shell patterns: *, ?, [a-z]; see path.Match)", p)
			}
		}
	}
	if s.Limits.Timeout == 0 {
		s.Limits.Timeout = config.Duration(DefaultInterceptorTimeout)
	}
	if s.Config != nil {
		b, err := json.Marshal(s.Config)
		if err != nil {
			env.Bad(k+".config", "cannot be given to the module as JSON: %v", err)
		}
		s.configJSON = string(b)
	} else {
		s.configJSON = "{}"
	}
	if s.Path == "" && !s.Remote() {
		return // reported above
	}
	if s.Remote() {
		s.Limits.fill()
		s.Limits.check(k+".limits", env.Bad)
		return
	}
	p := s.Plugin()
	if fetch.Scheme(p.Path) == "" {
		p.Path = env.Path(p.Path)
	}
	p.normalize(env)
	if p.Limits.Concurrency == 0 {
		p.Limits.Concurrency = 4
	}
	s.Path, s.Limits, s.AllowedPaths, s.AllowedHosts = p.Path, p.Limits, p.AllowedPaths, p.AllowedHosts
}
