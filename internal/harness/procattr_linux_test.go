package harness

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStartedProcessesDieWithTheTest: a test binary killed with SIGKILL
// (no cleanup runs) takes the processes the harness started with it. The
// helper below, a copy of this test binary, starts a Redis, prints its
// pid and waits to be killed.
func TestStartedProcessesDieWithTheTest(t *testing.T) {
	needCommand(t, "redis-server", "redis-server")
	helper := exec.Command(os.Args[0], "-test.run=^TestHelperStartsRedis$", "-test.v")
	helper.Env = append(os.Environ(), "HARNESS_HELPER=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = helper.Process.Kill(); _ = helper.Wait() })
	pid := 0
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if v, ok := strings.CutPrefix(lines.Text(), "redis pid "); ok {
			pid, _ = strconv.Atoi(v)
			break
		}
	}
	if pid == 0 {
		t.Fatal("the helper printed no redis pid")
	}
	if !running(pid) {
		t.Fatalf("redis (pid %d) is not running while its test is", pid)
	}
	if err := helper.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	if !WaitFor(5*time.Second, func() bool { return !running(pid) }) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("redis (pid %d) outlived its killed test binary by 5 s", pid)
	}
}

// running says whether process pid exists and has not exited: a zombie
// (exited, not yet reaped by whoever inherited it) or a dying process is
// not running.
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || (stat[i+2] != 'Z' && stat[i+2] != 'X')
}

// TestHelperStartsRedis is TestStartedProcessesDieWithTheTest's helper:
// it runs only in the copy that test starts.
func TestHelperStartsRedis(t *testing.T) {
	if os.Getenv("HARNESS_HELPER") == "" {
		t.Skip("helper of TestStartedProcessesDieWithTheTest")
	}
	r := StartRedis(t)
	os.Stdout.WriteString("redis pid " + strconv.Itoa(r.cmd.Process.Pid) + "\n")
	time.Sleep(time.Minute) // killed long before
}
