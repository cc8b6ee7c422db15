package loader

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
	"github.com/wasmgate/wasmgate/loader/abi"
	"github.com/wasmgate/wasmgate/loader/fetch"
	"github.com/wasmgate/wasmgate/loader/host"
)

// compile fetches and compiles a test plugin of testdata/plugins, or skips
// the test if it has not been built.
func compile(t testing.TB, name string) (*Plugin, *Instance) {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "testdata", "plugins", name+".wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		t.Skipf("%s is not built: run scripts/build-plugins.sh", path)
	}
	spec := PluginSpec{Name: name, Path: path, Key: "plugins[0]"}
	spec.Limits.fill()
	mod, err := Fetch(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return compileModule(t, spec, mod)
}

func compileModule(t testing.TB, spec PluginSpec, mod fetch.Module) (*Plugin, *Instance) {
	t.Helper()
	p, first, err := compileErr(t, spec, mod)
	if err != nil {
		t.Fatal(err)
	}
	return p, first
}

// compileErr compiles mod; on success the plugin is closed at the end of
// the test.
func compileErr(t testing.TB, spec PluginSpec, mod fetch.Module) (*Plugin, *Instance, error) {
	t.Helper()
	ctx := context.Background()
	// A cache that outlives the test binary, as bench_test.go's, so that
	// running the tests again does not compile again.
	c, err := NewCompiler(filepath.Join(os.TempDir(), "wasmgate-test-cache"), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(ctx) })
	p, first, err := c.Compile(ctx, spec, mod, host.Env{Store: host.NewStore(1 << 20)})
	if err != nil {
		return nil, nil, err
	}
	t.Cleanup(func() { first.Close(ctx); p.Close(ctx) })
	return p, first, nil
}

func TestCompileSeaFlea(t *testing.T) {
	p, inst := compile(t, "seaflea")
	if p.ABI.Name() != "sea-flea" || len(p.Info.Tools) != 1 || len(p.Info.Resources) != 2 || len(p.Info.Prompts) != 1 {
		t.Fatalf("plugin %s: %+v", p.ABI.Name(), p.Info)
	}
	out, err := p.ABI.CallTool(context.Background(), inst, "add", []byte(`{"a":1,"b":2}`))
	if err != nil || string(out.Text) != "3" {
		t.Errorf("add = %q, %v", out, err)
	}
}

// A module that matches no ABI is refused, naming what it exports and the
// ABIs supported.
func TestCompileRefusesUnknownABI(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want []string
	}{
		{"empty", []byte("\x00asm\x01\x00\x00\x00"), []string{"it exports no functions"}},
		{"other", harness.WasmModule(nil, []string{"run", "greet"}), []string{"it exports greet, run"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := PluginSpec{Name: c.name, Path: c.name + ".wasm", Key: "plugins[0]"}
			spec.Limits.fill()
			_, _, err := compileErr(t, spec, fetch.Module{Data: c.data})
			if err == nil {
				t.Fatal("compiled")
			}
			for _, w := range append(c.want, `plugin "`+c.name+`" (plugins[0]): `+c.name+".wasm: no supported plugin ABI matches its exports",
				"sea-flea (exports tools_information, resources_information or prompts_information)") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// A module importing a host function the gateway does not provide is
// refused before it is instantiated, naming the function.
func TestCompileRefusesUnknownImport(t *testing.T) {
	spec := PluginSpec{Name: "imp", Path: "imp.wasm", Key: "plugins[0]"}
	spec.Limits.fill()
	data := harness.WasmModule([][2]string{{"extism:host/user", "wasmgate_kv_get_v9"}, {"extism:host/user", "notify_nothing"}}, []string{"tools_information"})
	_, _, err := compileErr(t, spec, fetch.Module{Data: data})
	if err == nil {
		t.Fatal("compiled")
	}
	for _, w := range []string{`plugin "imp" (plugins[0]): imp.wasm: imports host functions wasmgate does not provide: "wasmgate_kv_get_v9" from "extism:host/user", "notify_nothing" from "extism:host/user"`, "wasmgate_kv_get"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
	// An import of a host function with another type is named with both
	// types.
	bad := harness.WasmModule([][2]string{{"extism:host/user", "wasmgate_kv_delete"}}, []string{"tools_information"})
	_, _, err = compileErr(t, spec, fetch.Module{Data: bad})
	if want := `"wasmgate_kv_delete" from "extism:host/user" as () -> () (wasmgate's is (i64) -> (i64))`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v does not contain %q", err, want)
	}
}

// Each way a call fails is a CallError of its own Kind, and only an error
// the plugin reports itself leaves the instance usable; calling a dead
// instance fails with KindExit.
func TestCallErrorKinds(t *testing.T) {
	p, _ := compile(t, "hostile")
	for _, c := range []struct {
		export, input string
		ctx           func() (context.Context, context.CancelFunc)
		kind          abi.Kind
	}{
		{"sleep", `{"ms":-1}`, nil, abi.KindError},
		{"spin", `{}`, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, abi.KindTimeout},
		{"spin", `{}`, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, abi.KindCancelled},
		{"crash", `{}`, nil, abi.KindTrap}, // a Go panic in an export traps (unreachable)
		{"trap", `{}`, nil, abi.KindTrap},
	} {
		t.Run(c.export+"/"+c.kind.String(), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			if c.ctx != nil {
				ctx, cancel = c.ctx()
			}
			defer cancel()
			inst, err := p.NewInstance(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer inst.Close(context.Background())
			_, err = inst.Call(ctx, c.export, []byte(c.input))
			var ce *abi.CallError
			if !errors.As(err, &ce) || ce.Kind != c.kind || ce.Export != c.export {
				t.Fatalf("%s: got %#v, want kind %s", c.export, err, c.kind)
			}
			if dead := c.kind != abi.KindError; inst.Dead() != dead {
				t.Errorf("%s: Dead() = %v, want %v", c.export, inst.Dead(), dead)
			}
			if inst.Dead() {
				_, err := inst.Call(context.Background(), "echo", nil)
				if !errors.As(err, &ce) || ce.Kind != abi.KindExit {
					t.Errorf("call on a dead instance: %v", err)
				}
			}
		})
	}
}
