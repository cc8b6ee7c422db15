package transport

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestStdioResponseDecodedOnce: a response read from the server's stdout
// is decoded once. Over a 1 MiB result, each decode of the line costs a
// copy of it and of the result; upstream decoded every response twice
// (as a base message, then as a response): about 1 MiB more (5.05 MiB
// a call without this patch, 4.04 with it, on go1.26).
func TestStdioResponseDecodedOnce(t *testing.T) {
	const size = 1 << 20
	const n = 5
	// The answers to requests 1 to n+1, made before anything is measured;
	// the server answers each request line with the next one.
	text := strings.Repeat("x", size)
	responses := make([][]byte, n+1)
	for i := range responses {
		responses[i] = []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"text":"%s"}}`+"\n", i+1, text))
	}
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	go func() {
		r := bufio.NewReader(serverIn)
		for _, response := range responses {
			if _, err := r.ReadString('\n'); err != nil {
				return
			}
			if _, err := serverOut.Write(response); err != nil {
				return
			}
		}
	}()
	c := NewIO(clientIn, clientOut, io.NopCloser(strings.NewReader("")))
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = c.Close()
		_ = serverOut.Close()
	}()
	id := int64(0)
	call := func() {
		id++
		res, err := c.SendRequest(context.Background(), JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Method: "tools/call"})
		if err != nil || len(res.Result) < size {
			t.Fatalf("SendRequest: %v (%d bytes of result)", err, len(res.Result))
		}
	}
	call() // warm: buffers grown
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		call()
	}
	runtime.ReadMemStats(&after)
	perCall := float64(after.TotalAlloc-before.TotalAlloc) / n / size
	t.Logf("%.2f MiB allocated per call", perCall)
	if perCall > 4.5 {
		t.Errorf("%.2f MiB allocated per 1 MiB response: it is decoded more than once", perCall)
	}
}
