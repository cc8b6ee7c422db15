// Package childproc starts the local processes the gateway supervises
// (upstream MCP servers over stdio).
//
// Every process is started through a small supervision shim: the
// gateway's own binary re-executed with a marker argument (Main serves
// it). The shim
//
//   - runs in its own process group and is a child subreaper, so the
//     command and everything it starts (npx -> node -> ...) stay its
//     descendants;
//   - learns of the gateway's death, even by SIGKILL (a parent-death
//     signal checked against its parent pid), and then kills all of them;
//   - starts the command with exactly the environment of the Spec, its
//     working directory, and the shim's own stdin, stdout and stderr (the
//     MCP stdio stream passes through, the shim copies nothing);
//   - forwards SIGTERM and SIGINT to the command, kills whatever the
//     command left behind when it exits, and exits with its status.
//
// Both the shim and the stage below first mark every descriptor above
// 2 close-on-exec (the command gets stdin, stdout and stderr, never a
// descriptor the gateway inherited), and the shim makes itself
// non-dumpable (its environment held the command's).
//
// The command is executed by a second re-exec of the binary (the stage)
// that restricts itself first. With a Sandbox, under Landlock (strict:
// all that the sandbox needs, or an error), with no_new_privs and a
// seccomp filter for what Landlock does not govern: changes of file
// metadata (chmod, chown, utimes, extended attributes), io_uring, and,
// when TCP is restricted, Multipath TCP sockets and listen(). Without a
// Sandbox, from Landlock ABI 6, under a Landlock domain that restricts
// nothing but signals (with no_new_privs): the command can then neither
// signal nor ptrace (nor open /proc/<pid>/mem of) any process outside
// its own tree: the shim, the gateway, other upstreams. Either way the
// command has no CAP_SYS_PTRACE.
// docs/upstreams.md (Sandbox for local servers) is the user's view.
//
// On other systems than Linux, Command starts the command itself (no
// shim) and every Sandbox is unsupported.
package childproc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Sandbox is what a sandboxed process may reach. A nil *Sandbox is no
// sandbox.
//
// Everything not listed is denied: the command's own executable, its
// dynamic loader and libraries (for most commands /usr), the
// interpreter's install folder (node's, python's) and the scripts it
// runs must be in Read.
type Sandbox struct {
	Read  []string // absolute paths, readable (and executable) beneath
	Write []string // absolute paths, readable and writable beneath
	// Network: true lets it connect anywhere; false with no Ports
	// refuses every TCP connect; Ports are the TCP ports it may
	// connect to. Unless Network is true, no TCP port may be bound.
	Network bool
	Ports   []uint16
}

// Spec is one process to start.
type Spec struct {
	Argv    []string // Argv[0] is looked up in the PATH of Env
	Env     []string // the whole environment, KEY=value
	Dir     string   // working directory; "" is the gateway's
	Sandbox *Sandbox
}

// ErrUnsupported is returned (wrapped) when a sandbox is asked for on a
// kernel without Landlock (or without the Landlock ABI the sandbox needs).
var ErrUnsupported = errors.New("landlock sandbox not supported by this kernel")

// restrictsNetwork reports whether s limits TCP.
func (s *Sandbox) restrictsNetwork() bool { return s != nil && !s.Network }

// Check reports what is wrong with s: a path that is not absolute or
// does not exist (named, with the list it is in), or a kernel that
// cannot enforce it (an error wrapping ErrUnsupported that says what is
// missing). A nil *Sandbox is fine. The loader calls it at load time;
// Command calls it again.
func (s *Sandbox) Check() error {
	if s == nil {
		return nil
	}
	var errs []error
	for _, l := range []struct {
		key   string
		paths []string
	}{{"read", s.Read}, {"write", s.Write}} {
		for i, p := range l.paths {
			if err := checkPath(p); err != nil {
				errs = append(errs, fmt.Errorf("sandbox.%s[%d]: %w", l.key, i, err))
			}
		}
	}
	if s.Network && len(s.Ports) > 0 {
		errs = append(errs, errors.New("sandbox: network is true (unrestricted) and also lists ports"))
	}
	for i, p := range s.Ports {
		if p == 0 {
			errs = append(errs, fmt.Errorf("sandbox.network[%d]: port 0 is not a port", i))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return s.supportedHere()
}

func checkPath(p string) error {
	if p == "" {
		return errors.New("empty path")
	}
	if !filepath.IsAbs(p) {
		return fmt.Errorf("%q is not an absolute path", p)
	}
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%q does not exist", p)
		}
		return fmt.Errorf("%q: %w", p, err)
	}
	return nil
}

// Supported reports whether a Sandbox can be enforced here: nil, or an
// error wrapping ErrUnsupported that says what is missing. It checks for
// Landlock itself; a sandbox that restricts the network needs more
// (Sandbox.Check says).
func Supported() error {
	return (&Sandbox{Network: true}).supportedHere()
}

// ABI is the Landlock ABI version of the running kernel, 0 without
// Landlock (or on a system other than Linux).
func ABI() int { return kernelABI() }

// supportedHere is supported for the running kernel, with the reason
// Landlock is missing when it is.
func (s *Sandbox) supportedHere() error {
	abi := kernelABI()
	if abi < 1 {
		if why := landlockMissing(); why != "" {
			return fmt.Errorf("%w: Landlock is not available: %s", ErrUnsupported, why)
		}
	}
	return s.supported(abi)
}

// minNetABI is the Landlock ABI with TCP bind and connect rules (Linux 6.7).
const minNetABI = 4

// supported is the decision of Supported and Check for a kernel whose
// Landlock ABI is abi.
func (s *Sandbox) supported(abi int) error {
	if abi < 1 {
		return fmt.Errorf("%w: Landlock is not available (it needs Linux 5.13 or later with Landlock enabled: CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= boot parameter or CONFIG_LSM)", ErrUnsupported)
	}
	if s.restrictsNetwork() && abi < minNetABI {
		return fmt.Errorf("%w: the sandbox restricts TCP (network is false or a list of ports), which needs Landlock ABI %d (Linux 6.7 or later); this kernel has ABI %d (set network: true to run it without a TCP restriction)", ErrUnsupported, minNetABI, abi)
	}
	if !seccompSupported {
		return fmt.Errorf("%w: the sandbox needs a seccomp filter (against changes of file metadata, io_uring, Multipath TCP and listen) that is not built for %s", ErrUnsupported, runtime.GOARCH)
	}
	return nil
}

// Command is the process of spec, not started: the supervision shim
// (see the package comment) in its own process group, told to kill the
// command and all its descendants when the gateway dies. Its Stdin,
// Stdout and Stderr are the caller's to set (pipes or files): they are
// the command's own. ctx ending (cmd.Cancel) SIGKILLs every descendant
// of the shim that left its process group, then the process group (the
// shim, the command and the rest of what it started). To stop it
// gracefully, send the shim SIGTERM (forwarded to the command; when the
// command exits, the shim kills what it left and exits the same way).
// os.Process.Kill kills only the shim (the command dies with it, by a
// parent-death signal, but not what the command started): prefer the
// context.
//
// Errors: no command, a command not found in the PATH of spec.Env, a
// working directory that does not exist, a sandbox that Check refuses.
func Command(ctx context.Context, spec Spec) (*exec.Cmd, error) {
	if len(spec.Argv) == 0 || spec.Argv[0] == "" {
		return nil, errors.New("no command")
	}
	if spec.Dir != "" {
		st, err := os.Stat(spec.Dir)
		if err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("working directory %q is not a directory", spec.Dir)
		}
	}
	path, err := lookPath(spec.Argv[0], envValue(spec.Env, "PATH"), spec.Dir)
	if err != nil {
		return nil, err
	}
	if err := spec.Sandbox.Check(); err != nil {
		return nil, err
	}
	return command(ctx, shimSpec{
		Path:    path,
		Argv:    spec.Argv,
		Env:     spec.Env,
		Dir:     spec.Dir,
		Sandbox: spec.Sandbox,
		Parent:  os.Getpid(),
	})
}

// shimSpec is what the gateway tells the shim (JSON in the environment
// variable specVar, which the shim removes before anything else).
type shimSpec struct {
	Path    string   `json:"path"` // Argv[0] looked up
	Argv    []string `json:"argv"`
	Env     []string `json:"env"`
	Dir     string   `json:"dir,omitempty"`
	Sandbox *Sandbox `json:"sandbox,omitempty"`
	Parent  int      `json:"parent"` // the gateway's pid
}

const (
	shimMarker = "__wasmgate-childproc-shim"
	execMarker = "__wasmgate-childproc-sandbox"
	specVar    = "WASMGATE_CHILDPROC_SPEC"
	// maxSpec stays under the kernel's limit of one environment string
	// (MAX_ARG_STRLEN, 128 KiB).
	maxSpec = 120 << 10
)

func encodeSpec(s shimSpec) (string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	if len(b) > maxSpec {
		return "", fmt.Errorf("command, environment and sandbox take %d bytes, more than the %d a process start can carry", len(b), maxSpec)
	}
	return specVar + "=" + string(b), nil
}

// readSpec takes the spec out of the environment (and removes it).
func readSpec() (shimSpec, error) {
	var s shimSpec
	v, ok := os.LookupEnv(specVar)
	os.Unsetenv(specVar)
	if !ok {
		return s, fmt.Errorf("%s is not set", specVar)
	}
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return s, fmt.Errorf("%s: %w", specVar, err)
	}
	if s.Path == "" || len(s.Argv) == 0 {
		return s, fmt.Errorf("%s: no command", specVar)
	}
	return s, nil
}

// envValue is the value of key in env (the last one wins, as for exec).
func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// lookPath finds file as a shell would with PATH=pathEnv: a name with a
// slash is used as it is (relative to dir); else the first executable
// regular file of that name in an absolute folder of pathEnv. The result
// is absolute.
func lookPath(file, pathEnv, dir string) (string, error) {
	if strings.Contains(file, "/") {
		p := file
		if !filepath.IsAbs(p) {
			base := dir
			if base == "" {
				wd, err := os.Getwd()
				if err != nil {
					return "", err
				}
				base = wd
			}
			p = filepath.Join(base, p)
		}
		if err := executable(p); err != nil {
			return "", fmt.Errorf("upstream command %q: %w", file, err)
		}
		return p, nil
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(d) {
			continue // "" and relative entries would depend on the working directory
		}
		p := filepath.Join(d, file)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("upstream command %q not found in PATH %q", file, pathEnv)
}

func executable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory", p)
	}
	if st.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable", p)
	}
	return nil
}
