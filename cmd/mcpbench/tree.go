package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"strconv"
	"time"
)

// treesCPU is the CPU time used so far by the processes roots and all
// their descendants living now, each counted once, from /proc (Linux).
// A proxy that starts its stdio server as a child, or one child per
// session, is measured with everything it started. A descendant that has
// already exited is not counted; make bench-peers opens every session
// before it measures, so the children of a phase live through it.
func treesCPU(roots []int) (time.Duration, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("listing processes: %w", err)
	}
	type proc struct {
		ppid int
		cpu  time.Duration
	}
	procs := make(map[int]proc, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // it exited since the listing
		}
		ppid, cpu, err := parseStat(b)
		if err != nil {
			return 0, fmt.Errorf("reading /proc/%d/stat: %w", pid, err)
		}
		procs[pid] = proc{ppid, cpu}
	}
	in := make(map[int]bool, len(roots))
	for _, r := range roots {
		if _, ok := procs[r]; !ok {
			return 0, fmt.Errorf("reading the CPU time of process %d: it is not running", r)
		}
		in[r] = true
	}
	var total time.Duration
	for pid, p := range procs {
		// Walk up to a root; process trees are shallow.
		for q, seen := pid, 0; q > 0 && seen < 64; q, seen = procs[q].ppid, seen+1 {
			if in[q] {
				total += p.cpu
				break
			}
		}
	}
	return total, nil
}

// parseStat reads the parent and the user plus system CPU time from the
// text of a /proc/PID/stat file.
func parseStat(b []byte) (ppid int, cpu time.Duration, err error) {
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("no command name in %q", b)
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("too few fields in %q", b)
	}
	ppid, err1 := strconv.Atoi(string(f[1]))               // field 4
	utime, err2 := strconv.ParseInt(string(f[11]), 10, 64) // field 14
	stime, err3 := strconv.ParseInt(string(f[12]), 10, 64) // field 15
	if err1 != nil || err2 != nil || err3 != nil || ppid < 0 || utime < 0 || stime < 0 {
		return 0, 0, fmt.Errorf("malformed fields in %q", b)
	}
	const tick = time.Second / 100
	if utime > math.MaxInt64/int64(tick)-stime {
		return 0, 0, fmt.Errorf("CPU time out of range in %q", b)
	}
	return ppid, time.Duration(utime+stime) * tick, nil
}
