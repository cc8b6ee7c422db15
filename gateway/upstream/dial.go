// Dialing an upstream session: the choice between a command and a URL,
// a local server started as a command over stdio (its process, its pipes,
// its stderr and its exit status), and the initialize handshake that every
// transport shares. A remote server is dialed in dialhttp.go.

package upstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/wasmgate/wasmgate/internal/childproc"
)

// dial starts one session: a process (stdio) or a connection (url), and
// initializes it. ended is done when the session ends; stop ends it.
func (c *conn) dial(ctx context.Context) (cli *client.Client, ended context.Context, stop func(), kind string, err error) {
	if c.s.spec.Stdio() {
		return c.dialStdio(ctx)
	}
	return c.dialHTTP(ctx)
}

func (c *conn) dialStdio(ctx context.Context) (*client.Client, context.Context, func(), string, error) {
	spec := c.s.spec
	var sb *childproc.Sandbox
	if spec.Sandbox != nil {
		sb = &childproc.Sandbox{Read: spec.Sandbox.Read, Write: spec.Sandbox.Write, Network: spec.Sandbox.NetworkAll, Ports: spec.Sandbox.Ports}
	}
	pctx, kill := context.WithCancel(c.s.ctx)
	cmd, err := childproc.Command(pctx, childproc.Spec{Argv: spec.Command, Env: spec.ChildEnv, Dir: spec.Cwd, Sandbox: sb})
	if err != nil {
		kill()
		return nil, nil, nil, "", fmt.Errorf("cannot start %q: %w", spec.Command[0], err)
	}
	cmd.WaitDelay = 2 * time.Second
	inR, inW, err := os.Pipe()
	if err != nil {
		kill()
		return nil, nil, nil, "", err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		kill()
		inR.Close()
		inW.Close()
		return nil, nil, nil, "", err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		kill()
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, nil, nil, "", err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		kill()
		for _, f := range []*os.File{inR, inW, outR, outW, errR, errW} {
			f.Close()
		}
		return nil, nil, nil, "", fmt.Errorf("cannot start %q: %w", spec.Command[0], err)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	endedCtx, end := context.WithCancel(context.Background())
	ended := endedCtx.Done()
	out := &lineReader{r: bufio.NewReaderSize(outR, 64<<10), max: int(spec.Limits.MaxMessage)}
	c.s.wg.Add(2)
	go func() { // the exit status, once the process is gone
		defer c.s.wg.Done()
		err := cmd.Wait()
		if err == nil {
			err = errors.New("exit status 0")
		}
		if p := out.problem(); p != nil && c.current() != nil {
			err = fmt.Errorf("%v (%w)", err, p)
		}
		c.mu.Lock()
		if c.why == nil {
			c.why = fmt.Errorf("exited: %w", err)
		}
		c.mu.Unlock()
		outR.Close()
		end()
	}()
	tail := &stderrTail{} // for the error of a start that fails
	errDone := make(chan struct{})
	go func() { // stderr, line by line, to the log
		defer c.s.wg.Done()
		defer close(errDone)
		defer errR.Close()
		stderrLines(errR, maxStderrLine, func(line []byte, dropped int) {
			tail.add(line)
			if dropped > 0 {
				c.s.stderrLog.Log(context.Background(), c.s.h.Logger, slog.LevelInfo, "upstream stderr", "source", c.s.name(), "line", string(line), "dropped_bytes", dropped)
				return
			}
			c.s.stderrLog.Log(context.Background(), c.s.h.Logger, slog.LevelInfo, "upstream stderr", "source", c.s.name(), "line", string(line))
		})
	}()
	// stdout closed or a message too large: the process goes. A server
	// whose stdout just closed is given a moment to exit by itself first,
	// so that its exit status (not our kill) is what the error reports:
	// the childproc shim outlives the server by the few milliseconds it
	// takes to reap what it left. One that misbehaved is killed at once.
	out.onEnd = sync.OnceFunc(func() {
		if out.problem() != nil { // it misbehaved: no waiting
			kill()
			return
		}
		// A timer, not a goroutine counted in c.s.wg: onEnd runs on the
		// transport's reader, which may be after the source's Wait began
		// (a WaitGroup's Add must not race its Wait).
		time.AfterFunc(time.Second, func() {
			select {
			case <-ended:
			default:
				kill()
			}
		})
	})
	in := newStdinWriter(inW, time.Duration(spec.Limits.Timeout))
	stop := sync.OnceFunc(func() {
		in.close() // a well-behaved server exits at the end of its input
		select {
		case <-ended:
		case <-time.After(500 * time.Millisecond):
		}
		kill()
		<-ended
	})
	in.onStall = func(why error) { // stopped reading its stdin: it goes, and is started again
		c.s.h.Logger.Warn("upstream stopped reading its stdin; restarting it", "upstream", c.s.name(), "session", c.ownerLabel(), "error", why)
		c.mu.Lock()
		if c.why == nil {
			c.why = why
		}
		c.mu.Unlock()
		stop()
	}
	c.s.wg.Add(1)
	go func() {
		defer c.s.wg.Done()
		in.run()
	}()
	tr := transport.NewIO(out, in, nil)
	cli := client.NewClient(tr, c.s.clientOptions(c)...)
	cli.OnNotification(func(n mcp.JSONRPCNotification) { c.s.onNotification(c, n) })
	if err := c.initialize(ctx, cli, ended); err != nil {
		exited := false
		wait := time.Duration(0)
		if transportError(err) { // its stdout closed: the exit status follows
			wait = time.Second
		}
		select {
		case <-ended:
			exited = true // on its own, before stop
		default:
			select {
			case <-ended:
				exited = true
			case <-time.After(wait):
			}
		}
		stop()
		if p := out.problem(); p != nil {
			err = fmt.Errorf("%w; its stdout: %v", err, p)
		}
		if why := c.exitReason(); why != nil && exited {
			err = fmt.Errorf("exited before it answered initialize (%v)", why)
		}
		select { // what it wrote to stderr up to its end
		case <-errDone:
		case <-time.After(500 * time.Millisecond):
		}
		if t := tail.String(); t != "" {
			err = fmt.Errorf("%w; its last lines on stderr: %s", err, c.s.redact(t))
		}
		if spec.Sandbox != nil {
			err = fmt.Errorf("%w (it runs in a sandbox: whatever it reads, writes or connects to must be granted; see docs/upstreams.md#sandbox-for-local-servers)", err)
		}
		c.mu.Lock()
		c.why = nil
		c.mu.Unlock()
		_ = cli.Close()
		return nil, nil, nil, "", err
	}
	return cli, endedCtx, stop, "stdio", nil
}

// initialize starts cli and runs the initialize handshake, bounded by
// ctx and by the session ending.
func (c *conn) initialize(ctx context.Context, cli *client.Client, ended <-chan struct{}) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if ended != nil {
		go func() {
			select {
			case <-ended:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	// The transport keeps Start's context for the server's requests and
	// (HTTP) its listening stream: the server's, not initialize's.
	if err := cli.Start(c.s.ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "wasmgate", Version: "upstream"}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	if c.ds != nil {
		if ci, ok := c.ds.(mcpserver.SessionWithClientInfo); ok {
			caps := ci.GetClientCapabilities()
			req.Params.Capabilities.Roots = caps.Roots
		}
	}
	if _, err := cli.Initialize(ctx, req); err != nil {
		select {
		case <-ended:
			return fmt.Errorf("exited before it answered initialize")
		default:
		}
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("did not answer initialize within %s (limits.start_timeout)", time.Duration(c.s.spec.Limits.StartTimeout))
		}
		return fmt.Errorf("initialize: %w", err)
	}
	return nil
}
