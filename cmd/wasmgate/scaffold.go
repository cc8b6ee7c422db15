package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
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
		fmt.Fprint(stderr, "Usage: wasmgate plugin new [--dir DIR] [--module PATH] NAME\n")
		return 2
	}
	return pluginNew(args[1:], stdout, stderr)
}

func pluginNew(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("plugin new", "NAME", "Create a Go plugin project in ./NAME (or --dir): main.go with a tool, a resource\nand a prompt, a Makefile, a gateway.yaml that serves it, and a copy of the pdk\npackage, so it builds with the standard Go toolchain and no access to this\nrepository. Then: cd NAME && make && make validate && make call.", stderr)
	dir := fs.String("dir", "", "folder to create (default ./NAME); must not exist or be empty")
	module := fs.String("module", "", "Go module path of the project (default example.com/NAME)")
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
	if *dir == "" {
		*dir = name
	}
	if *module == "" {
		*module = "example.com/" + name
	}
	if err := scaffold(*dir, name, *module); err != nil {
		fmt.Fprintf(stderr, "wasmgate plugin new: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "created %s: a plugin %q (module %s)\n  cd %s && make && make validate && make call\n", *dir, name, *module, *dir)
	return 0
}

// scaffold writes the project into dir.
func scaffold(dir, name, module string) error {
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s exists and is not empty", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	sums, err := kitSums()
	if err != nil {
		return err
	}
	data := struct {
		Name, Module, Version, Kit, GoPDK, GoPDKVersion, Exe string
	}{name, module, version, kitDir, goPDK, sums.version, "wasmgate"}
	if exe, err := os.Executable(); err == nil {
		data.Exe = exe
	}
	files := map[string]string{
		"main.go":          scaffoldMain,
		"go.mod":           scaffoldGoMod,
		"go.sum":           sums.lines,
		"Makefile":         scaffoldMakefile,
		"gateway.yaml":     scaffoldConfig,
		"README.md":        scaffoldReadme,
		".gitignore":       "*.wasm\n",
		kitDir + "/go.mod": scaffoldKitGoMod,
		kitDir + "/go.sum": sums.lines,
	}
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
	// The pdk and wire packages as this gateway was built with them.
	return fs.WalkDir(wasmgate.PluginKit, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".go" || strings.HasSuffix(p, "_test.go") {
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
	"fmt"
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
		Name:        "shout",
		Description: "Returns the text in capitals, with the configured suffix.",
		InputSchema: wasmgate.Schema(` + "`" + `{"type":"object","properties":{"text":{"type":"string","description":"What to shout"}},"required":["text"]}` + "`" + `),
	}})
}

//go:wasmexport shout
func shout() int32 {
	var in struct {
		Text string ` + "`json:\"text\"`" + `
	}
	if err := wasmgate.Args(&in); err != nil {
		return wasmgate.Fail(err)
	}
	if strings.TrimSpace(in.Text) == "" {
		return wasmgate.Fail(fmt.Errorf("text is empty: nothing to shout"))
	}
	return wasmgate.Text(strings.ToUpper(in.Text) + suffix())
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
		Text:     "[[.Name]] shouts: the shout tool returns its text in capitals.",
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
	var args map[string]string
	if err := wasmgate.Args(&args); err != nil {
		return wasmgate.Fail(err)
	}
	return wasmgate.Information([]wasmgate.PromptMessage{
		wasmgate.UserText("Write a one-line announcement of: " + args["news"]),
	})
}
`

const scaffoldMakefile = `# [[.Name]]: a wasmgate plugin. make builds [[.Name]].wasm with the standard
# Go toolchain; make validate loads it in wasmgate; make call calls its tool.
WASMGATE ?= [[.Exe]]
GO ?= go

[[.Name]].wasm: main.go go.mod $(wildcard [[.Kit]]/*/*.go)
	GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared -trimpath -o $@ .

.PHONY: validate call serve clean
validate: [[.Name]].wasm
	$(WASMGATE) validate --config gateway.yaml

call: [[.Name]].wasm
	$(WASMGATE) call --config gateway.yaml shout '{"text":"hello"}'

serve: [[.Name]].wasm
	$(WASMGATE) serve --config gateway.yaml

clean:
	rm -f [[.Name]].wasm
`

const scaffoldConfig = `# Serves this plugin: wasmgate serve --config gateway.yaml (or make serve).
# Saving this file or rebuilding the module reloads the running gateway.
transports:
  http:
    listen: 127.0.0.1:8080
admin:
  listen: 127.0.0.1:9090       # status page: http://127.0.0.1:9090/
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
	"make call         # wasmgate call --config gateway.yaml shout '{\"text\":\"hello\"}'\n" +
	"make serve        # serve it over HTTP; or add it to your own gateway.yaml\n" +
	"```\n\n" +
	"`[[.Kit]]/` is a copy of wasmgate's `pdk` package (and the `wire` package it\n" +
	"uses), taken from wasmgate [[.Version]]; `go.mod` points\n" +
	"`github.com/wasmgate/wasmgate` at it, so the project builds with nothing but\n" +
	"the Go module proxy (for `[[.GoPDK]]`).\n"
