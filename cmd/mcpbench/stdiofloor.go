package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"

	"github.com/wasmgate/wasmgate/cmd/mcpbench/native"
)

// serveStdioFloor serves, on addr at /mcp, the floor of a proxy from
// Streamable HTTP to a stdio server (make bench-peers' stdio_floor): the
// server's command (mcpbench -serve-stdio) started once and shared by
// every session, as wasmgate's command: upstreams and mcp-proxy share
// theirs, and nothing done but what forwarding needs. Each request's id is
// replaced by one of the proxy's own (sessions use the same ids), the
// message written as a line to the server's stdin, its answer read from
// its stdout, matched by id and written back with the request's id.
// initialize is made once, at the start, and its result given to every
// session (with an id of its own); notifications are answered 202 and not
// forwarded. No policy, no checks, no MCP library: what any stdio proxy
// spends at least, on the same machine, in the same run as the others.
func serveStdioFloor(ctx context.Context, addr string, server []string, stdout io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, server[0], server[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the stdio server %q: %w", server, err)
	}
	f := &stdioFloor{in: in, waiting: map[int64]chan stdioAnswer{}, done: make(chan struct{})}
	go f.read(out)
	defer func() {
		// The server goes (its stdin ends, or it is killed), then its
		// stdout ends and the reader returns.
		cancel()
		in.Close()
		<-f.done
		_ = cmd.Wait()
	}()
	if err := f.initialize(ctx); err != nil {
		return err
	}
	return native.Serve(ctx, addr, "/mcp", f, stdout)
}

// stdioFloor forwards requests to one stdio server. Safe for concurrent
// use.
type stdioFloor struct {
	in  io.Writer // the server's stdin; one writer at a time (wmu)
	wmu sync.Mutex

	mu      sync.Mutex
	next    int64
	waiting map[int64]chan stdioAnswer
	gone    error // the server's stdout ended: every call fails with it

	sessions floorSessions

	init json.RawMessage // the server's initialize result
	done chan struct{}   // closed when the reader returns
}

// stdioAnswer is the server's answer to one request: its result or its
// error, as they are.
type stdioAnswer struct {
	result, err json.RawMessage
}

// initialize makes the server's initialize, once for every session.
func (f *stdioFloor) initialize(ctx context.Context) error {
	init := fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"mcpbench-stdio-floor","version":"1"}}`, defaultProtocolVersion)
	a, err := f.forward(ctx, "initialize", json.RawMessage(init))
	if err == nil && a.err != nil {
		err = fmt.Errorf("initialize: %s", a.err)
	}
	if err == nil {
		err = f.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	}
	if err != nil {
		return fmt.Errorf("the stdio server's initialize: %w", err)
	}
	f.init = a.result
	return nil
}

// read hands every answer on out to the call waiting for its id, until out
// ends. Messages without an id of the floor's (the server's
// notifications) are dropped.
func (f *stdioFloor) read(out io.Reader) {
	defer close(f.done)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     *int64          `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil {
			continue
		}
		f.mu.Lock()
		ch := f.waiting[*msg.ID]
		delete(f.waiting, *msg.ID)
		f.mu.Unlock()
		if ch != nil {
			ch <- stdioAnswer{result: msg.Result, err: msg.Error}
		}
	}
	err := sc.Err()
	if err == nil {
		err = io.EOF
	}
	f.mu.Lock()
	f.gone = fmt.Errorf("the stdio server's stdout ended: %w", err)
	for id, ch := range f.waiting {
		close(ch)
		delete(f.waiting, id)
	}
	f.mu.Unlock()
}

// write writes line to the server's stdin.
func (f *stdioFloor) write(line []byte) error {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	_, err := f.in.Write(line)
	return err
}

// forward sends method with params to the server under an id of the
// floor's and waits for its answer.
func (f *stdioFloor) forward(ctx context.Context, method string, params json.RawMessage) (stdioAnswer, error) {
	ch := make(chan stdioAnswer, 1)
	f.mu.Lock()
	if f.gone != nil {
		f.mu.Unlock()
		return stdioAnswer{}, f.gone
	}
	f.next++
	id := f.next
	f.waiting[id] = ch
	f.mu.Unlock()
	line := append(strconv.AppendInt([]byte(`{"jsonrpc":"2.0","id":`), id, 10), `,"method":`...)
	line = strconv.AppendQuote(line, method)
	if len(params) > 0 {
		line = append(append(line, `,"params":`...), params...)
	}
	line = append(line, "}\n"...)
	if err := f.write(line); err != nil {
		f.drop(id)
		return stdioAnswer{}, fmt.Errorf("writing to the stdio server: %w", err)
	}
	select {
	case a, ok := <-ch:
		if !ok {
			f.mu.Lock()
			defer f.mu.Unlock()
			return stdioAnswer{}, f.gone
		}
		return a, nil
	case <-ctx.Done():
		f.drop(id)
		return stdioAnswer{}, ctx.Err()
	}
}

func (f *stdioFloor) drop(id int64) {
	f.mu.Lock()
	delete(f.waiting, id)
	f.mu.Unlock()
}

func (f *stdioFloor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "malformed JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	if req.ID == nil { // a notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var a stdioAnswer
	switch req.Method {
	case "initialize":
		f.sessions.open(w)
		a.result = f.init
	default:
		if !f.sessions.has(w, r) {
			return
		}
		if a, err = f.forward(r.Context(), req.Method, req.Params); err != nil {
			status := http.StatusBadGateway
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				status = http.StatusServiceUnavailable
			}
			http.Error(w, err.Error(), status)
			return
		}
	}
	b := make([]byte, 0, 64+len(a.result)+len(a.err))
	b = append(append(b, `{"jsonrpc":"2.0","id":`...), req.ID...)
	if a.err != nil {
		b = append(append(b, `,"error":`...), a.err...)
	} else {
		b = append(append(b, `,"result":`...), a.result...)
	}
	b = append(b, "}\n"...)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
