// Package childproc starts the local processes the gateway supervises
// (upstream MCP servers over stdio): in their own process group, killed
// when the gateway dies (Pdeathsig), with exactly the environment they
// are given and, when asked, under a Landlock sandbox applied by a small
// re-exec of the gateway's own binary before the command runs.
package childproc

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
)

// Sandbox is what a sandboxed process may reach. A nil *Sandbox is no
// sandbox.
type Sandbox struct {
	Read  []string // absolute paths, readable (and executable) beneath
	Write []string // absolute paths, readable and writable beneath
	// Network: true lets it connect anywhere; false with no Ports
	// refuses every TCP connect; Ports are the TCP ports it may
	// connect to.
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

// Supported reports whether a Sandbox can be enforced here: nil, or an
// error wrapping ErrUnsupported that says what is missing.
func Supported() error {
	return fmt.Errorf("%w: not implemented yet", ErrUnsupported)
}

// Command is the process of spec, not started: own process group,
// SIGKILL when the gateway's thread that starts it dies, stdin/stdout/
// stderr for the caller to set. ctx ending kills the process group.
func Command(ctx context.Context, spec Spec) (*exec.Cmd, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("no command")
	}
	if spec.Sandbox != nil {
		if err := Supported(); err != nil {
			return nil, err
		}
	}
	cmd := exec.CommandContext(ctx, spec.Argv[0], spec.Argv[1:]...)
	cmd.Env = spec.Env
	cmd.Dir = spec.Dir
	setProcAttr(cmd)
	return cmd, nil
}

// Main runs the sandbox re-exec when the gateway binary was started as
// one (os.Args[1] is the re-exec marker) and never returns then; else it
// returns at once. main calls it first.
func Main() {}
