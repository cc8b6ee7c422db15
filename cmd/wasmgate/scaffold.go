package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/wasmgate/wasmgate"
	"github.com/wasmgate/wasmgate/config"
)

// goPDK is the extism go-pdk version the scaffold requires; its checksums
// come from this module's go.sum.
const goPDK = "github.com/extism/go-pdk"

// kitDir is where a scaffolded project keeps its copy of wasmgate's pdk and
// wire packages, as a module of its own the project replaces
// github.com/wasmgate/wasmgate with.
const kitDir = "internal/wasmgate"

func pluginCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "new" {
		fmt.Fprint(stderr, "Usage: wasmgate plugin new [--interceptor] [--dir DIR] [--module PATH] [--port N] NAME\n")
		return 2
	}
	return pluginNew(args[1:], stdout, stderr)
}

func pluginNew(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("plugin new", "NAME", "Create a Go plugin project in ./NAME (or --dir): main.go with a tool, a resource\nand a prompt, a Makefile, a gateway.yaml that serves it, and a copy of the pdk\npackage, so it builds with the standard Go toolchain and no access to this\nrepository. Then: cd NAME && make && make validate && make call.\nWith --interceptor, a Go interceptor project instead (docs/interceptors.md):\nmain.go with intercept_request and intercept_response, a copy of the pdk and\npdk/intercept packages, and a gateway.yaml with an interceptors entry.", stderr)
	interceptor := fs.Bool("interceptor", false, "create an interceptor (intercept_request, intercept_response) instead of a plugin")
	dir := fs.String("dir", "", "folder to create (default ./NAME); must not exist or be empty")
	module := fs.String("module", "", "Go module path of the project (default example.com/NAME)")
	port := fs.Int("port", 0, "the HTTP port of its gateway.yaml; the admin listener gets the next one (default: two ports free now)")
	if err := fs.Parse(args); err != nil {
		return flagCode(err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	name := fs.Arg(0)
	if !config.ValidName(name) || strings.ContainsAny(name, ".") {
		fmt.Fprintf(stderr, "wasmgate plugin new: %q is not a plugin name: use letters, digits, '_' or '-'\n", name)
		return 2
	}
	if !*interceptor && reservedExport(name) {
		fmt.Fprintf(stderr, "wasmgate plugin new: %q is not a plugin name: the scaffold exports a function of that name already\n", name)
		return 2
	}
	if *port < 0 || *port > 65534 {
		fmt.Fprintf(stderr, "wasmgate plugin new: --port %d: not a port (1-65534)\n", *port)
		return 2
	}
	ports, err := scaffoldPorts(*port)
	if err != nil {
		fmt.Fprintf(stderr, "wasmgate plugin new: find free ports: %v\n", err)
		return 1
	}
	if *dir == "" {
		*dir = name
	}
	if *module == "" {
		*module = "example.com/" + name
	}
	kind := pluginProject
	if *interceptor {
		kind = interceptorProject
	}
	if err := scaffold(*dir, name, *module, ports, kind); err != nil {
		fmt.Fprintf(stderr, "wasmgate plugin new: %v\n", err)
		return 1
	}
	if *interceptor {
		fmt.Fprintf(stdout, "created %s: an interceptor %q (module %s), on tools/call in both phases, in a gateway on 127.0.0.1:%d (status page on :%d)\n  cd %s && make && make validate\n",
			*dir, name, *module, ports[0], ports[1], *dir)
	} else {
		fmt.Fprintf(stdout, "created %s: a plugin %q with a tool %q (module %s), served on 127.0.0.1:%d (status page on :%d)\n  cd %s && make && make validate && make call\n",
			*dir, name, name, *module, ports[0], ports[1], *dir)
	}
	if exe, err := os.Executable(); err == nil {
		if onPath, err := exec.LookPath("wasmgate"); err != nil || !sameFile(onPath, exe) {
			fmt.Fprintf(stdout, "  (this wasmgate is not the one on PATH: run make with WASMGATE=%s)\n", exe)
		}
	}
	return 0
}

// reservedExport says whether name is one of the scaffold's exports other
// than the tool: a plugin of that name would export it twice.
func reservedExport(name string) bool {
	switch name {
	case "about", "announce", "main", "_start", "_initialize", "tools_information", "resources_information", "prompts_information":
		return true
	}
	return false
}

// scaffoldPorts are the HTTP and admin ports: port and the next, or two
// ports free on loopback now (so that `make serve` runs beside `make run`
// and beside other scaffolds).
func scaffoldPorts(port int) ([2]int, error) {
	if port != 0 {
		return [2]int{port, port + 1}, nil
	}
	var out [2]int
	for i := range out {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return out, err
		}
		defer l.Close() // both held until both are chosen
		out[i] = l.Addr().(*net.TCPAddr).Port
	}
	return out, nil
}

func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// project is what `plugin new` scaffolds: its own files, and the
// packages of the kit it copies (folders of wasmgate.PluginKit).
type project struct {
	files map[string]string
	kit   []string
}

var (
	pluginProject = project{
		files: map[string]string{
			"main.go":      scaffoldMain,
			"Makefile":     scaffoldMakefile,
			"gateway.yaml": scaffoldConfig,
			"README.md":    scaffoldReadme,
		},
		kit: []string{"pdk", "pdk/args", "wire"},
	}
	interceptorProject = project{
		files: map[string]string{
			"main.go":      scaffoldInterceptorMain,
			"Makefile":     scaffoldInterceptorMakefile,
			"gateway.yaml": scaffoldInterceptorConfig,
			"README.md":    scaffoldInterceptorReadme,
		},
		kit: []string{"pdk", "pdk/args", "pdk/intercept", "wire"},
	}
)

// scaffold writes the project kind into dir.
func scaffold(dir, name, module string, ports [2]int, kind project) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s exists and is not empty", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	sums, err := kitSums()
	if err != nil {
		return err
	}
	for _, pkg := range kind.kit {
		// A package the kit lacks: this wasmgate was built without it.
		if m, _ := fs.Glob(wasmgate.PluginKit, pkg+"/*.go"); len(m) == 0 {
			return fmt.Errorf("this wasmgate was built without the %s package: build one from a checkout that has it", pkg)
		}
	}
	data := struct {
		Name, Module, Version, Kit, GoPDK, GoPDKVersion string
		HTTPPort, AdminPort                             int
	}{name, module, version, kitDir, goPDK, sums.version, ports[0], ports[1]}
	files := map[string]string{
		"go.mod":           scaffoldGoMod,
		"go.sum":           sums.lines,
		".gitignore":       "*.wasm\n",
		kitDir + "/go.mod": scaffoldKitGoMod,
		kitDir + "/go.sum": sums.lines,
	}
	maps.Copy(files, kind.files)
	for rel, text := range files {
		var b bytes.Buffer
		t := template.Must(template.New(rel).Delims("[[", "]]").Parse(text))
		if err := t.Execute(&b, data); err != nil {
			return fmt.Errorf("render %s: %w", rel, err)
		}
		if err := writeFile(filepath.Join(dir, rel), b.Bytes()); err != nil {
			return err
		}
	}
	// The kit's packages as this gateway was built with them.
	return fs.WalkDir(wasmgate.PluginKit, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".go" || strings.HasSuffix(p, "_test.go") || !slices.Contains(kind.kit, path.Dir(p)) {
			return err
		}
		b, err := wasmgate.PluginKit.ReadFile(p)
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(dir, kitDir, filepath.FromSlash(p)), b)
	})
}

func writeFile(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o644)
}

// kitSums are the go.sum lines of the go-pdk version this module uses.
type sumLines struct{ version, lines string }

func kitSums() (sumLines, error) {
	b, err := wasmgate.PluginKit.ReadFile("go.sum")
	if err != nil {
		return sumLines{}, err
	}
	var out sumLines
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == goPDK {
			out.version = strings.TrimSuffix(f[1], "/go.mod")
			out.lines += sc.Text() + "\n"
		}
	}
	if out.version == "" {
		return out, fmt.Errorf("no %s in the embedded go.sum", goPDK)
	}
	return out, nil
}

const scaffoldGoMod = `module [[.Module]]

go 1.24

require (
	[[.GoPDK]] [[.GoPDKVersion]]
	github.com/wasmgate/wasmgate v0.0.0
)

// The pdk package, copied from wasmgate [[.Version]] by ` + "`wasmgate plugin new`" + `:
// github.com/wasmgate/wasmgate is not fetched from anywhere.
replace github.com/wasmgate/wasmgate => ./[[.Kit]]
`

const scaffoldKitGoMod = `// wasmgate's pdk and wire packages, copied from wasmgate [[.Version]].
// Replace this folder with a newer copy (wasmgate plugin new, in another
// folder) to update them.
module github.com/wasmgate/wasmgate

go 1.24

require [[.GoPDK]] [[.GoPDKVersion]]
`

const scaffoldMain = `//go:build wasip1

// Command [[.Name]] is a wasmgate plugin: one tool, one resource and one
// prompt, in the sea-flea ABI that wasmgate serves. Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o [[.Name]].wasm .
//
// (or make). docs/plugins.md in wasmgate describes every export.
package main

import (
	"errors"
	"strings"

	extism "github.com/extism/go-pdk"

	wasmgate "github.com/wasmgate/wasmgate/pdk"
)

func main() {}

// tools_information lists the tools; each tool is the export of its name.
//
//go:wasmexport tools_information
func toolsInformation() int32 {
	return wasmgate.Information([]wasmgate.Tool{{
		Name:        "[[.Name]]",
		Description: "Returns the text in capitals, with the configured suffix.",
		InputSchema: wasmgate.Schema(` + "`" + `{"type":"object","properties":{"text":{"type":"string","description":"What to shout"}},"required":["text"]}` + "`" + `),
	}})
}

// tool is the export of the tool's name. Arguments reads them without
// reflection (docs/plugins.md, "What a call costs"); wasmgate.Args(&v)
// decodes them into a struct with encoding/json instead.
//
//go:wasmexport [[.Name]]
func tool() int32 {
	args, err := wasmgate.Arguments()
	if err != nil {
		return wasmgate.Fail(err)
	}
	text, ok := args.String("text")
	if !ok {
		return wasmgate.Fail(errors.New(` + "`" + `Invalid argument "text": expected a string` + "`" + `))
	}
	if strings.TrimSpace(text) == "" {
		return wasmgate.Fail(errors.New("text is empty: nothing to shout"))
	}
	return wasmgate.Text(strings.ToUpper(text) + suffix())
}

// suffix comes from gateway.yaml: plugins[].config.suffix.
func suffix() string {
	if s, ok := extism.GetConfig("suffix"); ok {
		return s
	}
	return "!"
}

//go:wasmexport resources_information
func resourcesInformation() int32 {
	return wasmgate.Information([]wasmgate.Resource{{
		URI:         "[[.Name]]://about",
		Name:        "about",
		Description: "What this plugin does",
		MimeType:    "text/plain",
	}})
}

// about is the export of the resource named "about".
//
//go:wasmexport about
func about() int32 {
	return wasmgate.Information(wasmgate.ResourceContent{
		URI:      "[[.Name]]://about",
		MimeType: "text/plain",
		Text:     "[[.Name]] shouts: the [[.Name]] tool returns its text in capitals.",
	})
}

//go:wasmexport prompts_information
func promptsInformation() int32 {
	return wasmgate.Information([]wasmgate.Prompt{{
		Name:        "announce",
		Description: "Asks the model to announce something",
		Arguments:   []wasmgate.PromptArgument{{Name: "news", Description: "What to announce", Required: true}},
	}})
}

//go:wasmexport announce
func announce() int32 {
	args, err := wasmgate.Arguments()
	if err != nil {
		return wasmgate.Fail(err)
	}
	news, _ := args.String("news")
	return wasmgate.Information([]wasmgate.PromptMessage{
		wasmgate.UserText("Write a one-line announcement of: " + news),
	})
}
`

const scaffoldMakefile = `# [[.Name]]: a wasmgate plugin. make builds [[.Name]].wasm with the standard
# Go toolchain; make validate loads it in wasmgate; make call calls its tool.
# WASMGATE is the wasmgate on PATH; make WASMGATE=/path/to/wasmgate for another.
WASMGATE ?= wasmgate
GO ?= go

[[.Name]].wasm: main.go go.mod $(wildcard [[.Kit]]/*/*.go)
	GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -trimpath -o $@ .

.PHONY: validate call serve clean
validate: [[.Name]].wasm
	$(WASMGATE) validate --config gateway.yaml

call: [[.Name]].wasm
	$(WASMGATE) call --config gateway.yaml [[.Name]] '{"text":"hello"}'

serve: [[.Name]].wasm
	$(WASMGATE) serve --config gateway.yaml

clean:
	rm -f [[.Name]].wasm
`

const scaffoldConfig = `# Serves this plugin: wasmgate serve --config gateway.yaml (or make serve).
# Saving this file or rebuilding the module reloads the running gateway.
# The ports were free when ` + "`wasmgate plugin new`" + ` ran (--port chooses them),
# so that this serves beside another gateway.
transports:
  http:
    listen: 127.0.0.1:[[.HTTPPort]]
admin:
  listen: 127.0.0.1:[[.AdminPort]]       # status page: http://127.0.0.1:[[.AdminPort]]/
plugins:
  - name: [[.Name]]
    path: ./[[.Name]].wasm
    config:
      suffix: "!"
    limits:
      timeout: 5s
      memory: 64MiB
`

const scaffoldReadme = "# [[.Name]]\n\n" +
	"A [wasmgate](https://github.com/wasmgate/wasmgate) plugin, created by `wasmgate plugin new [[.Name]]`.\n\n" +
	"```sh\n" +
	"make              # GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o [[.Name]].wasm .\n" +
	"make validate     # wasmgate validate --config gateway.yaml\n" +
	"make call         # wasmgate call --config gateway.yaml [[.Name]] '{\"text\":\"hello\"}'\n" +
	"make serve        # serve it on http://127.0.0.1:[[.HTTPPort]]/mcp; or add it to your own gateway.yaml\n" +
	"```\n\n" +
	"The Makefile runs the `wasmgate` on PATH; `make WASMGATE=/path/to/wasmgate validate` runs another.\n\n" +
	"`[[.Kit]]/` is a copy of wasmgate's `pdk` package (and the `wire` package it\n" +
	"uses), taken from wasmgate [[.Version]]; `go.mod` points\n" +
	"`github.com/wasmgate/wasmgate` at it, so the project builds with nothing but\n" +
	"the Go module proxy (for `[[.GoPDK]]`).\n"
