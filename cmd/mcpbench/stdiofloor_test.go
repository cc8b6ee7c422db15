package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"testing"
)

// serveStdioEnv, set, makes the test binary mcpbench -serve-stdio: the
// stdio server TestStdioFloor's floor starts.
const serveStdioEnv = "MCPBENCH_TEST_SERVE_STDIO"

func TestMain(m *testing.M) {
	if os.Getenv(serveStdioEnv) == "1" {
		os.Exit(run(context.Background(), []string{"-serve-stdio"}, os.Getenv, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestStdioFloor drives -stdio-floor's bridge to a real -serve-stdio
// process: sessions, results and a tool's error come through as they do
// from the native server over HTTP (many clients' calls with the same ids
// on one stdio server), an unknown session is refused, and the server
// goes when the floor does.
func TestStdioFloor(t *testing.T) {
	t.Setenv(serveStdioEnv, "1") // the server the floor starts is this binary
	ctx, cancel := context.WithCancel(t.Context())
	pr, pw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- serveStdioFloor(ctx, "127.0.0.1:0", []string{os.Args[0]}, pw)
		pw.Close()
	}()
	first, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the serving line: %v", err)
	}
	go io.Copy(io.Discard, pr)
	url, ok := strings.CutPrefix(strings.TrimSpace(first), "serving ")
	if !ok {
		t.Fatalf("first line %q, want serving http://...", first)
	}
	if out := driveCalculator(t, url); !strings.Contains(out, "failures=0") {
		t.Errorf("through the floor: %s", out)
	}
	refusesUnknownSession(t, url)
	cancel()
	if err := <-served; err != nil {
		t.Errorf("-stdio-floor after its context ended: %v", err)
	}
}
