package harness

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Redis is a redis-server the test started on a free loopback port, with
// no persistence. It is killed at the end of the test.
type Redis struct {
	Addr string // 127.0.0.1:port
	args []string
	dir  string
	cmd  *exec.Cmd
	done chan struct{}
	t    testing.TB
}

// StartRedis runs Debian's redis-server (the test is skipped when it is not
// installed, unless CI is set) on a free port with extra arguments
// (`--requirepass`, say) and waits until it accepts connections.
func StartRedis(t testing.TB, extra ...string) *Redis {
	t.Helper()
	needCommand(t, "redis-server", "redis-server")
	addr := FreePort(t)
	_, port, _ := net.SplitHostPort(addr)
	r := &Redis{Addr: addr, dir: t.TempDir(), t: t,
		args: append([]string{"--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}, extra...)}
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// needCommand skips the test when command is not installed, or fails it
// when CI is set (CI installs Debian's package pkg).
func needCommand(t testing.TB, command, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(command); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed (apt-get install %s)", command, pkg)
		}
		t.Skipf("%s is not installed", command)
	}
}

// URL is redis://Addr/0.
func (r *Redis) URL() string { return "redis://" + r.Addr + "/0" }

// Start runs the server again (after Stop) on the same port.
func (r *Redis) Start() {
	t := r.t
	t.Helper()
	r.cmd = exec.Command("redis-server", r.args...)
	r.cmd.SysProcAttr = dieWithTest()
	r.cmd.Dir = r.dir
	logf, err := os.Create(filepath.Join(r.dir, "redis.log"))
	if err != nil {
		t.Fatal(err)
	}
	r.cmd.Stdout, r.cmd.Stderr = logf, logf
	if err := r.cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("redis-server: %v", err)
	}
	logf.Close()
	r.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { _ = cmd.Wait(); close(done) }(r.cmd, r.done)
	if !WaitFor(10*time.Second, func() bool { return r.ping() }) {
		b, _ := os.ReadFile(filepath.Join(r.dir, "redis.log"))
		t.Fatalf("redis-server on %s did not answer PING:\n%s", r.Addr, b)
	}
}

// Stop kills the server and waits for it to exit; safe to call twice.
func (r *Redis) Stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Kill()
	<-r.done
	r.cmd = nil
}

// ping reports whether the server answers PING (or -NOAUTH: it runs).
func (r *Redis) ping() bool {
	c, err := net.DialTimeout("tcp", r.Addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprint(c, "PING\r\n"); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && (strings.HasPrefix(line, "+PONG") || strings.HasPrefix(line, "-NOAUTH"))
}

// HAProxy is an haproxy the test started in front of backends.
type HAProxy struct {
	Addr string // where it listens: 127.0.0.1:port
	cmd  *exec.Cmd
	done chan struct{}
}

// StartHAProxy runs haproxy on a free port balancing HTTP round robin over
// backends (host:port each) and waits until it listens. Without health,
// nothing is checked (a dead backend's calls fail, as a balancer that has
// not noticed yet would); with health (each backend's admin host:port),
// GET /readyz there every 200ms takes a backend out at its first failure,
// and a request whose connection is refused is sent to another backend.
// Skipped as StartRedis is.
func StartHAProxy(t testing.TB, backends []string, health ...string) *HAProxy {
	t.Helper()
	needCommand(t, "haproxy", "haproxy")
	h := &HAProxy{Addr: FreePort(t), done: make(chan struct{})}
	var b strings.Builder
	fmt.Fprintf(&b, `global
  maxconn 1024
  log stderr format raw local0 info
defaults
  log global
  option httplog
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  option http-server-close
frontend mcp
  bind %s
  default_backend wasmgate
backend wasmgate
  balance roundrobin
`, h.Addr)
	if len(health) > 0 {
		b.WriteString("  option httpchk GET /readyz\n  option redispatch\n  retries 3\n")
	}
	for i, be := range backends {
		fmt.Fprintf(&b, "  server r%d %s", i+1, be)
		if i < len(health) {
			_, port, _ := net.SplitHostPort(health[i])
			fmt.Fprintf(&b, " check port %s inter 200ms fall 1 rise 1", port)
		}
		b.WriteString("\n")
	}
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	WriteFile(t, cfg, []byte(b.String()))
	h.cmd = exec.Command("haproxy", "-db", "-f", cfg)
	h.cmd.SysProcAttr = dieWithTest()
	logf, err := os.Create(cfg + ".log")
	if err != nil {
		t.Fatal(err)
	}
	h.cmd.Stdout, h.cmd.Stderr = logf, logf
	if err := h.cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("haproxy: %v", err)
	}
	logf.Close()
	go func() { _ = h.cmd.Wait(); close(h.done) }()
	t.Cleanup(func() { _ = h.cmd.Process.Kill(); <-h.done })
	if !WaitFor(10*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", h.Addr, time.Second)
		if err == nil {
			c.Close()
		}
		return err == nil
	}) {
		b, _ := os.ReadFile(cfg + ".log")
		t.Fatalf("haproxy did not listen on %s:\n%s", h.Addr, b)
	}
	return h
}

// RedisDo sends one command to the Redis at addr and reads the first line
// of its answer (an error reply is an error).
func RedisDo(addr string, args ...string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return err
	}
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.HasPrefix(line, "-") {
		return fmt.Errorf("redis: %s", strings.TrimSpace(line[1:]))
	}
	return nil
}
