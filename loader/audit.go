package loader

import "github.com/wasmgate/wasmgate/config"

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
}

// Normalize resolves the audit file.
func (a *Audit) Normalize(key string, env *config.Env) {
	if a.File != "" {
		a.File = env.Path(a.File)
	}
}
