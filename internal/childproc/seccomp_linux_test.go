//go:build linux && (amd64 || arm64)

package childproc

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestFilterProgram: the seccomp program assembles (every jump in
// range) and ends in its four returns.
func TestFilterProgram(t *testing.T) {
	for _, net := range []bool{false, true} {
		prog, err := filterProgram(net)
		if err != nil {
			t.Fatalf("restrictNet %v: %v", net, err)
		}
		if n := len(prog); n < 30 || prog[n-4].Code != unix.BPF_RET|unix.BPF_K || prog[n-4].K != unix.SECCOMP_RET_ALLOW {
			t.Errorf("restrictNet %v: %d instructions, ending %+v", net, n, prog[max(0, n-4):])
		}
	}
}
