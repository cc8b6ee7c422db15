//go:build !linux

package childproc

import (
	"context"
	"os/exec"
)

// Main is a no-op: there is no supervision shim on this system.
func Main() {}

func kernelABI() int { return 0 }

func landlockMissing() string { return "Landlock is a Linux feature" }

const seccompSupported = false

// Protect does nothing here.
func Protect() error { return nil }

// command runs the command itself: no shim (no process-group or
// parent-death guarantees) and no sandbox (Check refuses one here).
func command(ctx context.Context, s shimSpec) (*exec.Cmd, error) {
	cmd := exec.CommandContext(ctx, s.Path, s.Argv[1:]...)
	cmd.Args[0] = s.Argv[0]
	cmd.Env = s.Env
	cmd.Dir = s.Dir
	return cmd, nil
}
