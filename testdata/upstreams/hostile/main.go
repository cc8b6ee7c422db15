// Command hostile is an MCP server over stdio (mcp-go's) that tries what
// a sandboxed upstream must not be able to do, for the tests of
// internal/childproc and the upstream sources: read and write any file,
// connect to and listen on any TCP port, start a grandchild that
// outlives it, and show the environment it was given; and what Landlock
// does not govern: change a file's mode, owner, times and extended
// attributes, listen without bind, read inherited descriptors, kill its
// supervisor. Each tool reports
// what happened; a refused operation is an isError result with the
// error (for example "permission denied").
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/sys/unix"
)

func main() {
	s := server.NewMCPServer("hostile-upstream", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("read_file", mcp.WithDescription("Read a file"),
		mcp.WithString("path", mcp.Required())), readFile)
	s.AddTool(mcp.NewTool("write_file", mcp.WithDescription("Write a file"),
		mcp.WithString("path", mcp.Required()), mcp.WithString("content")), writeFile)
	s.AddTool(mcp.NewTool("connect", mcp.WithDescription("Connect to a TCP port on 127.0.0.1"),
		mcp.WithNumber("port", mcp.Required()), mcp.WithBoolean("mptcp", mcp.Description("with a Multipath TCP socket"))), connect)
	s.AddTool(mcp.NewTool("listen", mcp.WithDescription("Listen on a TCP port on 127.0.0.1 (0: any)"),
		mcp.WithNumber("port")), listen)
	s.AddTool(mcp.NewTool("spawn_sleeper", mcp.WithDescription("Start `sleep 1000`, optionally in its own session, and report its pid"),
		mcp.WithBoolean("escape")), spawnSleeper)
	s.AddTool(mcp.NewTool("env", mcp.WithDescription("The environment, as a JSON array")), env)
	s.AddTool(mcp.NewTool("pid", mcp.WithDescription("This process's pid")), pid)
	// What Landlock does not govern (issue 39, finding 5).
	s.AddTool(mcp.NewTool("chmod", mcp.WithDescription("Change a file's mode"),
		mcp.WithString("path", mcp.Required()), mcp.WithNumber("mode", mcp.Required())), chmod)
	s.AddTool(mcp.NewTool("chown", mcp.WithDescription("Change a file's owner and group"),
		mcp.WithString("path", mcp.Required()), mcp.WithNumber("uid", mcp.Required()), mcp.WithNumber("gid", mcp.Required())), chown)
	s.AddTool(mcp.NewTool("touch", mcp.WithDescription("Set a file's access and modification times to the Unix epoch"),
		mcp.WithString("path", mcp.Required())), touch)
	s.AddTool(mcp.NewTool("setxattr", mcp.WithDescription("Set the extended attribute user.hostile of a file"),
		mcp.WithString("path", mcp.Required())), setxattr)
	s.AddTool(mcp.NewTool("listen_unbound", mcp.WithDescription("listen() on a TCP socket that was never bound (the kernel picks a port)")), listenUnbound)
	s.AddTool(mcp.NewTool("read_fds", mcp.WithDescription("Read every regular file open on descriptors 3..1023 (what was inherited)")), readFDs)
	s.AddTool(mcp.NewTool("kill_parent", mcp.WithDescription("SIGKILL the parent process (the supervisor)")), killParent)
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
}

func readFile(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	b, err := os.ReadFile(req.GetString("path", ""))
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(string(b)), nil
}

func writeFile(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := os.WriteFile(req.GetString("path", ""), []byte(req.GetString("content", "hostile was here")), 0o644); err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText("written"), nil
}

func connect(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(req.GetInt("port", 0)))
	if req.GetBool("mptcp", false) {
		// Raw, so that nothing falls back to plain TCP.
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 262) // IPPROTO_MPTCP
		if err != nil {
			return mcp.NewToolResultError("socket: " + err.Error()), nil
		}
		defer syscall.Close(fd)
		if err := syscall.Connect(fd, &syscall.SockaddrInet4{Port: req.GetInt("port", 0), Addr: [4]byte{127, 0, 0, 1}}); err != nil {
			return mcp.NewToolResultError("connect: " + err.Error()), nil
		}
		return mcp.NewToolResultText("connected (mptcp) to " + addr), nil
	}
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	c.Close()
	return mcp.NewToolResultText("connected to " + addr), nil
}

func listen(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(req.GetInt("port", 0))))
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	defer l.Close()
	return mcp.NewToolResultText("listening on " + l.Addr().String()), nil
}

func spawnSleeper(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	cmd := exec.Command("sleep", "1000")
	if req.GetBool("escape", false) {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	if err := cmd.Start(); err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	go cmd.Wait() //nolint:errcheck // reaped when it ends; it should not outlive this server
	return mcp.NewToolResultText(strconv.Itoa(cmd.Process.Pid)), nil
}

func env(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	b, _ := json.Marshal(os.Environ())
	return mcp.NewToolResultText(string(b)), nil
}

func pid(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText(strconv.Itoa(os.Getpid())), nil
}

func chmod(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := os.Chmod(req.GetString("path", ""), os.FileMode(req.GetInt("mode", 0o666))); err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText("mode changed"), nil
}

func chown(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := os.Chown(req.GetString("path", ""), req.GetInt("uid", 0), req.GetInt("gid", 0)); err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText("owner changed"), nil
}

func touch(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := os.Chtimes(req.GetString("path", ""), time.Unix(0, 0), time.Unix(0, 0)); err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText("times changed"), nil
}

func setxattr(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := unix.Setxattr(req.GetString("path", ""), "user.hostile", []byte("was here"), 0); err != nil {
		return mcp.NewToolResultError("setxattr: " + err.Error()), nil
	}
	return mcp.NewToolResultText("xattr set"), nil
}

func listenUnbound(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return mcp.NewToolResultError("socket: " + err.Error()), nil
	}
	defer syscall.Close(fd)
	if err := syscall.Listen(fd, 1); err != nil {
		return mcp.NewToolResultError("listen: " + err.Error()), nil
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return mcp.NewToolResultError("getsockname: " + err.Error()), nil
	}
	return mcp.NewToolResultText(fmt.Sprintf("listening on port %d", sa.(*syscall.SockaddrInet4).Port)), nil
}

func readFDs(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var b strings.Builder
	for fd := 3; fd < 1024; fd++ {
		var st syscall.Stat_t
		if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			continue
		}
		buf := make([]byte, 4096)
		n, err := syscall.Pread(fd, buf, 0)
		if err != nil {
			fmt.Fprintf(&b, "fd %d: %v\n", fd, err)
			continue
		}
		fmt.Fprintf(&b, "fd %d: %s\n", fd, buf[:n])
	}
	if b.Len() == 0 {
		return mcp.NewToolResultText("no inherited files"), nil
	}
	return mcp.NewToolResultText(b.String()), nil
}

func killParent(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if err := syscall.Kill(os.Getppid(), syscall.SIGKILL); err != nil {
		return mcp.NewToolResultError(fmt.Sprintf("kill %d: %v", os.Getppid(), err)), nil
	}
	return mcp.NewToolResultText("killed the parent"), nil
}
