package loader

import (
	"strings"

	"github.com/wasmgate/wasmgate/config"
)

// DefaultAdminListen is where /metrics and the health checks listen.
const DefaultAdminListen = "127.0.0.1:9090"

// Admin is the listener for /metrics, /healthz, /readyz and /-/reload.
type Admin struct {
	Enabled *bool  `koanf:"enabled"`
	Listen  string `koanf:"listen"`
	// Auth is an optional bearer token for /metrics and /-/reload, for a
	// listener that is not on loopback.
	Auth HTTPAuth `koanf:"auth"`
	// PProf serves net/http/pprof under /debug/pprof/ (behind Auth when
	// set); off by default. A reload turns it on or off.
	PProf bool `koanf:"pprof"`
}

// On reports whether the admin listener is enabled (the default).
func (a Admin) On() bool { return a.Enabled == nil || *a.Enabled }

// Normalize fills defaults and checks the admin section.
func (a *Admin) Normalize(key string, env *config.Env) {
	if a.Listen == "" {
		a.Listen = DefaultAdminListen
	}
	if err := config.CheckListen(a.Listen); err != nil {
		env.Bad(key+".listen", "%q: %v", a.Listen, err)
	}
	a.Auth.normalize(key+".auth", env)
}

// RestartOnly names the admin keys a reload cannot change.
func (a *Admin) RestartOnly(key string, prev any, diff config.Diff) {
	p := prev.(*Admin)
	diff(key+".enabled", p.On(), a.On())
	diff(key+".listen", p.Listen, a.Listen)
}

// AdminPath reports whether the admin listener serves p (its own paths,
// and everything under /-/ and /debug/pprof/): an endpoint may not take
// one, so that a path means one thing on either listener.
func AdminPath(p string) bool {
	switch p {
	case "/metrics", "/healthz", "/readyz", "/api/status", "/-", "/debug/pprof":
		return true
	}
	return strings.HasPrefix(p, "/-/") || strings.HasPrefix(p, "/debug/pprof/")
}
