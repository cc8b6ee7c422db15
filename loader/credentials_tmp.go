package loader

// Credentials is a stand-in for the vault helper's loader/credentials.go
// (dropped at merge).
type Credentials struct {
	KeyEnv  string `koanf:"key_env"`
	KeyFile string `koanf:"key_file"`
}

// Set reports whether a key is configured.
func (c Credentials) Set() bool { return c.KeyEnv != "" || c.KeyFile != "" }
