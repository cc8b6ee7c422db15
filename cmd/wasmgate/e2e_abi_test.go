package main

// ABI detection: a module is served through the ABI its exports match,
// `validate` names that ABI per plugin, and a module that matches none,
// or that imports a host function the gateway does not provide, is
// refused with a message naming what is wrong.

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmgate/wasmgate/internal/harness"
)

// writeModule writes a module with the given imports and exports in a
// fresh folder and returns a config serving it as plugin name.
func writeModule(t *testing.T, name string, imports [][2]string, exports []string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, name+".wasm")
	harness.WriteFile(t, path, harness.WasmModule(imports, exports))
	return harness.WriteConfig(t, "plugins:\n"+harness.Item("name: "+name, "path: "+harness.Q(path)))
}

func TestValidateRefusesModuleWithNoKnownABI(t *testing.T) {
	t.Parallel()
	cfg := writeModule(t, "mystery", nil, []string{"run", "main_loop"})
	checkRefused(t, runValidate(t, cfg, nil, nil), []string{
		`plugin "mystery" (plugins[0])`,
		"no supported plugin ABI matches its exports (it exports main_loop, run)",
		"sea-flea (exports tools_information, resources_information or prompts_information)",
	}, nil)
}

func TestValidateRefusesUnknownHostImport(t *testing.T) {
	t.Parallel()
	cfg := writeModule(t, "importer", [][2]string{{"extism:host/user", "launch_rockets"}}, []string{"tools_information"})
	checkRefused(t, runValidate(t, cfg, nil, nil), []string{
		`plugin "importer" (plugins[0])`,
		`imports a host function wasmgate does not provide: "launch_rockets" from "extism:host/user"`,
		"wasmgate_kv_get",
	}, []string{"not exported in module"})
}

// A sea-flea plugin listing a resource and a prompt it has no export for
// loads with a warning naming each; its tools work, and the two items
// answer with an error saying what is missing.
func TestPluginWithMissingExportsLoads(t *testing.T) {
	t.Parallel()
	plugins := harness.Item("name: goodbye", "path: "+harness.Q(harness.Wasm(t, "testdata/plugins/goodbye")))
	cfg := harness.WriteConfig(t, bins.YAML(harness.Parts{Plugins: plugins}))

	r := runValidate(t, cfg, nil, nil)
	if r.Code != 0 {
		t.Fatalf("validate exited %d:\n%s", r.Code, r.Stderr)
	}
	for _, w := range []string{
		"plugin goodbye (plugins[0]): sea-flea ABI; 2 tools, 1 resource, 0 resource templates, 1 prompt",
		`warning: resource "farewell" has no export of that name`,
		`warning: prompt "parting" has no export of that name`,
	} {
		if !strings.Contains(r.Stdout, w) {
			t.Errorf("validate output does not contain %q:\n%s", w, r.Stdout)
		}
	}
	if !strings.Contains(r.Stderr, `resource \"farewell\" has no export`) {
		t.Errorf("validate did not warn on stderr:\n%s", r.Stderr)
	}

	g := bins.Start(t, harness.Options{Config: cfg})
	if _, ok := g.WaitLog(0, `prompt \"parting\" has no export`, time.Second); !ok {
		t.Error("serve did not log a warning for the prompt without an export")
	}
	ctx := harness.Ctx(t, 30*time.Second)
	c := g.SessionClient(t)
	if got, isErr := harness.CallTool(ctx, t, c, "goodbye", map[string]any{"name": "Ada"}); isErr || got != "Goodbye, Ada!" {
		t.Errorf("goodbye = %q (isError %v)", got, isErr)
	}
	if got, isErr := harness.CallTool(ctx, t, c, "wave", nil); isErr || got != "o/" {
		t.Errorf("wave = %q (isError %v)", got, isErr)
	}
	if _, err := harness.ReadResourceErr(ctx, c, "goodbye://farewell"); err == nil || !strings.Contains(err.Error(), `resource "farewell" is listed by the plugin, but the plugin has no export of that name`) {
		t.Errorf("reading goodbye://farewell: %v", err)
	}
	if _, err := harness.GetPrompt(ctx, c, "parting", nil); err == nil || !strings.Contains(err.Error(), `prompt "parting" is listed by the plugin, but the plugin has no export`) {
		t.Errorf("getting parting: %v", err)
	}
}
