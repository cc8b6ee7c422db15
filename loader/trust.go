package loader

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/wasmgate/wasmgate/config"
	"github.com/wasmgate/wasmgate/loader/lockfile"
)

// What trust.on_change does when a source publishes something the lock
// file (server.lock_file) does not hold (docs/trust.md).
const (
	// OnChangeRefuse withholds the whole source.
	OnChangeRefuse = "refuse"
	// OnChangeWithhold withholds each changed or new tool, prompt or
	// resource; the rest of the source serves (the default).
	OnChangeWithhold = "withhold"
	// OnChangeWarn serves it and logs the difference.
	OnChangeWarn = "warn"
)

// DefaultLockFile is server.lock_file's default, beside gateway.yaml.
const DefaultLockFile = "gateway.lock"

// Trust is the trust section: what to do when a source differs from the
// lock file. It applies only while the lock file exists.
type Trust struct {
	OnChange string `koanf:"on_change"`

	// Lock is the lock file as read, nil when there is none (nothing
	// is enforced then). LockFile is its path (server.lock_file).
	Lock     *lockfile.Lock `koanf:"-"`
	LockFile string         `koanf:"-"`
}

// Normalize fills defaults and checks the trust section.
func (t *Trust) Normalize(key string, env *config.Env) {
	switch t.OnChange {
	case "":
		t.OnChange = OnChangeWithhold
	case OnChangeRefuse, OnChangeWithhold, OnChangeWarn:
	default:
		env.Bad(key+".on_change", "%q: want refuse, withhold or warn", t.OnChange)
	}
}

// readLock reads server.lock_file into c.Trust.Lock: a missing file is
// no lock; one that cannot be read or parsed is an error naming it.
func (c *Config) readLock() error {
	path := c.Server.LockFile
	c.Trust.LockFile = path
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &config.Error{File: c.File, Key: "server.lock_file", Msg: fmt.Sprintf("cannot read the lock file %s: %v", path, unwrapPathError(err))}
	}
	l, err := lockfile.Parse(data)
	if err != nil {
		return &config.Error{File: c.File, Key: "server.lock_file", Msg: fmt.Sprintf("lock file %s: %v", path, err)}
	}
	c.Trust.Lock = l
	return nil
}
