// Package plugins_test runs the example plugins (examples/plugins/*.wasm)
// and the test fixtures (testdata/plugins/*.wasm) with the Extism Go SDK and
// the gateway's host functions (loader/host), as the gateway does, and
// checks what they answer.
//
// It builds nothing: run scripts/build-plugins.sh first. A test whose
// module is missing is skipped.
package plugins_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/wasmgate/wasmgate/loader/host"
)

// compilationCache makes the second compilation of a module cheap; it is
// shared by every test of this package.
var compilationCache = sync.OnceValue(wazero.NewCompilationCache)

// module is one compiled .wasm file.
type module struct {
	compiled *extism.CompiledPlugin
}

type options struct {
	store    *host.Store // the plugin's key-value store; nil: one without a quota
	config   map[string]string
	maxPages uint32 // 64 KiB pages; 0: no limit
}

// compile compiles the module at path, relative to this directory, or
// skips the test if it has not been built.
func compile(t *testing.T, path string, opts options) *module {
	t.Helper()
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s is not built: run scripts/build-plugins.sh", filepath.Clean(path))
	}
	if opts.store == nil {
		opts.store = host.NewStore(math.MaxInt64)
	}
	manifest := extism.Manifest{
		Wasm:   []extism.Wasm{extism.WasmFile{Path: path}},
		Config: opts.config,
	}
	if opts.maxPages > 0 {
		manifest.Memory = &extism.ManifestMemory{MaxPages: opts.maxPages}
	}
	ctx := context.Background()
	c, err := extism.NewCompiledPlugin(ctx, manifest, extism.PluginConfig{
		EnableWasi: true,
		RuntimeConfig: wazero.NewRuntimeConfig().
			WithCloseOnContextDone(true).
			WithCompilationCache(compilationCache()),
	}, host.Functions(host.Env{Store: opts.store}))
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	return &module{compiled: c}
}

// sleepStep bounds one host sleep. wazero's poll_oneoff sleeps in the host
// without watching the call's context, so a guest's time.Sleep(10*time.Second)
// would outlive a 100ms timeout; sleeping at most sleepStep at a time (the
// guest's runtime sleeps again for the rest) lets WithCloseOnContextDone stop
// the call between steps.
const sleepStep = 10 * time.Millisecond

func nanosleep(ns int64) { time.Sleep(min(time.Duration(ns), sleepStep)) }

// moduleConfig gives plugins real clocks (wazero's defaults are fake: a
// fixed wall clock and a sleep that returns at once) and a sleep that a
// context timeout can interrupt.
func moduleConfig() wazero.ModuleConfig {
	return wazero.NewModuleConfig().
		WithSysWalltime().
		WithSysNanotime().
		WithNanosleep(nanosleep)
}

// instance returns a new instance of m, closed when the test ends.
func (m *module) instance(t *testing.T) *extism.Plugin {
	t.Helper()
	ctx := context.Background()
	p, err := m.compiled.Instance(ctx, extism.PluginInstanceConfig{ModuleConfig: moduleConfig()})
	if err != nil {
		t.Fatalf("instantiate: %v", err)
	}
	t.Cleanup(func() { p.Close(ctx) })
	return p
}

// call invokes export name with input and returns its output, or an error
// when the export failed (non-zero status, error set, or a trap).
func call(ctx context.Context, p *extism.Plugin, name, input string) (string, error) {
	rc, out, err := p.CallWithContext(ctx, name, []byte(input))
	if err != nil {
		return string(out), err
	}
	if rc != 0 {
		return string(out), fmt.Errorf("%s returned %d with no error message", name, rc)
	}
	return string(out), nil
}

// want calls export name and checks its output.
func want(t *testing.T, p *extism.Plugin, name, input, output string) {
	t.Helper()
	got, err := call(context.Background(), p, name, input)
	if err != nil {
		t.Errorf("%s(%s): error %v, want output %q", name, input, err, output)
		return
	}
	if got != output {
		t.Errorf("%s(%s) = %q, want %q", name, input, got, output)
	}
}

// wantError calls export name and checks that it fails with message msg.
func wantError(t *testing.T, p *extism.Plugin, name, input, msg string) {
	t.Helper()
	got, err := call(context.Background(), p, name, input)
	if err == nil {
		t.Errorf("%s(%s) = %q, want error %q", name, input, got, msg)
		return
	}
	if err.Error() != msg {
		t.Errorf("%s(%s): error %q, want %q", name, input, err, msg)
	}
}

// wantJSON calls export name and checks that its output is the same JSON
// value as wantJSON.
func wantJSON(t *testing.T, p *extism.Plugin, name, input, wantJSON string) {
	t.Helper()
	got, err := call(context.Background(), p, name, input)
	if err != nil {
		t.Errorf("%s(%s): %v", name, input, err)
		return
	}
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Errorf("%s(%s) = %q: not JSON: %v", name, input, got, err)
		return
	}
	if err := json.Unmarshal([]byte(wantJSON), &w); err != nil {
		t.Fatalf("bad test: %v", err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Errorf("%s(%s) =\n %s\nwant\n %s", name, input, got, wantJSON)
	}
}

func TestCalculator(t *testing.T) {
	t.Parallel()
	p := compile(t, "calculator.wasm", options{}).instance(t)

	wantJSON(t, p, "tools_information", "", `[{"name":"calculate",
		"description":"Performs basic arithmetic on two numbers: add, subtract, multiply or divide a by b.",
		"inputSchema":{"type":"object","properties":{"operation":{"type":"string","enum":["add","subtract","multiply","divide"]},"a":{"type":"number"},"b":{"type":"number"}},"required":["operation","a","b"]}}]`)

	for _, tt := range []struct{ input, output string }{
		{`{"operation":"add","a":5,"b":3}`, "8"},
		{`{"operation":"divide","a":10,"b":2}`, "5"},
		{`{"operation":"add","a":0.1,"b":0.2}`, "0.30000000000000004"},
		{`{"operation":"subtract","a":2,"b":5}`, "-3"},
		{`{"operation":"multiply","a":1e11,"b":1e10}`, "1e+21"},
		{`{"operation":"divide","a":1,"b":1e7}`, "1e-7"},
		{`{"operation":"add","a":123456789000,"b":12}`, "123456789012"},
		{`{"operation":"multiply","a":0.001,"b":0.001}`, "0.000001"},
		{`{"operation":"multiply","a":0,"b":-1}`, "0"},
		{`{"operation":"multiply","a":1e200,"b":1e200}`, "Infinity"},
		{`{"operation":"multiply","a":-1e200,"b":1e200}`, "-Infinity"},
		{`{"operation":"subtract","a":1e400,"b":1e400}`, "NaN"},
		{`{"b":3,"a":4,"operation":"multiply","extra":true}`, "12"},
	} {
		want(t, p, "calculate", tt.input, tt.output)
	}

	for _, tt := range []struct{ input, msg string }{
		{`{"operation":"divide","a":1,"b":0}`, "Division by zero"},
		{`{"operation":"divide","a":0,"b":-0}`, "Division by zero"},
		{`{"operation":"pow","a":2,"b":3}`, `Unknown operation "pow": expected add, subtract, multiply or divide`},
		{`{"operation":7,"a":2,"b":3}`, "Invalid operation: expected a string, one of add, subtract, multiply or divide"},
		{`{"operation":null,"a":2,"b":3}`, "Invalid operation: expected a string, one of add, subtract, multiply or divide"},
		{`{"a":2,"b":3}`, "Missing operation: expected add, subtract, multiply or divide"},
		{`{"operation":"add","a":"5","b":3}`, `Invalid operand "a": expected a number`},
		{`{"operation":"add","a":5,"b":null}`, `Invalid operand "b": expected a number`},
		{`{"operation":"add","a":[1],"b":2}`, `Invalid operand "a": expected a number`},
		{`{"operation":"add","a":5}`, `Missing operand "b": expected a number`},
		{`[1,2]`, "Invalid arguments: expected a JSON object with operation, a and b"},
		{``, "Invalid arguments: expected a JSON object with operation, a and b"},
		{`null`, "Invalid arguments: expected a JSON object with operation, a and b"},
	} {
		wantError(t, p, "calculate", tt.input, tt.msg)
	}
	// The instance still works after failed calls.
	want(t, p, "calculate", `{"operation":"add","a":1,"b":1}`, "2")
}

func TestStorage(t *testing.T) {
	t.Parallel()
	store := host.NewStore(math.MaxInt64)
	m := compile(t, "storage.wasm", options{store: store})
	p := m.instance(t)

	wantJSON(t, p, "resources_information", "",
		`[{"uri":"storage://{key}","name":"storage","description":"The value stored at key by the set-storage tool, or \"Key not found\".","mimeType":"text/plain"}]`)

	want(t, p, "set-storage", `{"key":"k","value":"v"}`, "Stored value at key: k")
	want(t, p, "set-storage", `{"key":"theme","value":"dark"}`, "Stored value at key: theme")
	want(t, p, "set-storage", `{"key":"empty","value":""}`, "Stored value at key: empty")
	if v, _ := store.Get("k"); string(v) != "v" {
		t.Errorf("host store has k = %q, want v", v)
	}

	read := func(key string) string {
		b, _ := json.Marshal(map[string]any{"uri": "storage://" + key, "arguments": map[string]string{"key": key}})
		return string(b)
	}
	wantJSON(t, p, "storage", read("k"), `{"uri":"storage://k","mimeType":"text/plain","text":"v"}`)
	wantJSON(t, p, "storage", read("theme"), `{"uri":"storage://theme","mimeType":"text/plain","text":"dark"}`)
	wantJSON(t, p, "storage", read("empty"), `{"uri":"storage://empty","mimeType":"text/plain","text":""}`)
	wantJSON(t, p, "storage", read("nonexistent"), `{"uri":"storage://nonexistent","mimeType":"text/plain","text":"Key not found"}`)
	// Without arguments the key comes from the URI.
	wantJSON(t, p, "storage", `{"uri":"storage://theme"}`, `{"uri":"storage://theme","mimeType":"text/plain","text":"dark"}`)

	// Overwrite, and unicode round trip.
	want(t, p, "set-storage", `{"key":"k","value":"héllo ☃ \u0000 end"}`, "Stored value at key: k")
	wantJSON(t, p, "storage", read("k"), `{"uri":"storage://k","mimeType":"text/plain","text":"héllo ☃ \u0000 end"}`)

	// Another instance of the same plugin sees the same store.
	p2 := m.instance(t)
	wantJSON(t, p2, "storage", read("theme"), `{"uri":"storage://theme","mimeType":"text/plain","text":"dark"}`)

	wantError(t, p, "set-storage", `{"key":"k"}`, `Missing argument "value": expected a string`)
	wantError(t, p, "set-storage", `{"key":1,"value":"v"}`, `Invalid argument "key": expected a string`)
	wantError(t, p, "set-storage", `{"key":"k","value":null}`, `Invalid argument "value": expected a string`)
	wantError(t, p, "storage", `{"uri":"other://x"}`, `storage: cannot read "other://x": expected a URI storage://{key}`)

	// Instances of one plugin used concurrently share the store safely.
	var wg sync.WaitGroup
	for i := range 4 {
		q := m.instance(t)
		wg.Go(func() {
			for j := range 20 {
				key := fmt.Sprintf("c%d-%d", i, j)
				if _, err := call(context.Background(), q, "set-storage", fmt.Sprintf(`{"key":%q,"value":"x"}`, key)); err != nil {
					t.Errorf("set %s: %v", key, err)
				}
			}
		})
	}
	wg.Wait()
	if n := store.Len(); n != 3+80 {
		t.Errorf("store holds %d keys, want %d", n, 3+80)
	}
}

func TestGreeter(t *testing.T) {
	t.Parallel()
	p := compile(t, "greeter.wasm", options{}).instance(t)

	wantJSON(t, p, "tools_information", "",
		`[{"name":"say_hello","description":"Greets a person by name.","inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"Who to greet"}},"required":["name"]}}]`)
	wantJSON(t, p, "resources_information", "",
		`[{"uri":"greeter://about","name":"about","description":"What the greeter plugin does","mimeType":"text/plain"}]`)
	wantJSON(t, p, "prompts_information", "",
		`[{"name":"greeting_prompt","description":"Asks the model to write a greeting for someone","arguments":[
			{"name":"name","description":"Who to greet","required":true},
			{"name":"style","description":"The tone of the greeting, for example formal or pirate (default friendly)"}]}]`)

	want(t, p, "say_hello", `{"name":"Ada"}`, "Hello, Ada!")
	wantError(t, p, "say_hello", `{}`, `Missing argument "name": expected a string`)
	wantJSON(t, p, "about", "", `{"uri":"greeter://about","mimeType":"text/plain",
		"text":"greeter is a wasmgate example plugin. It greets people with \"Hello\"; set the plugin config value \"greeting\" to change the word."}`)
	wantJSON(t, p, "greeting_prompt", `{"name":"Ada","style":"pirate"}`,
		`[{"role":"user","content":{"type":"text","text":"Write a short pirate greeting for Ada. Start it with \"Hello\"."}}]`)
	wantJSON(t, p, "greeting_prompt", `{"name":"Ada"}`,
		`[{"role":"user","content":{"type":"text","text":"Write a short friendly greeting for Ada. Start it with \"Hello\"."}}]`)
	wantError(t, p, "greeting_prompt", `{"style":"pirate"}`, `Missing argument "name"`)

	// The greeting word comes from the plugin's config.
	q := compile(t, "greeter.wasm", options{config: map[string]string{"greeting": "Ahoy"}}).instance(t)
	want(t, q, "say_hello", `{"name":"Ada"}`, "Ahoy, Ada!")
	wantJSON(t, q, "greeting_prompt", `{"name":"Ada"}`,
		`[{"role":"user","content":{"type":"text","text":"Write a short friendly greeting for Ada. Start it with \"Ahoy\"."}}]`)
}

func TestSeaFlea(t *testing.T) {
	t.Parallel()
	p := compile(t, "../../testdata/plugins/seaflea.wasm", options{}).instance(t)

	// The information exports' bytes, exactly.
	logo := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGPQq734HwAE1QJ8vER1UAAAAABJRU5ErkJggg=="
	for _, tt := range []struct{ name, output string }{
		{"tools_information", `[{"name":"add","description":"Adds two numbers","inputSchema":{"type":"object","properties":{"a":{"type":"number","description":"The first number"},"b":{"type":"number","description":"The second number"}},"required":["a","b"]}}]`},
		{"resources_information", `[{"uri":"seaflea://readme","name":"readme","description":"About this plugin","mimeType":"text/markdown","text":"# seaflea\n\nA test plugin in the sea-flea style."},{"uri":"seaflea://logo","name":"logo","description":"A one-pixel logo","mimeType":"image/png","blob":"` + logo + `"}]`},
		{"prompts_information", `[{"name":"review_prompt","description":"Asks for a code review","arguments":[{"name":"code","description":"The code to review","required":true},{"name":"language","description":"The programming language of the code"}]}]`},
		{"readme", `{"uri":"seaflea://readme","mimeType":"text/markdown","text":"# seaflea\n\nA test plugin in the sea-flea style."}`},
		{"logo", `{"uri":"seaflea://logo","mimeType":"image/png","blob":"` + logo + `"}`},
	} {
		if !json.Valid([]byte(tt.output)) {
			t.Fatalf("bad test: %s output is not JSON", tt.name)
		}
		want(t, p, tt.name, "", tt.output)
	}

	// The blob is a real PNG.
	blob, err := base64.StdEncoding.DecodeString(logo)
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(blob)); err != nil || cfg.Width != 1 || cfg.Height != 1 {
		t.Errorf("logo blob: %+v, %v; want a 1x1 PNG", cfg, err)
	}

	want(t, p, "add", `{"a":2,"b":3}`, "5")
	want(t, p, "add", `{"a":0.5,"b":0.25}`, "0.75")
	if _, err := call(context.Background(), p, "add", `{"a":"x"}`); err == nil {
		t.Error(`add({"a":"x"}) succeeded, want an error`)
	}
	wantJSON(t, p, "review_prompt", `{"code":"x := 1","language":"Go"}`,
		`[{"role":"user","content":{"type":"text","text":"Please review Go code:\n\nx := 1"}}]`)
	wantError(t, p, "review_prompt", `{"language":"Go"}`, "missing required argument: code")
}

func TestHostile(t *testing.T) {
	t.Parallel()
	m := compile(t, "../../testdata/plugins/hostile.wasm", options{})

	t.Run("information", func(t *testing.T) {
		p := m.instance(t)
		out, err := call(context.Background(), p, "tools_information", "")
		if err != nil {
			t.Fatal(err)
		}
		var tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal([]byte(out), &tools); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
			if !p.FunctionExists(tool.Name) {
				t.Errorf("tool %s has no export", tool.Name)
			}
		}
		if got := strings.Join(names, " "); got != "spin bomb crash trap flood sleep echo" {
			t.Errorf("tools: %s", got)
		}
	})

	t.Run("spin", func(t *testing.T) {
		p := m.instance(t)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := call(ctx, p, "spin", "{}")
		elapsed := time.Since(start)
		if err == nil {
			t.Fatal("spin returned without error")
		}
		if elapsed > 5*time.Second {
			t.Errorf("spin stopped after %v, want about 200ms", elapsed)
		}
		t.Logf("spin stopped after %v: %v", elapsed.Round(time.Millisecond), err)
		// An instance stopped by its context is closed for good.
		if _, err := call(context.Background(), p, "echo", "x"); err == nil {
			t.Error("instance still answers after its call timed out")
		}
	})

	t.Run("crash", func(t *testing.T) {
		p := m.instance(t)
		_, err := call(context.Background(), p, "crash", "{}")
		if err == nil {
			t.Fatal("crash returned without error")
		}
		t.Logf("crash: %v", err)
	})

	t.Run("trap", func(t *testing.T) {
		p := m.instance(t)
		_, err := call(context.Background(), p, "trap", "{}")
		if err == nil {
			t.Fatal("trap returned without error")
		}
		if !strings.Contains(err.Error(), "out of bounds memory access") {
			t.Errorf("trap: %v, want a wasm out-of-bounds trap", err)
		}
		t.Logf("trap: %v", err)
	})

	t.Run("flood", func(t *testing.T) {
		p := m.instance(t)
		out, err := call(context.Background(), p, "flood", "{}")
		if err != nil {
			t.Fatal(err)
		}
		if len(out) < 8<<20 {
			t.Errorf("flood output %d bytes, want at least 8 MiB", len(out))
		}
	})

	t.Run("sleep", func(t *testing.T) {
		p := m.instance(t)
		start := time.Now()
		want(t, p, "sleep", `{"ms":50}`, "slept 50ms")
		if elapsed := time.Since(start); elapsed < 50*time.Millisecond {
			t.Errorf("sleep 50ms returned after %v", elapsed)
		}
		wantError(t, p, "sleep", `{}`, `Invalid argument "ms": expected a non-negative number`)

		// A context timeout stops a sleeping call too.
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start = time.Now()
		if _, err := call(ctx, m.instance(t), "sleep", `{"ms":10000}`); err == nil {
			t.Error("sleep 10s with a 100ms timeout returned without error")
		}
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("sleep 10s with a 100ms timeout stopped after %v", elapsed)
		} else {
			t.Logf("sleep 10s with a 100ms timeout stopped after %v", elapsed.Round(time.Millisecond))
		}
	})

	t.Run("echo", func(t *testing.T) {
		p := m.instance(t)
		for _, in := range []string{"", "x", `{"a":[1,2,3]}`, strings.Repeat("é", 100000)} {
			want(t, p, "echo", in, in)
		}
	})

	t.Run("bomb", func(t *testing.T) {
		// 512 pages of 64 KiB: 32 MiB. (With 128 MiB, the guest's garbage
		// collector, scanning all it hoards at each of its cycles, took over
		// 30 s to reach the limit under -race on a busy CI machine.) The
		// timeout only guards against a hang.
		p := compile(t, "../../testdata/plugins/hostile.wasm", options{maxPages: 512}).instance(t)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_, err := call(ctx, p, "bomb", "{}")
		if err == nil {
			t.Fatal("bomb returned without error")
		}
		if ctx.Err() != nil {
			t.Fatalf("bomb was stopped by the timeout, not by the memory limit: %v", err)
		}
		t.Logf("bomb: %v", err)
	})
}

func TestBadInfo(t *testing.T) {
	t.Parallel()
	p := compile(t, "../../testdata/plugins/badinfo.wasm", options{}).instance(t)
	if out, err := call(context.Background(), p, "tools_information", ""); err == nil {
		t.Fatalf("tools_information = %q, want an error", out)
	}
}

func TestKVQuota(t *testing.T) {
	t.Parallel()
	// Room for three 1 MiB values and their keys, not four.
	store := host.NewStore(4 << 20)
	p := compile(t, "../../testdata/plugins/kvquota.wasm", options{store: store}).instance(t)
	want(t, p, "fill", "{}", "wasmgate: key-value store quota exceeded")
	if n := store.Len(); n != 3 {
		t.Errorf("store holds %d values, want 3", n)
	}
}
