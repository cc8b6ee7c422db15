package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStockBaseline builds bench/stock (make bench's "release" baseline),
// checks that it compiled the mcp-go release and not third_party/mcp-go,
// and drives it with the load driver.
func TestStockBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	bin := filepath.Join(t.TempDir(), "stock")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..", "bench", "stock")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building bench/stock: %v\n%s", err, out)
	}
	info, err := exec.CommandContext(t.Context(), "go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	// A replaced module is listed with a "=>" line after its dep line.
	dep := regexp.MustCompile(`(?m)^\s+dep\s+github\.com/mark3labs/mcp-go\s+(v\S+)\s+h1:\S+\n(\s+=>.*)?`)
	m := dep.FindSubmatch(info)
	if m == nil || len(m[2]) != 0 {
		t.Fatalf("bench/stock is not built with the mcp-go release:\n%s", info)
	}
	if want := mcpGoVersion(t); string(m[1]) != want {
		t.Errorf("bench/stock has mcp-go %s, wasmgate's go.mod requires %s", m[1], want)
	}

	srv := exec.Command(bin, "127.0.0.1:0")
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	srv.Stderr = &stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Process.Signal(os.Interrupt)
		if err := srv.Wait(); err != nil {
			t.Errorf("bench/stock after SIGINT: %v\n%s", err, stderr.String())
		}
	})
	first, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the serving line: %v (stderr: %s)", err, stderr.String())
	}
	go io.Copy(io.Discard, out)
	url, ok := strings.CutPrefix(strings.TrimSpace(first), "serving ")
	if !ok {
		t.Fatalf("first line %q, want serving http://...", first)
	}
	var stdout, drvErr bytes.Buffer
	if code := run(t.Context(), []string{"-url", url, "-expect", "8", "-clients", "2",
		"-duration", "150ms", "-warmup", "20ms"}, func(string) string { return "" }, &stdout, &drvErr); code != exitOK {
		t.Fatalf("driving %s: exit = %d, stderr:\n%s", url, code, drvErr.String())
	}
}

// mcpGoVersion is the mcp-go version wasmgate's go.mod requires.
func mcpGoVersion(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s+github\.com/mark3labs/mcp-go\s+(v\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod requires no github.com/mark3labs/mcp-go")
	}
	return string(m[1])
}
