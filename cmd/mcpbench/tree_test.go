package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestTreesCPUCountsDescendants: a busy child's CPU time is counted in
// its parent's tree and not in the parent alone; a process that is not
// running is an error.
func TestTreesCPUCountsDescendants(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	child := exec.Command("sh", "-c", "while :; do :; done")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })

	self := os.Getpid()
	deadline := time.Now().Add(10 * time.Second)
	for {
		childCPU, err := processCPU(child.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		// Read the parent first: its tree read afterwards must hold at
		// least the parent's and the child's time, the child's being
		// read before the tree too.
		own, err := processCPU(self)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := treesCPU([]int{self})
		if err != nil {
			t.Fatal(err)
		}
		if tree < own+childCPU {
			t.Fatalf("tree %v < parent %v + child %v", tree, own, childCPU)
		}
		if childCPU >= 50*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the busy child used only %v in 10 s", childCPU)
		}
		time.Sleep(10 * time.Millisecond) // polling the child's clock ticks
	}
	alone, err := treesCPU([]int{child.Process.Pid})
	if err != nil {
		t.Fatal(err)
	}
	if alone < 50*time.Millisecond {
		t.Errorf("the child's own tree: %v, want its time", alone)
	}

	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := treesCPU([]int{dead.Process.Pid}); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("treesCPU of an exited process: %v, want not running", err)
	}
}

func TestParseStat(t *testing.T) {
	ppid, cpu, err := parseStat([]byte("42 (a b) c)) S 7 42 42 0 -1 4194304 100 0 0 0 150 50 0 0 20 0 1 0 1 1 1\n"))
	if err != nil || ppid != 7 || cpu != 2*time.Second {
		t.Errorf("parseStat = %d, %v, %v; want 7, 2s, nil", ppid, cpu, err)
	}
	for _, bad := range []string{"", "1 (x S 1", "1 (x) S 1 2 3", "1 (x) S p 1 1 0 -1 0 0 0 0 0 1 1", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 u 1", "1 (x) S 1 1 1 0 -1 0 0 0 0 0 -5 3"} {
		if _, _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("parseStat(%q) succeeded, want an error", bad)
		}
	}
}

// FuzzParseStat: any bytes are read without a panic, and what is read
// is never a negative parent or time.
func FuzzParseStat(f *testing.F) {
	f.Add([]byte("42 (mcpbench) S 7 42 42 0 -1 4194304 100 0 0 0 150 50 0 0 20 0 1 0 1 1 1\n"))
	f.Add([]byte("1 ((sd-pam)) S 0 1 1 0 -1 0 0 0 0 0 -5 3"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ppid, cpu, err := parseStat(b)
		if err == nil && (ppid < 0 || cpu < 0) {
			t.Errorf("parseStat(%q) = %d, %v: negative", b, ppid, cpu)
		}
	})
}
