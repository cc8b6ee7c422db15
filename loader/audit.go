package loader

import (
	"fmt"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/internal/redact"
)

// Audit is the audit section: one structured line per call, to the log
// (the default) or to a file of its own.
type Audit struct {
	// File receives the audit lines as JSON, one per line, instead of the
	// log. It is opened for appending and reopened on every reload
	// (SIGHUP), so log rotation moves it and reloads.
	File string `koanf:"file"`
	// Arguments adds each tool call's arguments, with values under keys
	// that look secret redacted.
	Arguments bool `koanf:"arguments"`
	// Redact lists the argument names whose values the audit lines leave
	// out, matched as whole names and words (internal/redact); empty
	// means redact.DefaultNames().
	Redact []string `koanf:"redact"`
}

// Normalize resolves the audit file and checks the redacted names.
func (a *Audit) Normalize(key string, env *config.Env) {
	if a.File != "" {
		a.File = env.Path(a.File)
	}
	for i, n := range a.Redact {
		if err := redact.Check(n); err != nil {
			env.Bad(fmt.Sprintf("%s.redact[%d]", key, i), "%v: list argument names such as api_key", err)
		}
	}
}
